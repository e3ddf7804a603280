"""The per-user quotas of ``MemoryStore``; checking one is part of storing a workload
(``MemoryStore.submit_workload``)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextlib import AbstractContextManager

from toposched.model import NotFoundError, Quota, Usage
from toposched.store import rules
from toposched.store.records import WorkloadRecord, WorkloadState


class MemoryQuotas:
    """The quota methods of the ``Store`` protocol, over ``MemoryStore``'s state and lock."""

    _lock: threading.RLock
    _changing: Callable[[], AbstractContextManager[None]]
    _quotas: dict[str, Quota]
    _workloads: dict[int, WorkloadRecord]
    _by_state: dict[WorkloadState, set[int]]

    def put_quota(self, user: str, quota: Quota) -> None:
        """Give ``user`` a quota of their own (replacing the one they had)."""
        with self._changing():
            self._quotas[user] = quota

    def delete_quota(self, user: str) -> None:
        """Drop ``user``'s own quota; NotFoundError when none."""
        with self._changing():
            if self._quotas.pop(user, None) is None:
                raise NotFoundError("quota", user, "the user has no quota of their own")

    def list_quotas(self) -> dict[str, Quota]:
        """Every user's own quota, by user name."""
        with self._lock:
            return dict(sorted(self._quotas.items()))

    def pending_usage(self, owner: str) -> Usage:
        """``owner``'s pending work: workloads, their pods and the bytes of their specs."""
        with self._lock:
            pending = (self._workloads[i] for i in self._by_state[WorkloadState.PENDING])
            return sum((rules.usage_of(r) for r in pending if r.owner == owner), Usage())
