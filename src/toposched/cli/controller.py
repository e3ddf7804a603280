"""``toposched controller``: run next to KAI or Kueue inside a cluster (see the README)."""

from __future__ import annotations

import logging
import signal
import threading
from types import FrameType
from typing import Annotated

import typer

from toposched.cli.errors import ExitCode, error_lines
from toposched.model import ToposchedError


def controller_command(
    mode: Annotated[
        str,
        typer.Option(
            "--mode",
            metavar="MODE",
            help="ungater: place whole gangs of gated pods and ungate them; "
            "sync: keep KAI Topology/PodGroup and Grove ClusterTopology objects in the cluster.",
        ),
    ] = "ungater",
    kubeconfig: Annotated[
        str | None,
        typer.Option(
            "--kubeconfig",
            metavar="PATH",
            help="Kubeconfig file; default as kubectl: $KUBECONFIG (files merged), else ~/.kube/config, "
            "else the pod's service account.",
        ),
    ] = None,
    context: Annotated[
        str | None, typer.Option("--context", help="Kubeconfig context (default: the current one).")
    ] = None,
    namespace: Annotated[
        str | None, typer.Option("--namespace", help="Watch pods and PodGroups of one namespace only.")
    ] = None,
    topology: Annotated[
        str | None, typer.Option("--topology", help="Topology of gangs whose spec names none.")
    ] = None,
    db: Annotated[
        str | None, typer.Option("--db", metavar="PATH", help="sync: the service's SQLite store.")
    ] = None,
    lease_namespace: Annotated[
        str, typer.Option("--lease-namespace", help="Namespace of the leader-election Lease.")
    ] = "toposched-system",
    lease_name: Annotated[
        str,
        typer.Option("--lease-name", help="The leader-election Lease; default: toposched-MODE."),
    ] = "",
    identity: Annotated[
        str, typer.Option("--identity", help="This replica's name in the Lease; default: the host name.")
    ] = "",
    metrics_port: Annotated[
        int, typer.Option("--metrics-port", help="Port of /metrics and /healthz; 0 turns them off.")
    ] = 8081,
    interval: Annotated[
        float,
        typer.Option(
            "--interval", help="Most seconds between two passes (ungater: sooner on news from a watch)."
        ),
    ] = 2.0,
    write_concurrency: Annotated[
        int,
        typer.Option("--write-concurrency", help="Pod writes in flight at once (ungater mode), 1 to 256."),
    ] = 16,
    lease_duration: Annotated[
        int,
        typer.Option(
            "--lease-duration", help="Seconds another replica waits for a silent leader before taking over."
        ),
    ] = 15,
    renew_deadline: Annotated[
        float,
        typer.Option(
            "--renew-deadline",
            help="Seconds the leader acts without a successful renewal; below --lease-duration.",
        ),
    ] = 10.0,
    retry_period: Annotated[
        float,
        typer.Option("--retry-period", help="Seconds between two attempts to renew or acquire the lease."),
    ] = 2.0,
    node_grace: Annotated[
        float,
        typer.Option("--node-grace", help="Seconds a node may be NotReady before its gangs are repaired."),
    ] = 30.0,
) -> None:
    """Watch the cluster and act on it while this replica holds the leader Lease."""
    from toposched.cli.workloads import REGISTRY
    from toposched.controller.app import CONNECTIONS_BESIDE, Options, check, mode_of, run
    from toposched.scheduler import CpuClock, SchedulerConfig
    from toposched.store import SqliteStore

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    stop = threading.Event()

    def stop_on(signum: int, frame: FrameType | None) -> None:
        stop.set()

    for name in (signal.SIGINT, signal.SIGTERM):
        signal.signal(name, stop_on)
    store = None
    try:
        options = Options(
            mode=mode_of(mode),
            namespace=namespace,
            topology=topology,
            lease_name=lease_name,
            lease_namespace=lease_namespace,
            identity=identity,
            metrics_port=metrics_port,
            interval=interval,
            write_concurrency=write_concurrency,
            lease_duration=lease_duration,
            renew_deadline=renew_deadline,
            retry_period=retry_period,
            scheduler=SchedulerConfig(node_grace_seconds=node_grace),
            search_clock=CpuClock(),
            registry=REGISTRY,  # the front ends every command compiles with
        )
        store = SqliteStore(db) if db is not None else None
        check(options, store)
        from toposched.controller.rest import connect

        api = connect(kubeconfig, context=context, connections=options.write_concurrency + CONNECTIONS_BESIDE)
        run(api, options, stop, store=store)
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(ExitCode.INVALID) from None
    finally:
        if store is not None:
            store.close()
