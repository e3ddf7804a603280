"""Leader election through a ``coordination.k8s.io`` Lease, as client-go's leaderelection does it,
so two replicas never both act, and the fence each write of the leader passes.

A thread ``tick``s every ``retry_period`` (client-go's RetryPeriod), apart from the work, so a
long pass never delays a renewal. A tick acquires or renews the lease. This replica leads while
its last successful renewal *started* at most ``renew_deadline`` ago, timed by a monotonic timer;
another replica takes the lease over only once the record it observed has not changed for the
lease's duration, timed by its own timer from when it saw the change (never by the holder's
timestamps, so clock skew between hosts does not matter). With ``renew_deadline <
lease_duration`` the old leader has stopped before anyone else can start. A replica that stopped
leading does not renew its own record again: like any candidate, it waits until the record
expires, then acquires it afresh, so a replica whose renewals are too slow to count cannot keep
the lease from the others. Each acquisition begins a new *term*.

Fencing: the reconciler of a term writes through ``FencedKubeApi`` with ``fence(term)``. Every
write is refused once the term ended or its renew deadline passed, and otherwise carries a
server-side deadline that ends halfway between the renew deadline and the earliest moment
another replica can take over, so a write the API server is slow to apply fails (504) rather
than land under the next leader. The reconcilers' writes are also conditional on what they read
(resourceVersion preconditions), so a write checked just before the process was paused fails
with a conflict once the next leader changed the object. ``release`` hands the lease over at once
on a clean shutdown.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Protocol, runtime_checkable

from toposched.controller.fencing import Fence, FencedKubeApi, NotLeaderError
from toposched.controller.kubeapi import LEASES, ApiConflictError, ApiNotFoundError, KubeApi, KubeApiError
from toposched.model import Problem, SpecError, ToposchedError
from toposched.scheduler import Clock
from toposched.wire.lease import LeaseRecord, lease_object, parse_lease

log = logging.getLogger(__name__)

JITTER = 1.2  # client-go's JitterFactor: the renew deadline must leave room for a late retry


def check_timing(lease_duration: float, renew_deadline: float, retry_period: float) -> None:
    """client-go's rules: the leader gives up before its lease can pass to another replica, and
    tries to renew more than once before it gives up."""
    problems = []
    if not 0 < renew_deadline < lease_duration:
        problems.append(
            Problem(
                "--renew-deadline",
                f"{renew_deadline:g}s with a lease of {lease_duration:g}s",
                "renew within the lease: 0 < --renew-deadline < --lease-duration",
            )
        )
    if not 0 < JITTER * retry_period < renew_deadline:
        problems.append(
            Problem(
                "--retry-period",
                f"{retry_period:g}s with a renew deadline of {renew_deadline:g}s",
                f"retry before the deadline: 0 < {JITTER:g} x --retry-period < --renew-deadline",
            )
        )
    if problems:
        raise SpecError(problems)


@dataclass(slots=True)
class LeaderElector:
    """``clock`` stamps the Lease (wall time); ``timer`` measures every duration (monotonic;
    the clock's own time when not given, as tests drive a manual clock)."""

    api: KubeApi
    name: str
    namespace: str
    identity: str
    clock: Clock
    lease_duration: int = 15
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    timer: Callable[[], float] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, init=False)
    _observed: LeaseRecord | None = field(default=None, init=False)
    _observed_at: float = field(default=0.0, init=False)
    _renewed_at: float | None = field(default=None, init=False)  # when our last renewal started
    _term: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        check_timing(self.lease_duration, self.renew_deadline, self.retry_period)

    def _now(self) -> float:
        return (self.timer or self.clock.now)()

    def leading(self) -> bool:
        """Whether this replica may act now."""
        return self.current_term() is not None

    def current_term(self) -> int | None:
        """The term this replica leads in, None while it does not lead."""
        with self._lock:
            fresh = self._renewed_at is not None and self._now() - self._renewed_at <= self.renew_deadline
            return self._term if fresh else None

    def fence(self, term: int) -> Fence:
        """The fence of the writes made in ``term``."""
        return Fence(lambda: self._window(term))

    def _window(self, term: int) -> float:
        with self._lock:
            now, renewed = self._now(), self._renewed_at
            if renewed is None or term != self._term or now - renewed > self.renew_deadline:
                raise NotLeaderError(
                    f"{self.identity} no longer holds the lease {self.namespace}/{self.name}: "
                    "it writes nothing until it leads again"
                )
            return renewed + (self.renew_deadline + self.lease_duration) / 2 - now

    def tick(self) -> bool:
        """Acquire or renew the lease; whether this replica may act now."""
        start = self._now()
        try:
            self._try(start, self.leading())
        except KubeApiError as exc:  # an unreachable server: keep leading until the deadline
            log.warning("lease %s/%s not renewed: %s", self.namespace, self.name, exc)
        return self.leading()

    def release(self) -> None:
        """Give the lease up (holder cleared, 1 s duration) so another replica takes over now."""
        if not self.leading():
            return
        with self._lock:
            self._renewed_at, observed = None, self._observed
        if observed is None:
            return
        gone = replace(observed, holder="", duration_seconds=1, renewed_at=self.clock.now())
        try:
            current = self.api.get(LEASES, self.name, self.namespace)
            if parse_lease(current).holder == self.identity:
                version = str(current["metadata"]["resourceVersion"])
                self.api.replace(
                    LEASES, lease_object(self.name, self.namespace, gone, resource_version=version)
                )
        except KubeApiError as exc:
            log.warning("lease %s/%s not released: %s", self.namespace, self.name, exc)

    def _try(self, start: float, leading: bool) -> None:
        wall = self.clock.now()
        try:
            current = self.api.get(LEASES, self.name, self.namespace)
        except ApiNotFoundError:
            mine = LeaseRecord(self.identity, self.lease_duration, wall, wall)
            try:
                self.api.create(LEASES, lease_object(self.name, self.namespace, mine))
            except ApiConflictError:
                return  # another replica created it first
            self._won(mine, start, acquired=True)
            return
        record = parse_lease(current)
        with self._lock:
            if record != self._observed:
                self._observed, self._observed_at = record, self._now()
            expires = self._observed_at + record.duration_seconds
        renewing = leading and record.holder == self.identity
        if not renewing and record.holder and expires > self._now():
            with self._lock:
                self._renewed_at = None  # another replica leads, or our term ended: wait it out
            return
        if renewing:
            mine = replace(record, duration_seconds=self.lease_duration, renewed_at=wall)
        else:
            mine = LeaseRecord(self.identity, self.lease_duration, wall, wall, record.transitions + 1)
        version = str(current["metadata"]["resourceVersion"])
        try:
            self.api.replace(LEASES, lease_object(self.name, self.namespace, mine, resource_version=version))
        except ApiConflictError:
            return  # changed since read: the next tick reads it again
        self._won(mine, start, acquired=not renewing)

    def _won(self, mine: LeaseRecord, start: float, *, acquired: bool) -> None:
        """Our write of the lease went through: we lead from ``start`` (when the tick began)."""
        with self._lock:
            self._observed, self._observed_at = mine, self._now()
            if acquired:
                self._term += 1
            self._renewed_at = start


