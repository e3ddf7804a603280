"""The web page's files (``index.html``, ``app.js``, ``app.css``, ``queues.js`` in
``api/static``), shipped in the wheel as package data: no build step and no external assets, so
the page works offline."""

from __future__ import annotations

import functools
from importlib import resources

from toposched.model import NotFoundError

MEDIA_TYPES = {
    "index.html": "text/html; charset=utf-8",
    "app.js": "text/javascript; charset=utf-8",
    "app.css": "text/css; charset=utf-8",
    "queues.js": "text/javascript; charset=utf-8",
}


@functools.cache
def asset(name: str) -> bytes:
    """The bytes of one of the page's files (NotFoundError for any other name)."""
    if name not in MEDIA_TYPES:
        raise NotFoundError("page file", name, f"the page has {', '.join(sorted(MEDIA_TYPES))}")
    return resources.files("toposched.api").joinpath("static", name).read_bytes()
