"""Path and query parameters bounded to what the store can hold: SQLite integers are 64-bit, so
a larger id or sequence number is refused as a 422 naming the parameter instead of failing in
the store."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

MAX_INT = 2**63 - 1

WorkloadId = Annotated[int, Path(ge=0, le=MAX_INT, description="A workload id")]
WorkloadFilter = Annotated[int | None, Query(ge=0, le=MAX_INT, description="Only this workload's")]
Since = Annotated[int, Query(ge=0, le=MAX_INT, description="Only events with a larger seq")]
Limit = Annotated[int | None, Query(ge=1, le=MAX_INT, description="At most this many (capped by the server)")]
