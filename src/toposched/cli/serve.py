"""``toposched serve``: the HTTP service on an embedded SQLite store; nothing else to start."""

from __future__ import annotations

import os
import signal
import socket
from pathlib import Path
from types import FrameType
from typing import TYPE_CHECKING, Annotated

import typer
import yaml

from toposched.cli.errors import ExitCode, error_lines, warning_lines
from toposched.engine import DEFAULT_ROUND_SECONDS
from toposched.model import (
    MAX_PODS_PER_GANG,
    MAX_RESERVATION_DEPTH,
    Quota,
    Search,
    ToposchedError,
    listen_error,
)

DEFAULT_QUOTA = Quota()

if TYPE_CHECKING:
    from toposched.api import AuthConfig, User


def serve_command(
    db: Annotated[str, typer.Option("--db", metavar="PATH", help="SQLite file (created if missing).")] = (
        "./toposched.db"
    ),
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8080,
    tokens: Annotated[
        str | None,
        typer.Option(
            "--tokens",
            metavar="FILE",
            help="Tokens file (tokens: [{sha256 or token, user, role, name}], mode 600). "
            "Default: a dev file next to the DB.",
        ),
    ] = None,
    cluster: Annotated[
        str | None,
        typer.Option(
            "--cluster", metavar="FILE", help="Import nodes and topologies from a kubectl dump at start."
        ),
    ] = None,
    backoff_max: Annotated[
        float,
        typer.Option(
            "--backoff-max", help="Longest wait (seconds) before retrying a workload that did not fit."
        ),
    ] = 60.0,
    max_pods: Annotated[
        int,
        typer.Option("--max-pods", min=1, help="Pods one workload may have; larger submissions are refused."),
    ] = MAX_PODS_PER_GANG,
    read_timeout: Annotated[
        float,
        typer.Option("--read-timeout", help="Seconds a client has to send a whole request (head and body)."),
    ] = 30.0,
    max_connections: Annotated[
        int,
        typer.Option(
            "--max-connections",
            help="Open connections at most; beyond it the oldest idle or still-reading one is closed.",
        ),
    ] = 512,
    interval: Annotated[
        float,
        typer.Option(
            "--interval",
            help="Longest pause between scheduling cycles; submissions, cancels and node changes "
            "start a cycle at once.",
        ),
    ] = 0.5,
    search: Annotated[
        str,
        typer.Option(
            "--search",
            metavar="MODE",
            help="complete: each upstream scheduler's choice, else an exact bounded search that places "
            "any gang that fits; faithful: the upstream choice only.",
        ),
    ] = Search.COMPLETE.value,
    round_seconds: Annotated[
        float,
        typer.Option(
            "--round-seconds",
            help="CPU seconds the exact searches of one scheduling cycle take together, shared among "
            "the gangs the upstream choice refuses; a search not done goes on in the next cycle.",
        ),
    ] = DEFAULT_ROUND_SECONDS,
    explain_seconds: Annotated[
        float,
        typer.Option(
            "--explain-seconds",
            help="Longest one explanation (GET /v1/workloads/{id}/explanation) may search; "
            "the suggestions it has not tried by then are listed as untried.",
        ),
    ] = 5.0,
    quota_workloads: Annotated[
        int,
        typer.Option(
            "--quota-workloads",
            min=0,
            help="Pending workloads one user may have (PUT /v1/quotas/USER: one user's).",
        ),
    ] = DEFAULT_QUOTA.workloads,
    quota_pods: Annotated[
        int, typer.Option("--quota-pods", min=0, help="Pods in one user's pending workloads at most.")
    ] = DEFAULT_QUOTA.pods,
    quota_bytes: Annotated[
        int,
        typer.Option(
            "--quota-bytes", min=0, help="Bytes of one user's pending workloads' stored specs at most."
        ),
    ] = DEFAULT_QUOTA.spec_bytes,
    reservation_depth: Annotated[
        int,
        typer.Option(
            "--reserve-depth",
            min=1,
            max=MAX_RESERVATION_DEPTH,
            help="Refused gangs of a cycle that each reserve nodes of their own (1: only the first).",
        ),
    ] = 1,
    quota_reservations: Annotated[
        bool,
        typer.Option(
            "--quota-reserve/--no-quota-reserve",
            help="A gang refused only for the quota other queues hold reserves as one refused for room"
            " (the simulator's toposched policy); --no-quota-reserve queues as Kueue and KAI do.",
        ),
    ] = True,
) -> None:
    """Run the scheduler and its HTTP API (web page at /, the API's OpenAPI schema at
    /openapi.json). SIGTERM or Ctrl-C stops it cleanly: requests in flight finish, then the store
    is closed (exit 0)."""
    # Imported here so the other commands start fast and do not need the server libraries.
    from toposched.api import Limits, create_app
    from toposched.api.server import ServerLimits, run_server
    from toposched.cli.inputs import parse_search, read_cluster
    from toposched.cli.workloads import REGISTRY
    from toposched.scheduler import CpuClock, Scheduler, SchedulerConfig, SystemClock
    from toposched.store import SqliteStore

    try:
        _check_port(host, port)
        config = SchedulerConfig(
            search=parse_search(search),
            round_seconds=round_seconds,
            backoff_max_seconds=backoff_max,
            max_pods=max_pods,
            explain_seconds=explain_seconds,
            quota=Quota(quota_workloads, quota_pods, quota_bytes),
            reservation_depth=reservation_depth,
            quota_reservations=quota_reservations,
        )
        auth, created = _auth(tokens, Path(db))
        store = SqliteStore(db)
        scheduler = Scheduler(store, SystemClock(), config, registry=REGISTRY, search_clock=CpuClock())
        stored_tokens = len(store.list_tokens())
        if cluster is not None:
            parsed, warnings = read_cluster(cluster)
            report = scheduler.import_cluster(parsed, warnings=warnings)
            typer.echo(f"imported {report.nodes} nodes, {report.pods} pods from {cluster}")
            for line in warning_lines(report.warnings):
                typer.echo(line, err=True)
    except ToposchedError as exc:
        for line in error_lines(exc):
            typer.echo(line, err=True)
        raise typer.Exit(ExitCode.INVALID) from None
    for line in _token_lines(auth, created, stored_tokens, db):
        typer.echo(line)
    typer.echo(f"web page: http://{host}:{port}/ (enter a token there)")
    typer.echo(f"serving on http://{host}:{port} (store {db}); API schema at /openapi.json")
    app = create_app(scheduler, auth, limits=Limits(), store=store, loop_interval=interval)
    server_limits = ServerLimits(read_timeout=read_timeout, max_connections=max_connections)
    for stop in (signal.SIGINT, signal.SIGTERM):
        signal.signal(stop, _exit_cleanly)
    try:
        run_server(app, host=host, port=port, limits=server_limits)
    finally:
        store.close()  # checkpoints the WAL into the database file


