"""The operators' web UI (server-rendered: jinja2 templates, a small local CSS, inline SVG charts)."""
