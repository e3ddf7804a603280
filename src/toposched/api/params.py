"""Path and query parameters bounded to what the store can hold: SQLite integers are 64-bit, so
a larger id or sequence number is refused as a 422 naming the parameter instead of failing in
the store."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated
from urllib.parse import urlencode

from fastapi import Path, Query

MAX_INT = 2**63 - 1

WorkloadId = Annotated[int, Path(ge=0, le=MAX_INT, description="A workload id")]
WorkloadFilter = Annotated[int | None, Query(ge=0, le=MAX_INT, description="Only this workload's")]
After = Annotated[
    int, Query(ge=0, le=MAX_INT, description="Only workloads with a larger id (a page's cursor)")
]
Since = Annotated[int, Query(ge=0, le=MAX_INT, description="Only events with a larger seq")]
Limit = Annotated[int | None, Query(ge=1, le=MAX_INT, description="At most this many (capped by the server)")]


def plain_id(text: str) -> int | None:
    """``text`` as the ``WorkloadId`` it gives, when it is a plain decimal in range (ASCII digits,
    no sign, no leading zero); None for anything else, which FastAPI must judge."""
    if not (text.isascii() and text.isdigit()) or (text.startswith("0") and text != "0"):
        return None
    if len(text) > len(str(MAX_INT)):
        return None
    value = int(text)
    return value if value <= MAX_INT else None


def next_link(path: str, query: Mapping[str, object]) -> str:
    """A ``Link`` header value pointing at the next page (parameters that are None are left out)."""
    pairs = [(k, v) for k, v in query.items() if v is not None]
    flat = [(k, str(x)) for k, v in pairs for x in (v if isinstance(v, list) else [v])]
    return f'<{path}?{urlencode(flat)}>; rel="next"'
