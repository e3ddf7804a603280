"""The parts of the ``Store`` protocol an administrator manages: OSMO pools, API tokens and
per-user quotas."""

from __future__ import annotations

from typing import Protocol

from toposched.model import Quota, SchedulingQueue, Usage
from toposched.store.records import PoolRecord, TokenRecord


class PoolStore(Protocol):
    """OSMO pools by name."""

    def put_pool(self, pool: PoolRecord) -> None: ...

    def get_pool(self, name: str) -> PoolRecord: ...

    def list_pools(self) -> list[PoolRecord]: ...

    def delete_pool(self, name: str) -> None:
        """Delete a pool; ConflictError while a pending, admitted or running workload uses it."""
        ...


class TokenStore(Protocol):
    """API tokens, stored by the SHA-256 of their secret."""

    def add_token(self, token: TokenRecord) -> None:
        """Store a new token; ConflictError when its name or its digest is already stored."""
        ...

    def list_tokens(self) -> list[TokenRecord]:
        """Every stored token, sorted by name."""
        ...

    def delete_token(self, name: str) -> TokenRecord:
        """Delete a token by name and return it; NotFoundError when there is none."""
        ...


class QuotaStore(Protocol):
    """Per-user quotas of pending work."""

    def put_quota(self, user: str, quota: Quota) -> None:
        """Give ``user`` a quota of their own, in place of the default ``submit_workload`` gets."""
        ...

    def delete_quota(self, user: str) -> None:
        """Drop ``user``'s own quota; NotFoundError when they have none."""
        ...

    def list_quotas(self) -> dict[str, Quota]:
        """Every user's own quota, by user name."""
        ...

    def pending_usage(self, owner: str) -> Usage:
        """``owner``'s pending work: workloads, their pods and the bytes of their stored specs."""
        ...


class QueueStore(Protocol):
    """Scheduling queues: quotas, their tree, weights and preemption settings."""

    def put_queue(self, queue: SchedulingQueue) -> None:
        """Insert or replace a queue by name; SpecError (nothing written) when the stored queues
        would no longer form a tree (``QueueTree``)."""
        ...

    def get_queue(self, name: str) -> SchedulingQueue:
        """One stored queue; NotFoundError when there is none of that name."""
        ...

    def list_queues(self) -> list[SchedulingQueue]:
        """Every stored queue, sorted by name (``default`` only when it was configured)."""
        ...

    def delete_queue(self, name: str) -> None:
        """Delete a queue; NotFoundError when none, SpecError while another names it as parent."""
        ...
