"""``toposched submit / get / list / cancel``: thin HTTP clients of ``toposched serve``.

Exit codes: 0 done; 2 the request is wrong (invalid spec, missing or rejected token, another
user's or an unknown id: any 4xx but a conflict or rate limit); 1 the server could not do it now
(unreachable, 5xx, a conflict with the workload's state, too many requests).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Annotated, Any

import httpx
import typer
from rich.markup import escape
from rich.table import Table

from toposched.cli.errors import ExitCode, error_lines
from toposched.cli.hints import taint_hint
from toposched.cli.output import NoHeadersOption, OutputOption, console, print_document
from toposched.intake.parse import read_file
from toposched.model.errors import Problem, SpecError, reported_problems, shorten

ServerOpt = Annotated[
    str,
    typer.Option(
        "--server", "-s", envvar="TOPOSCHED_SERVER", metavar="URL", help="The server (or TOPOSCHED_SERVER)."
    ),
]
TokenOpt = Annotated[
    str | None,
    typer.Option(
        "--token", envvar="TOPOSCHED_TOKEN", metavar="TOKEN", help="Bearer token (or TOPOSCHED_TOKEN)."
    ),
]
DEFAULT_SERVER = "http://127.0.0.1:8080"
# 4xx answers that depend on the server's state rather than on what was asked.
_RETRYABLE = frozenset({408, 409, 429})


def submit_command(
    spec: Annotated[str, typer.Argument(metavar="SPEC", help="Workload spec (YAML); - reads stdin.")],
    priority: Annotated[int, typer.Option("--priority", help="Higher runs first.")] = 0,
    topology: Annotated[str | None, typer.Option("--topology", "-t", help="Topology name.")] = None,
    kind: Annotated[str | None, typer.Option("--kind", help="Front end hint (kueue, kai, ...).")] = None,
    pool: Annotated[
        str | None,
        typer.Option(
            "--pool", metavar="NAME", help="Stored OSMO pool a workflow runs in (toposched pool put)."
        ),
    ] = None,
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,  # one line, no header: taken as by every command
) -> None:
    """Submit a workload; it waits as pending until the scheduler admits it."""
    text = _read_spec(spec)
    body: dict[str, Any] = {"spec": text, "priority": priority}
    if topology is not None:
        body["topology"] = topology
    if kind is not None:
        body["kind"] = kind
    if pool is not None:
        body["pool"] = pool
    record = call("POST", server, "/v1/workloads", token, json_body=body)
    _show(
        record, output, f"submitted workload {record.get('id')} ({record.get('name')}): {record.get('state')}"
    )


def get_command(
    workload_id: Annotated[int, typer.Argument(metavar="ID")],
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,
) -> None:
    """Show one workload: state, placement and why it waits."""
    record = call("GET", server, f"/v1/workloads/{workload_id}", token)
    if print_document(output, record, lambda: [workload_name(record)]):
        return
    out = console()
    out.print(workloads_table([record], wide=output == "wide", headers=not no_headers, now=time.time()))
    placement = record.get("placement") or {}
    pods = placement.get("pods") or []
    if pods:
        table = Table(
            "POD", "NODE", box=None, pad_edge=False, header_style="bold", show_header=not no_headers
        )
        for pod in pods:
            table.add_row(escape(str(pod.get("name"))), escape(str(pod.get("node"))))
        out.print(table)
    for line in _waiting_lines(record.get("explanation")):
        typer.echo(line)


def list_command(
    state: Annotated[
        list[str] | None, typer.Option("--state", help="Only these states (repeatable).")
    ] = None,
    owner: Annotated[str | None, typer.Option("--owner", help="Only this owner's (admins).")] = None,
    after: Annotated[int, typer.Option("--after", metavar="ID", help="Only workloads with a larger id.")] = 0,
    limit: Annotated[
        int | None, typer.Option("--limit", metavar="N", help="At most N (the server caps it).")
    ] = None,
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,
    watch: Annotated[
        bool,
        typer.Option("--watch", "-w", help="After the list, poll and print what changed (Ctrl-C stops)."),
    ] = False,
    interval: Annotated[
        float,
        typer.Option("--interval", metavar="SECONDS", min=0.1, help="Seconds between polls of --watch."),
    ] = 2.0,
    polls: Annotated[
        int | None, typer.Option("--polls", metavar="N", min=1, help="Stop --watch after N polls.")
    ] = None,
) -> None:
    """List workloads in submission order, a page at a time (yours; admins see everyone's);
    pass the last id shown as --after for the next page. Pending ones show their POSITION in
    the admission order (1 is tried first) and the REASON they wait; QUEUE is the scheduling
    queue of a pending, admitted or running one."""
    params: dict[str, Any] = {"after": after}
    if limit is not None:
        params["limit"] = limit
    if state:
        params["state"] = state
    if owner:
        params["owner"] = owner

    def fetch() -> list[dict[str, Any]]:
        records: list[dict[str, Any]] = call("GET", server, "/v1/workloads", token, params=params)
        return records

    def show(records: list[dict[str, Any]], headers: bool) -> None:
        if print_document(output, records, lambda: [workload_name(r) for r in records]):
            return
        if not records and not watch:
            typer.echo("no workloads")
            return
        if records:
            table = workloads_table(records, wide=output == "wide", headers=headers, now=time.time())
            console().print(table)

    records = fetch()
    show(records, not no_headers)
    if watch:
        watch_changes(records, fetch, lambda changed: show(changed, False), interval, polls)


def watch_changes(
    shown: list[dict[str, Any]],
    fetch: Callable[[], list[dict[str, Any]]],
    show: Callable[[list[dict[str, Any]]], None],
    interval: float,
    polls: int | None,
) -> None:
    """``kubectl get --watch``: poll every ``interval`` seconds and show each workload whose row
    changed (new, or another state, position or reason) until interrupted or ``polls`` polls."""
    seen = {record.get("id"): _row_key(record) for record in shown}
    done = 0
    try:
        while polls is None or done < polls:
            time.sleep(interval)
            records = fetch()
            done += 1
            changed = [r for r in records if seen.get(r.get("id")) != _row_key(r)]
            seen.update((r.get("id"), _row_key(r)) for r in changed)
            if changed:
                show(changed)
    except KeyboardInterrupt:
        return


def _row_key(record: dict[str, Any]) -> tuple[Any, ...]:
    explanation = record.get("explanation")
    reason = explanation.get("reason") if isinstance(explanation, dict) else None
    return (record.get("state"), record.get("position"), reason)


def cancel_command(
    workload_id: Annotated[int, typer.Argument(metavar="ID")],
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOption = "table",
    no_headers: NoHeadersOption = False,  # one line, no header: taken as by every command
) -> None:
    """Cancel a workload and release its capacity."""
    record = call("DELETE", server, f"/v1/workloads/{workload_id}", token)
    _show(record, output, f"workload {record.get('id')} ({record.get('name')}): {record.get('state')}")


def workload_name(record: dict[str, Any]) -> str:
    """``-o name``: ``workload/ID``, what ``get`` and ``cancel`` take."""
    return f"workload/{record.get('id')}"


def workloads_table(records: list[dict[str, Any]], *, wide: bool, headers: bool, now: float) -> Table:
    """One row per workload, columns aligned as ``kubectl get`` aligns them (never cut: the
    console is unbounded off a terminal); ``wide`` adds KIND, PODS and POOL."""
    table = Table(box=None, pad_edge=False, header_style="bold", show_header=headers)
    columns = ["ID", "NAME", "STATE", "OWNER", "QUEUE", "PRIORITY", "POSITION", "TOPOLOGY", "AGE"]
    if wide:
        columns += ["KIND", "PODS", "POOL"]
    for title in columns:
        table.add_column(title, justify="right" if title == "ID" else "left")
    table.add_column("REASON")
    for record in records:
        cells = [
            record.get(key)
            for key in ("id", "name", "state", "owner", "queue", "priority", "position", "topology")
        ]
        submitted = record.get("submittedAt")
        cells.append(age(now - float(submitted)) if isinstance(submitted, int | float) else None)
        if wide:
            cells += [record.get(key) for key in ("kind", "pods", "pool")]
        cells.append(_reason(record))
        table.add_row(*(escape("" if cell is None or cell == "" else str(cell)) or "-" for cell in cells))
    return table


def age(seconds: float) -> str:
    """kubectl's AGE: ``45s``, ``12m``, ``5h``, ``3d``."""
    seconds = max(0, int(seconds))
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds // size}{unit}"
    return f"{seconds}s"


def _reason(record: dict[str, Any]) -> str:
    explanation = record.get("explanation")
    if record.get("state") != "pending" or not isinstance(explanation, dict):
        return ""
    return str(explanation.get("reason") or "")


def _waiting_lines(explanation: object) -> list[str]:
    """Why a workload waits, led by the taint hint when taints alone keep it off every node."""
    if not isinstance(explanation, dict) or not explanation:
        return []
    excluded = explanation.get("excluded")
    total = explanation.get("totalNodes")
    hint = None
    if isinstance(excluded, dict) and isinstance(total, int):
        hint = taint_hint({str(k): v for k, v in excluded.items() if isinstance(v, int)}, total)
    lines = [f"waiting: {explanation.get('reason') or explanation}"]
    return [*(hint.lines() if hint is not None else []), *lines]


def _show(record: dict[str, Any], output: str, line: str) -> None:
    """``submit`` and ``cancel``: the record as a document or a name, else one line."""
    if not print_document(output, record, lambda: [workload_name(record)]):
        typer.echo(line)


def _read_spec(spec: str) -> str:
    try:
        raw = read_file(spec, what="workload spec")  # bounded: the server refuses more anyway
    except SpecError as exc:
        for line in error_lines(exc):
            typer.echo(f"SPEC: {line}", err=True)
        raise typer.Exit(ExitCode.INVALID) from None
    try:
        text: str | None = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or "\0" in text:
        typer.echo(f"SPEC: {spec!r} is binary, not YAML text (pass a YAML or JSON workload spec)", err=True)
        raise typer.Exit(ExitCode.INVALID)
    return text


def call(
    method: str,
    server: str,
    path: str,
    token: str | None,
    *,
    json_body: object = None,
    params: dict[str, Any] | None = None,
) -> Any:
    """One request; prints the server's error (with field paths) and exits on failure."""
    if not token:
        typer.echo("--token: is missing (pass --token or set TOPOSCHED_TOKEN)", err=True)
        raise typer.Exit(ExitCode.INVALID)
    try:
        response = httpx.request(
            method,
            server.rstrip("/") + path,
            json=json_body,
            params=params,
            headers={"Authorization": f"Bearer {token}"},
            timeout=30.0,
        )
    except httpx.HTTPError as exc:
        typer.echo(f"cannot reach {server}: {exc} (is `toposched serve` running?)", err=True)
        raise typer.Exit(ExitCode.FAILED) from None
    try:
        payload = response.json()
    except ValueError:
        payload = {"message": response.text}
    if response.is_success:
        return payload
    for line in _error_lines(response.status_code, payload):
        typer.echo(line, err=True)
    raise typer.Exit(_exit_code(response.status_code))


def _exit_code(status: int) -> ExitCode:
    """A request the server rejects as wrong is invalid input, like a bad file or flag."""
    return ExitCode.INVALID if 400 <= status < 500 and status not in _RETRYABLE else ExitCode.FAILED


def _error_lines(status: int, payload: Any) -> list[str]:
    """The server's problems as the local commands print theirs (as many, as long)."""
    listed = payload.get("problems") if isinstance(payload, dict) else None
    problems = [
        Problem(str(p.get("path") or ""), str(p.get("message")), str(p.get("hint") or ""))
        for p in (listed if isinstance(listed, list) else ())
        if isinstance(p, dict)
    ]
    if problems:
        return [str(p) for p in reported_problems(problems)]
    message = payload.get("message") if isinstance(payload, dict) else None
    return [shorten(f"error {status}: {message or payload}")]
