"""Small inline SVG charts, rendered on the server (no JavaScript, no CDN)."""

from __future__ import annotations

from html import escape

from markupsafe import Markup

__all__ = ["bar_chart", "grouped_bars", "line_chart"]

_PALETTE = ("#2f6fde", "#e0892f", "#3a9d5d", "#b04fc0", "#c9463d", "#5b6b7a")


def _num(v: float) -> str:
    return f"{v:.0f}" if abs(v) >= 10 or v == int(v) else f"{v:.2f}"


def line_chart(
    points: list[tuple[str, float]], *, width: int = 640, height: int = 200, title: str = ""
) -> Markup:
    """A line over labelled x positions (e.g. days), with the first/last labels and the max marked."""
    if not points:
        return Markup('<p class="muted">no data yet</p>')
    pad_l, pad_r, pad_t, pad_b = 40, 12, 14, 28
    w, h = width - pad_l - pad_r, height - pad_t - pad_b
    top = max(v for _, v in points) or 1.0
    n = len(points)

    def xy(i: int, v: float) -> tuple[float, float]:
        x = pad_l + (w * i / (n - 1) if n > 1 else w / 2)
        return x, pad_t + h - h * v / top

    coords = [xy(i, v) for i, (_, v) in enumerate(points)]
    path = " ".join(f"{'M' if i == 0 else 'L'}{x:.1f},{y:.1f}" for i, (x, y) in enumerate(coords))
    area = path + f" L{coords[-1][0]:.1f},{pad_t + h} L{coords[0][0]:.1f},{pad_t + h} Z"
    dots = "".join(
        f'<circle cx="{x:.1f}" cy="{y:.1f}" r="2.5"><title>{escape(lbl)}: {_num(v)}</title></circle>'
        for (x, y), (lbl, v) in zip(coords, points, strict=True)
    )
    labels = (
        f'<text x="{pad_l}" y="{height - 8}" class="axis">{escape(points[0][0])}</text>'
        f'<text x="{pad_l + w}" y="{height - 8}" class="axis" text-anchor="end">{escape(points[-1][0])}</text>'
        f'<text x="{pad_l - 6}" y="{pad_t + 4}" class="axis" text-anchor="end">{_num(top)}</text>'
        f'<text x="{pad_l - 6}" y="{pad_t + h}" class="axis" text-anchor="end">0</text>'
    )
    return Markup(
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'
        f'<line x1="{pad_l}" y1="{pad_t + h}" x2="{pad_l + w}" y2="{pad_t + h}" class="grid"/>'
        f'<path d="{area}" class="area"/><path d="{path}" class="line"/>{dots}{labels}</svg>'
    )


def bar_chart(
    items: list[tuple[str, float]],
    *,
    width: int = 420,
    title: str = "",
    unit: str = "",
    colors: list[str] | None = None,
) -> Markup:
    """Horizontal bars, one row per label."""
    if not items:
        return Markup('<p class="muted">no data yet</p>')
    row, label_w = 24, 110
    top = max(v for _, v in items) or 1.0
    height = row * len(items) + 6
    bars = []
    for i, (lbl, v) in enumerate(items):
        y = 3 + i * row
        bw = (width - label_w - 60) * v / top
        color = colors[i] if colors else _PALETTE[i % len(_PALETTE)]
        bars.append(
            f'<text x="{label_w - 8}" y="{y + 15}" class="axis" text-anchor="end">{escape(lbl)}</text>'
            f'<rect x="{label_w}" y="{y + 3}" width="{bw:.1f}" height="{row - 8}" rx="3" fill="{color}">'
            f"<title>{escape(lbl)}: {_num(v)}{unit}</title></rect>"
            f'<text x="{label_w + bw + 6:.1f}" y="{y + 15}" class="value">{_num(v)}{escape(unit)}</text>'
        )
    return Markup(
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'
        + "".join(bars)
        + "</svg>"
    )


def grouped_bars(
    groups: list[tuple[str, dict[str, float]]], series: list[str], *, width: int = 420, unit: str = ""
) -> Markup:
    """Horizontal bars per group, one bar per series (e.g. p50 and p95 latency per operation)."""
    items, colors = [], []
    for g, vals in groups:
        for i, s in enumerate(series):
            if s in vals:
                items.append((f"{g} {s}", vals[s]))
                colors.append(_PALETTE[i % len(_PALETTE)])
    return bar_chart(items, width=width, unit=unit, colors=colors)