def _check_port(host: str, port: int) -> None:
    """Refuse a port that cannot be listened on before anything starts: uvicorn would only log
    it after the "serving on" lines. Bound as uvicorn binds (address reuse on), then released."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        with socket.socket(family) as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            probe.bind((host, port))
    except OSError as exc:
        raise listen_error("--port", host, port, exc) from None


def _exit_cleanly(signum: int, frame: FrameType | None) -> None:
    """The stop signal, once uvicorn has shut down (it re-raises it) or before it started: exit
    0 through the ``finally`` that closes the store, instead of dying on the signal."""
    raise SystemExit(0)


def _token_lines(auth: AuthConfig, created: list[tuple[User, str]] | None, stored: int, db: str) -> list[str]:
    """What ``serve`` says of its tokens on every start: where they are and how to make one;
    on the first start also the new development tokens, shown this once."""
    lines = []
    if created is not None:
        lines.append(f"created development tokens in {auth.path} (only their SHA-256 is kept; shown once):")
        lines += [f"  {user.role:<5}  {user.name:<8} {token}" for user, token in created]
    lines.append(
        f"tokens: {len(auth.entries)} in {auth.path} (read at start), "
        f"{stored} made with `toposched token create` (in the store {db})"
    )
    lines.append(
        "new token: toposched token create NAME --user USER [--role admin] --token ADMIN_TOKEN "
        f"(no admin token left: add {{token: SECRET, user: NAME, role: admin}} to {auth.path} and restart)"
    )
    return lines


def _auth(tokens: str | None, db: Path) -> tuple[AuthConfig, list[tuple[User, str]] | None]:
    """The tokens file (``--tokens``, else the one beside the database, created on first use
    with owner-only permissions), refused when others may read it or another user owns it.
    With a new file, also the tokens it was made from, to show once."""
    from toposched.api import AuthConfig, generate_tokens, require_private

    path = Path(tokens) if tokens is not None else db.with_name(db.name + ".tokens.yaml")
    if tokens is not None or path.exists():
        require_private(path)
        return AuthConfig.load(path), None
    path.parent.mkdir(parents=True, exist_ok=True)
    content, fresh = generate_tokens()
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        yaml.safe_dump(content, handle, sort_keys=False)
    return AuthConfig.load(path), fresh
