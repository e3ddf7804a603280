"""``Explanations``: ``GET /v1/workloads/{id}/explanation`` as the service answers it.

An explanation costs searches (bounded by ``SchedulerConfig.explain_seconds``), so it runs on
its own small pool, a ``Gate`` refuses a user's second one while the first runs (and any beyond
the pool's size), and the answer is kept per workload and viewer until the store's version moves
on (a cluster import, a node change, any submission, admission or release): asking again about
an unchanged cluster and queue costs a version check."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toposched.api.auth import User
from toposched.api.gate import Gate
from toposched.api.offload import Offload
from toposched.api.verbs import owned
from toposched.api.versioned import VersionedCache
from toposched.emit.result import explanation_to_json
from toposched.scheduler import Scheduler

ExplanationKey = tuple[int, str | None]  # the workload, and the viewer (None: an admin sees all)


@dataclass(frozen=True, slots=True)
class Explanations:
    """The explanation route's work over one scheduler."""

    scheduler: Scheduler
    gate: Gate
    reading: Offload  # the owner check and the cache lookup (store reads)
    explaining: Offload  # the explanations themselves
    kept: VersionedCache[ExplanationKey, dict[str, Any]]

    async def explain(self, user: User, workload_id: int) -> dict[str, Any]:
        """The explanation's JSON (404 for another user's workload, 409 when not pending, 429
        when the caller's or the service's limit of explanations at once is reached)."""
        viewer = None if user.is_admin else user.name
        version, kept = await self.reading.run(self._kept, user, workload_id, viewer)
        if kept is not None:
            return kept
        with self.gate.enter(user.name):
            return await self.explaining.run(self._explain, workload_id, viewer, version)

    def _kept(self, user: User, workload_id: int, viewer: str | None) -> tuple[int, dict[str, Any] | None]:
        # The version is read first: a change landing while the answer is built makes the next
        # request build it again, never keeps a stale answer.
        version = self.scheduler.store.version()
        owned(self.scheduler.get(workload_id), user)  # 404 for another user's workload, like a missing one
        return version, self.kept.get((workload_id, viewer), version)

    def _explain(self, workload_id: int, viewer: str | None, version: int) -> dict[str, Any]:
        document = explanation_to_json(self.scheduler.explain(workload_id, viewer=viewer))
        self.kept.put((workload_id, viewer), version, document)
        return document
