"""Adapters that plug memscribe into agent frameworks (each needs its framework installed, e.g.
``pip install 'memscribe[langgraph]'`` for :mod:`memscribe.integrations.langgraph`)."""