class Reconciler(Protocol):
    """What a mode runs while leading: one pass at a time, and ``close`` when it stops leading."""

    def step(self) -> object: ...

    def close(self) -> None: ...


@runtime_checkable
class Waiting(Protocol):
    """A reconciler that knows when its next pass is due (news from its watches), at most
    ``seconds`` from now; others pass once per interval."""

    def wait(self, seconds: float, stop: threading.Event) -> None: ...


def lead(
    elector: LeaderElector,
    make_reconciler: Callable[[KubeApi], Reconciler],
    stop: threading.Event,
    interval: float = 2.0,
    *,
    on_tick: Callable[[], None] = lambda: None,
) -> None:
    """Renew the lease on a thread of its own and, while leading, step once per ``interval``
    (or sooner, when the reconciler's ``wait`` says its next pass is due).
    Each term starts from a fresh reconciler (``make_reconciler``), rebuilt from the cluster,
    since another replica may have acted meanwhile, writing through the term's fence; the old one
    is closed. The lease is released on stop."""
    done = threading.Event()
    renewer = threading.Thread(target=_renew, args=(elector, done), name="toposched-lease", daemon=True)
    renewer.start()
    reconciler: Reconciler | None = None
    term: int | None = None
    try:
        while not stop.is_set():
            current = elector.current_term()
            if current != term and reconciler is not None:
                reconciler.close()
                reconciler = None
            term = current
            if current is not None:
                if reconciler is None:
                    reconciler = make_reconciler(FencedKubeApi(elector.api, elector.fence(current)))
                _step(reconciler)
            on_tick()
            if isinstance(reconciler, Waiting):
                reconciler.wait(interval, stop)
            else:
                stop.wait(interval)
    finally:
        done.set()
        renewer.join()
        if reconciler is not None:
            reconciler.close()
        elector.release()


def _renew(elector: LeaderElector, done: threading.Event) -> None:
    while True:
        try:
            elector.tick()
        except Exception:  # a bug must not end the renewals silently: leadership would just lapse
            log.exception("lease renewal failed")
        if done.wait(elector.retry_period):
            return


def _step(reconciler: Reconciler) -> None:
    """One pass; a pass that fails is logged (one line when the failure is an expected one) and
    the next pass starts over."""
    try:
        reconciler.step()
    except NotLeaderError as exc:
        log.warning("%s", exc)
    except ToposchedError as exc:
        log.warning("controller pass failed: %s", exc)
    except Exception:  # a controller loop must survive a bad pass, and show what was unexpected
        log.exception("controller pass failed unexpectedly; the next pass starts over")
