"""``toposched controller``, assembled: a mode's step, leader election, metrics and health.

``run`` takes the ``KubeApi`` to use (the CLI passes the REST client; tests the in-memory
double), so everything but the client is exercised without a cluster.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass

from toposched.controller.kubeapi import KubeApi
from toposched.controller.leader import LeaderElector, Reconciler, check_timing, lead
from toposched.controller.metrics import ControllerMetrics, Heartbeat, serve
from toposched.controller.modes import Mode
from toposched.controller.podwrites import DEFAULT_CONCURRENCY, check_concurrency
from toposched.controller.sync import SyncController
from toposched.controller.ungater_controller import UngaterController
from toposched.frontends.registry import Registry
from toposched.model import Problem, SpecError
from toposched.scheduler import Clock, Scheduler, SchedulerConfig, SystemClock
from toposched.store import MemoryStore, Store

# Connections the client keeps beside the pod writes': one per informer's watch, the Lease's.
CONNECTIONS_BESIDE = 16


@dataclass(frozen=True, slots=True)
class Options:
    mode: Mode = Mode.UNGATER
    namespace: str | None = None  # the pods and PodGroups watched (None: every namespace)
    topology: str | None = None  # the topology of gangs whose spec names none
    lease_name: str = ""  # "" = the mode's own (toposched-ungater, toposched-sync)
    lease_namespace: str = "toposched-system"
    identity: str = ""  # "" = the host name (the pod's name in a Deployment)
    metrics_host: str = "0.0.0.0"
    metrics_port: int = 8081  # 0 = no endpoint (8081: ``toposched serve`` listens on 8080)
    interval: float = 2.0  # seconds between passes
    write_concurrency: int = DEFAULT_CONCURRENCY  # pod writes of the ungater in flight at once
    lease_duration: int = 15  # client-go's LeaseDuration, RenewDeadline and RetryPeriod
    renew_deadline: float = 10.0
    retry_period: float = 2.0
    scheduler: SchedulerConfig = SchedulerConfig()  # noqa: RUF009 - frozen, so sharing it is safe
    search_clock: Clock | None = None  # bounds searches in time (the command: CpuClock; None: steps)
    registry: Registry | None = None  # the front ends (the command: its own; None: the default ones)


def mode_of(text: str) -> Mode:
    """The mode named on the command line (``SpecError`` naming the choices otherwise)."""
    try:
        return Mode(text)
    except ValueError:
        choices = ", ".join(m.value for m in Mode)
        raise SpecError([Problem("--mode", f"unknown mode {text!r}", f"use one of: {choices}")]) from None


def check(options: Options, store: Store | None) -> None:
    """Refuse options that cannot work, before anything connects."""
    check_timing(options.lease_duration, options.renew_deadline, options.retry_period)
    check_concurrency(options.write_concurrency)
    if options.mode is Mode.SYNC and store is None:
        raise SpecError(
            [Problem("--db", "is missing", "sync mode reads the service's store: give --db PATH")]
        )


def reconciler_factory(
    options: Options, store: Store | None, clock: Clock, metrics: ControllerMetrics
) -> Callable[[KubeApi], Reconciler]:
    """What builds the mode's reconciler each time this replica starts leading, on the API its
    term writes through: the ungater on a fresh MemoryStore (rebuilt from the cluster), the sync
    mode on ``store`` (the service's)."""
    if options.mode is Mode.SYNC:
        if store is None:
            raise SpecError(
                [Problem("--db", "is missing", "sync mode reads the service's store: give --db PATH")]
            )
        service = Scheduler(
            store, clock, options.scheduler, registry=options.registry, search_clock=options.search_clock
        )
        return lambda api: SyncController(api, service)

    def ungater(api: KubeApi) -> Reconciler:
        # No history: the cluster is the record, and ended gangs are forgotten (flat memory).
        scheduler = Scheduler(
            MemoryStore(history=False),
            clock,
            options.scheduler,
            registry=options.registry,
            search_clock=options.search_clock,
        )
        return UngaterController(
            api,
            scheduler,
            clock,
            topology=options.topology,
            namespace=options.namespace,
            metrics=metrics,
            write_concurrency=options.write_concurrency,
            streamed=True,
        )

    return ungater


def run(
    api: KubeApi,
    options: Options,
    stop: threading.Event,
    *,
    store: Store | None = None,
    clock: Clock | None = None,
) -> None:
    """Serve ``/metrics`` and ``/healthz`` and step while this replica holds the lease, until
    ``stop`` is set (then the lease is released). Durations of the lease are timed by the
    monotonic clock, or by ``clock`` when one is given (tests)."""
    timer = clock.now if clock is not None else time.monotonic
    clock = clock or SystemClock()
    metrics = ControllerMetrics()
    make_reconciler = reconciler_factory(options, store, clock, metrics)
    heartbeat = Heartbeat(clock.now, stale_after=max(30.0, 10 * options.interval))
    identity = options.identity or socket.gethostname()
    lease = options.lease_name or options.mode.lease_name
    elector = LeaderElector(
        api,
        lease,
        options.lease_namespace,
        identity,
        clock,
        lease_duration=options.lease_duration,
        renew_deadline=options.renew_deadline,
        retry_period=options.retry_period,
        timer=timer,
    )
    server = (
        serve(metrics, heartbeat, options.metrics_host, options.metrics_port)
        if options.metrics_port
        else None
    )
    try:
        lead(elector, make_reconciler, stop, options.interval, on_tick=heartbeat.beat)
    finally:
        if server is not None:
            server.shutdown()
            server.server_close()
