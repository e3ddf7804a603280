"""``WorkloadVerbs``: submit, read and cancel a workload as the service does them, shared by the
FastAPI routes and ``HotRoutes`` (``api.hot``), so both ways in have one behaviour.

Each verb runs its blocking part on one of the app's ``Offload`` pools and returns the answer's
JSON. Compiling is CPU work: submissions get their own small pool, so reads and cancels never
queue behind a burst of them. Storing is mostly waiting for the group commit (one transaction for
every submission waiting meanwhile) or the write lock, on a separate, larger pool: waiting
threads cost no CPU, and a compile thread never sits idle behind the disk, which would cap each
batch at the compile pool's size. Reads run every store call off the event loop too: each SQLite
call releases the GIL, and winning it back on the event loop can take a switch interval (5 ms)
per call while other threads compile specs, stalling every connection.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from toposched.api.auth import User
from toposched.api.bodies import SubmitFields, workload_json
from toposched.api.offload import Offload
from toposched.intake.parse import parse_documents
from toposched.model import NotFoundError, PermissionDeniedError
from toposched.scheduler import Scheduler, Submission
from toposched.store import WorkloadRecord


@dataclass(frozen=True, slots=True)
class WorkloadVerbs:
    """The hot workload verbs over one scheduler and the app's pools."""

    scheduler: Scheduler
    compiling: Offload  # a few threads: parsing and compiling specs holds the GIL
    waiting: Offload  # many threads, mostly asleep until their group commit or the write lock
    reading: Offload  # everything else, so a read never queues behind a burst of submissions

    async def submit(self, owner: str, fields: SubmitFields) -> dict[str, Any]:
        """Store a workload as pending; the answer comes after the store commit (durable)."""
        prepare = functools.partial(self._prepare, owner, fields)
        record = await self.compiling.run_then(prepare, self.waiting, self.scheduler.commit)
        return workload_json(record, with_spec=False)

    async def read(self, user: User, workload_id: int) -> dict[str, Any]:
        """One workload with its spec, when ``user`` may see it."""
        record = await self.reading.run(self.scheduler.get, workload_id)
        return workload_json(owned(record, user), with_spec=True)

    async def cancel(self, user: User, workload_id: int) -> dict[str, Any]:
        """Cancel a workload ``user`` may see, releasing any capacity it holds."""
        return workload_json(await self.waiting.run(self._cancel, user, workload_id))

    def _prepare(self, owner: str, fields: SubmitFields) -> Submission:
        """Parse the spec (the service's edge: bounded, once) and compile it."""
        documents = parse_documents(fields.spec, source="spec")
        return self.scheduler.prepare(
            documents,
            owner=owner,
            priority=fields.priority,
            topology=fields.topology,
            kind=fields.kind,
            pool=fields.pool,
        )

    def _cancel(self, user: User, workload_id: int) -> WorkloadRecord:
        try:
            return self.scheduler.cancel(workload_id, actor=user.name, admin=user.is_admin)
        except PermissionDeniedError:
            # Refused before any change, as another user's workload: not found, as ``owned`` says.
            raise NotFoundError("workload", str(workload_id)) from None


def owned(record: WorkloadRecord, user: User) -> WorkloadRecord:
    """The record, when ``user`` may see it (its owner or an admin). Another user's workload is
    not found, exactly like a missing one, so ids cannot be probed."""
    if not user.is_admin and record.owner != user.name:
        raise NotFoundError("workload", str(record.id))
    return record
