"""The scheduling queues of ``MemoryStore``. Each write is checked against the others as a tree
(``QueueTree``) under the store's lock, so the stored queues always form one."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager

from toposched.model import NotFoundError, QueueTree, SchedulingQueue
from toposched.store import rules


class MemoryQueues:
    """The queue methods of the ``Store`` protocol, over ``MemoryStore``'s state and lock."""

    _lock: threading.RLock
    _changing: Callable[[], AbstractContextManager[None]]
    _scheduling_queues: dict[str, SchedulingQueue]

    def put_queue(self, queue: SchedulingQueue) -> None:
        """Insert or replace a queue by name; SpecError (nothing written) when the queues would
        no longer form a tree (unknown parent, a cycle, a LocalQueue listed twice)."""
        with self._changing():
            QueueTree.of(self._scheduling_queues.values()).with_queue(queue)
            self._scheduling_queues[queue.name] = queue

    def get_queue(self, name: str) -> SchedulingQueue:
        """One stored queue by name."""
        with self._lock:
            found = self._scheduling_queues.get(name)
            if found is None:
                raise NotFoundError(
                    "queue", name, f"known queues: {rules.known_names(self._scheduling_queues)}"
                )
            return found

    def list_queues(self) -> list[SchedulingQueue]:
        """Every stored queue, sorted by name."""
        with self._lock:
            return [self._scheduling_queues[name] for name in sorted(self._scheduling_queues)]

    def delete_queue(self, name: str) -> None:
        """Delete a queue; SpecError while another queue names it as its parent."""
        with self._changing():
            if name not in self._scheduling_queues:
                raise NotFoundError(
                    "queue", name, f"known queues: {rules.known_names(self._scheduling_queues)}"
                )
            QueueTree.of(self._scheduling_queues.values()).without(name)
            del self._scheduling_queues[name]
