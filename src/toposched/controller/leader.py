"""Leader election through a ``coordination.k8s.io`` Lease, as client-go's leaderelection does it,
so two replicas never both act.

Each ``tick`` acquires or renews the lease. A replica acts only while its last successful renewal
is younger than ``renew_deadline``; another replica takes the lease over only when the record it
observed has not changed for ``lease_seconds`` (timed by its own clock from when it saw the
change, never by the holder's timestamps, so clock skew between hosts does not matter). With
``renew_deadline < lease_seconds`` the old leader has stopped before anyone else can start.
``release`` hands the lease over at once on a clean shutdown.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol

from toposched.controller.kubeapi import LEASES, ApiConflictError, ApiNotFoundError, KubeApi, KubeApiError
from toposched.model import Problem, SpecError
from toposched.scheduler import Clock
from toposched.wire.lease import LeaseRecord, lease_object, parse_lease

log = logging.getLogger(__name__)


@dataclass(slots=True)
class LeaderElector:
    api: KubeApi
    name: str
    namespace: str
    identity: str
    clock: Clock
    lease_seconds: int = 15
    renew_deadline: float = 10.0
    _observed: LeaseRecord | None = field(default=None, init=False)
    _observed_at: float = field(default=0.0, init=False)
    _renewed_at: float | None = field(default=None, init=False)  # our last successful renewal

    def __post_init__(self) -> None:
        if not 0 < self.renew_deadline < self.lease_seconds:
            raise SpecError(
                [
                    Problem(
                        "renew_deadline",
                        f"{self.renew_deadline:g}s with a lease of {self.lease_seconds}s",
                        "renew within the lease: 0 < renew deadline < lease duration",
                    )
                ]
            )

    def leading(self) -> bool:
        """Whether this replica may act now."""
        return self._renewed_at is not None and self.clock.now() - self._renewed_at <= self.renew_deadline

    def tick(self) -> bool:
        """Acquire or renew the lease; whether this replica may act until the next tick."""
        now = self.clock.now()
        try:
            if self._try(now):
                self._renewed_at = now
        except KubeApiError as exc:  # an unreachable server: keep leading until the deadline
            log.warning("lease %s/%s not renewed: %s", self.namespace, self.name, exc)
        return self.leading()

    def release(self) -> None:
        """Give the lease up (holder cleared, 1 s duration) so another replica takes over now."""
        if not self.leading() or self._observed is None:
            return
        self._renewed_at = None
        gone = replace(self._observed, holder="", duration_seconds=1, renewed_at=self.clock.now())
        try:
            current = self.api.get(LEASES, self.name, self.namespace)
            if parse_lease(current).holder == self.identity:
                version = str(current["metadata"]["resourceVersion"])
                self.api.replace(
                    LEASES, lease_object(self.name, self.namespace, gone, resource_version=version)
                )
        except KubeApiError as exc:
            log.warning("lease %s/%s not released: %s", self.namespace, self.name, exc)

    def _try(self, now: float) -> bool:
        try:
            current = self.api.get(LEASES, self.name, self.namespace)
        except ApiNotFoundError:
            mine = LeaseRecord(self.identity, self.lease_seconds, now, now)
            try:
                self.api.create(LEASES, lease_object(self.name, self.namespace, mine))
            except ApiConflictError:
                return False  # another replica created it first
            self._observe(mine, now)
            return True
        record = parse_lease(current)
        if record != self._observed:
            self._observe(record, now)
        held_by_other = record.holder not in ("", self.identity)
        if held_by_other and self._observed_at + record.duration_seconds > now:
            self._renewed_at = None  # someone else leads: stop at once
            return False
        if record.holder == self.identity:
            mine = replace(record, duration_seconds=self.lease_seconds, renewed_at=now)
        else:
            mine = LeaseRecord(self.identity, self.lease_seconds, now, now, record.transitions + 1)
        version = str(current["metadata"]["resourceVersion"])
        try:
            self.api.replace(LEASES, lease_object(self.name, self.namespace, mine, resource_version=version))
        except ApiConflictError:
            return False  # changed since read: the next tick reads it again
        self._observe(mine, now)
        return True

    def _observe(self, record: LeaseRecord, now: float) -> None:
        self._observed, self._observed_at = record, now


class Reconciler(Protocol):
    """What a mode runs while leading: one pass at a time, and ``close`` when it stops leading."""

    def step(self) -> object: ...

    def close(self) -> None: ...


def lead(
    elector: LeaderElector,
    make_reconciler: Callable[[], Reconciler],
    stop: threading.Event,
    retry_period: float = 2.0,
    *,
    on_tick: Callable[[], None] = lambda: None,
) -> None:
    """Tick once per ``retry_period`` and, while leading, step. Each time this replica becomes
    the leader it starts from a fresh reconciler (``make_reconciler``), rebuilt from the cluster,
    since another replica may have acted meanwhile; the old one is closed. The lease is released
    on stop."""
    reconciler: Reconciler | None = None
    try:
        while not stop.is_set():
            if elector.tick():
                reconciler = reconciler or make_reconciler()
                try:
                    reconciler.step()
                except Exception:  # a controller loop must survive a bad pass; the next one retries
                    log.exception("controller step failed; retrying")
            elif reconciler is not None:
                reconciler.close()
                reconciler = None
            on_tick()
            stop.wait(retry_period)
    finally:
        if reconciler is not None:
            reconciler.close()
        elector.release()
