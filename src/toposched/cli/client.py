"""``toposched submit / get / list / cancel``: thin HTTP clients of ``toposched serve``.

Exit codes: 0 done, 1 the server refused or could not be reached, 2 invalid input.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from toposched.cli.errors import ExitCode

ServerOpt = Annotated[str, typer.Option("--server", "-s", metavar="URL", help="The toposched server.")]
TokenOpt = Annotated[
    str | None,
    typer.Option(
        "--token", envvar="TOPOSCHED_TOKEN", metavar="TOKEN", help="Bearer token (or TOPOSCHED_TOKEN)."
    ),
]
OutputOpt = Annotated[str, typer.Option("--output", "-o", metavar="FORMAT", help="table or json.")]
DEFAULT_SERVER = "http://127.0.0.1:8080"
REFUSED = 1


def submit_command(
    spec: Annotated[str, typer.Argument(metavar="SPEC", help="Workload spec (YAML); - reads stdin.")],
    priority: Annotated[int, typer.Option("--priority", help="Higher runs first.")] = 0,
    topology: Annotated[str | None, typer.Option("--topology", "-t", help="Topology name.")] = None,
    kind: Annotated[str | None, typer.Option("--kind", help="Front end hint (kueue, kai, ...).")] = None,
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOpt = "table",
) -> None:
    """Submit a workload; it waits as pending until the scheduler admits it."""
    text = _read_spec(spec)
    body: dict[str, Any] = {"spec": text, "priority": priority}
    if topology is not None:
        body["topology"] = topology
    if kind is not None:
        body["kind"] = kind
    record = _call("POST", server, "/v1/workloads", token, json_body=body)
    _show(
        record, output, f"submitted workload {record.get('id')} ({record.get('name')}): {record.get('state')}"
    )


def get_command(
    workload_id: Annotated[int, typer.Argument(metavar="ID")],
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOpt = "table",
) -> None:
    """Show one workload: state, placement and why it waits."""
    record = _call("GET", server, f"/v1/workloads/{workload_id}", token)
    if output == "json":
        typer.echo(json.dumps(record, indent=2))
        return
    typer.echo(_line(record))
    placement = record.get("placement") or {}
    for pod in placement.get("pods") or []:
        typer.echo(f"  {pod.get('name')}  ->  {pod.get('node')}")
    explanation = record.get("explanation") or {}
    if explanation:
        typer.echo(f"  waiting: {explanation.get('reason') or explanation}")


def list_command(
    state: Annotated[
        list[str] | None, typer.Option("--state", help="Only these states (repeatable).")
    ] = None,
    owner: Annotated[str | None, typer.Option("--owner", help="Only this owner's (admins).")] = None,
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOpt = "table",
) -> None:
    """List workloads (yours; admins see everyone's)."""
    params: dict[str, Any] = {}
    if state:
        params["state"] = state
    if owner:
        params["owner"] = owner
    records = _call("GET", server, "/v1/workloads", token, params=params)
    if output == "json":
        typer.echo(json.dumps(records, indent=2))
        return
    if not records:
        typer.echo("no workloads")
    for record in records:
        typer.echo(_line(record))


def cancel_command(
    workload_id: Annotated[int, typer.Argument(metavar="ID")],
    server: ServerOpt = DEFAULT_SERVER,
    token: TokenOpt = None,
    output: OutputOpt = "table",
) -> None:
    """Cancel a workload and release its capacity."""
    record = _call("DELETE", server, f"/v1/workloads/{workload_id}", token)
    _show(record, output, f"workload {record.get('id')} ({record.get('name')}): {record.get('state')}")


def _line(record: dict[str, Any]) -> str:
    return (
        f"{record.get('id'):>5}  {record.get('state', ''):<9}  {record.get('owner', ''):<10}  "
        f"{record.get('kind', ''):<12}  {record.get('name', '')}"
    )


def _show(record: dict[str, Any], output: str, line: str) -> None:
    typer.echo(json.dumps(record, indent=2) if output == "json" else line)


def _read_spec(spec: str) -> str:
    try:
        raw = typer.get_binary_stream("stdin").read() if spec == "-" else Path(spec).read_bytes()
    except OSError as exc:
        typer.echo(
            f"SPEC: cannot read {spec!r}: {exc.strerror} (pass an existing file, or - for stdin)", err=True
        )
        raise typer.Exit(ExitCode.INVALID) from None
    try:
        text: str | None = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = None
    if text is None or "\0" in text:
        typer.echo(f"SPEC: {spec!r} is binary, not YAML text (pass a YAML or JSON workload spec)", err=True)
        raise typer.Exit(ExitCode.INVALID)
    return text


def _call(
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
        raise typer.Exit(REFUSED) from None
    try:
        payload = response.json()
    except ValueError:
        payload = {"message": response.text}
    if response.is_success:
        return payload
    for line in _error_lines(response.status_code, payload):
        typer.echo(line, err=True)
    raise typer.Exit(ExitCode.INVALID if response.status_code in (413, 422) else REFUSED)


def _error_lines(status: int, payload: Any) -> list[str]:
    if isinstance(payload, dict) and payload.get("problems"):
        lines = []
        for p in payload["problems"]:
            text = f"{p.get('path')}: {p.get('message')}" if p.get("path") else str(p.get("message"))
            lines.append(f"{text} ({p['hint']})" if p.get("hint") else text)
        return lines
    message = payload.get("message") if isinstance(payload, dict) else None
    return [f"error {status}: {message or payload}"]
