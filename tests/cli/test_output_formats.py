"""``-o table|wide|json|yaml|name`` and ``--no-headers``: one definition, taken by every command
that prints objects, unknown formats refused (exit 2) naming the choices; ``list`` columns and
``--watch``; shell completion."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import typer
import yaml
from typer.main import get_command
from typer.testing import CliRunner

from toposched.cli.main import app
from toposched.cli.output import FORMATS

from .conftest import REPO, Invoke
from .test_client import FakeServer

PRINTING = [
    ("place",),
    ("compile",),
    ("explain",),
    ("defrag",),
    ("topology", "lint"),
    ("topology", "show"),
    ("topology", "usage"),
    ("pool", "keys"),
    ("submit",),
    ("get",),
    ("list",),
    ("cancel",),
    ("token", "create"),
    ("token", "list"),
    ("token", "revoke"),
]


def command(path: tuple[str, ...]) -> Any:
    found: Any = get_command(app)
    for name in path:
        found = found.get_command(typer.Context(found), name)
    return found


@pytest.mark.parametrize("path", PRINTING, ids=" ".join)
def test_every_printing_command_takes_the_same_output_options(path: tuple[str, ...]) -> None:
    params = {p.name: p for p in command(path).params}
    reference = {p.name: p for p in command(("place",)).params}
    output, headers = params["output"], params["no_headers"]
    assert output.opts == ["--output", "-o"] and output.help == reference["output"].help
    assert output.default == "table" and headers.opts == ["--no-headers"]
    assert all(name in output.help for name in FORMATS)


@pytest.mark.parametrize(
    "args",
    [
        ("place", "JOB", "--cluster", "C"),
        ("topology", "lint", "--cluster", "C"),
        ("defrag", "--cluster", "C", "--level", "rack"),
        ("list",),
        ("token", "list"),
        ("pool", "keys", "P"),
    ],
    ids=lambda a: " ".join(a[:2]),
)
def test_an_unknown_format_is_refused_before_anything_is_read(invoke: Invoke, args: tuple[str, ...]) -> None:
    run = invoke(*args, "-o", "xml")
    assert run.exit_code == 2
    assert run.stderr == "--output: unknown format 'xml' (use one of table, wide, json, yaml, name)\n"


def test_place_as_yaml_and_as_names(invoke: Invoke, sample_cluster: Path) -> None:
    job = REPO / "examples/kueue/job-rack.yaml"
    document = yaml.safe_load(invoke("place", job, "--cluster", sample_cluster, "-o", "yaml").stdout)
    names = invoke("place", job, "--cluster", sample_cluster, "-o", "name").stdout.splitlines()
    assert names == [f"pod/{pod['name']}" for pod in document["pods"]] and len(names) == 16
    tree = invoke("place", job, "--cluster", sample_cluster, "--no-headers").stdout
    assert not tree.startswith("topology default") and tree.startswith("zone z1")


def test_compile_as_one_list_and_as_names(invoke: Invoke, sample_cluster: Path) -> None:
    args = (REPO / "examples/kueue/jobset-rack-slices.yaml", "--cluster", sample_cluster, "--to", "kai")
    stream = list(yaml.safe_load_all(invoke("compile", *args).stdout))
    listed = json.loads(invoke("compile", *args, "-o", "json").stdout)
    assert (listed["apiVersion"], listed["kind"]) == ("v1", "List") and listed["items"] == stream
    names = invoke("compile", *args, "-o", "name").stdout.splitlines()
    assert names == [f"{obj['kind'].lower()}/{obj['metadata']['name']}" for obj in stream]
    assert names == ["topology/default", "jobset/pretrain"]  # KAI reads the annotated JobSet


def test_lint_without_headers_and_as_names(invoke: Invoke, sample_cluster: Path) -> None:
    with_headers = invoke("topology", "lint", "--cluster", sample_cluster).stdout.splitlines()
    without = invoke("topology", "lint", "--cluster", sample_cluster, "--no-headers").stdout.splitlines()
    assert with_headers[1].split()[:3] == ["level", "label", "domains"]
    assert [line.split() for line in without] == [
        line.split() for line in with_headers if line != with_headers[1]
    ]
    assert (
        invoke("topology", "lint", "--cluster", sample_cluster, "-o", "name").stdout == "topology/default\n"
    )


RECORDS = [
    {
        "id": 3,
        "name": "big",
        "kind": "Job",
        "owner": "alice",
        "priority": 0,
        "state": "pending",
        "topology": "default",
        "position": 2,
        "queue": "team-a",
        "pods": 20,
        "pool": "",
        "submittedAt": 0.0,
        "explanation": {"reason": "only 18 of 20 pods fit"},
    },
    {
        "id": 4,
        "name": "small",
        "kind": "JobSet",
        "owner": "alice",
        "priority": 5,
        "state": "admitted",
        "topology": "default",
        "pods": 4,
        "pool": "",
        "submittedAt": 0.0,
        "explanation": None,
    },
]


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> FakeServer:
    fake = FakeServer()
    monkeypatch.setattr(httpx, "request", fake.request)
    monkeypatch.delenv("TOPOSCHED_TOKEN", raising=False)
    return fake


def client(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, [*args, "--token", "t"])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.stdout, result.stderr


def test_list_shows_queue_position_topology_age_and_reason(server: FakeServer) -> None:
    server.body = RECORDS
    code, stdout, _ = client("list")
    assert code == 0
    header, big, small = stdout.splitlines()
    assert header.split() == [
        "ID",
        "NAME",
        "STATE",
        "OWNER",
        "QUEUE",
        "PRIORITY",
        "POSITION",
        "TOPOLOGY",
        "AGE",
        "REASON",
    ]
    assert big.split()[:9] == ["3", "big", "pending", "alice", "team-a", "0", "2", "default", big.split()[8]]
    assert big.split()[8].endswith("d")  # submitted at the epoch: days ago
    assert big.endswith("only 18 of 20 pods fit") and small.split()[4] == small.split()[6] == "-"
    wide = client("list", "-o", "wide")[1].splitlines()
    assert wide[0].split()[-4:] == ["KIND", "PODS", "POOL", "REASON"]
    assert [line.split() for line in client("list", "--no-headers")[1].splitlines()] == [
        big.split(),
        small.split(),
    ]
    assert client("list", "-o", "name")[1] == "workload/3\nworkload/4\n"
    assert yaml.safe_load(client("list", "-o", "yaml")[1]) == RECORDS
    assert json.loads(client("get", "3", "-o", "json")[1]) == RECORDS


def test_list_watch_prints_what_changes_for_a_bounded_number_of_polls(
    server: FakeServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    answers = iter(
        [
            RECORDS,
            RECORDS,  # nothing changed: nothing printed
            [{**RECORDS[0], "state": "admitted", "position": None, "explanation": None}, RECORDS[1]],
            [*RECORDS[:1], RECORDS[1], {**RECORDS[1], "id": 5, "name": "new"}],
        ]
    )

    def request(method: str, url: str, **kwargs: Any) -> httpx.Response:
        return httpx.Response(200, json=next(answers), request=httpx.Request(method, url))

    monkeypatch.setattr(httpx, "request", request)
    code, stdout, _ = client("list", "--watch", "--interval", "0.1", "--polls", "3")
    assert code == 0
    lines = stdout.splitlines()
    assert [line.split()[:3] for line in lines[1:]] == [
        ["3", "big", "pending"],
        ["4", "small", "admitted"],
        ["3", "big", "admitted"],  # poll 2
        ["3", "big", "pending"],  # poll 3: back, and a new one
        ["5", "new", "admitted"],
    ]


def test_shell_completion_is_installable_and_completes_commands() -> None:
    shown = CliRunner().invoke(app, ["--show-completion", "bash"], prog_name="toposched")
    assert shown.exit_code == 0 and "_TOPOSCHED_COMPLETE=complete_bash" in shown.stdout
    completed = CliRunner().invoke(
        app,
        [],
        prog_name="toposched",
        env={"_TOPOSCHED_COMPLETE": "complete_bash", "COMP_WORDS": "toposched pl", "COMP_CWORD": "1"},
    )
    assert completed.stdout.split() == ["place"]
    options = CliRunner().invoke(
        app,
        [],
        prog_name="toposched",
        env={
            "_TOPOSCHED_COMPLETE": "complete_bash",
            "COMP_WORDS": "toposched list --no-h",
            "COMP_CWORD": "2",
        },
    )
    assert options.stdout.split() == ["--no-headers"]
