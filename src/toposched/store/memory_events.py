"""The event log of ``MemoryStore`` (numbered always, kept only with ``history``)."""

from __future__ import annotations

from toposched.store.memory_records import MemoryRecords, copy_event
from toposched.store.records import EventRecord


class MemoryEvents(MemoryRecords):
    """The event methods of the ``Store`` protocol, over ``MemoryStore``'s state and lock."""

    def append_event(self, event: EventRecord) -> EventRecord:
        """Append one event; returns it with its assigned ``seq``."""
        with self._changing():
            if event.workload is not None:
                self._get(event.workload)
            entry = self._event(event, event.workload)
            self._log(entry)
            return copy_event(entry)

    def list_events(
        self,
        since: int = 0,
        workload: int | None = None,
        limit: int | None = None,
        *,
        owner: str | None = None,
    ) -> list[EventRecord]:
        """Events with ``seq > since`` in order, optionally for one workload or one owner's."""
        with self._lock:
            mine = None if owner is None else {w.id for w in self._workloads.values() if w.owner == owner}
            found = [
                e
                for e in self._events
                if e.seq > since
                and (workload is None or e.workload == workload)
                and (mine is None or e.workload in mine)
            ]
        return [copy_event(e) for e in found[:limit]]
