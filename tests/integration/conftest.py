"""Shared helpers of the end-to-end tests: the CLI in-process and as a real process, the example
files, and the CRD schemas emitted objects must satisfy."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs among the test dependencies
import pytest
import yaml
from typer.testing import CliRunner

from toposched.cli.main import app

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SCHEMAS = REPO.parent / "shared" / "schemas"


@dataclass(frozen=True)
class Run:
    exit_code: int
    stdout: str
    stderr: str

    def json(self) -> Any:
        return json.loads(self.stdout)


Invoke = Callable[..., Run]


@pytest.fixture
def invoke() -> Invoke:
    """``toposched ARGS...`` in-process through the real typer app."""
    runner = CliRunner()

    def run(*args: str | Path) -> Run:
        result = runner.invoke(app, [str(a) for a in args])
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Run(result.exit_code, result.stdout, result.stderr)

    return run


def run_process(*args: str | Path) -> Run:
    """``toposched ARGS...`` as a separate process (the installed console script)."""
    script = shutil.which("toposched")
    command = [script] if script else [sys.executable, "-c", "from toposched.cli.main import app; app()"]
    done = subprocess.run([*command, *map(str, args)], capture_output=True, text=True, check=False)
    return Run(done.returncode, done.stdout, done.stderr)


def crd_schema(path: Path) -> dict[str, Any]:
    """The openAPIV3Schema of the served version of a CRD file (skip when the file is absent)."""
    if not path.is_file():
        pytest.skip(f"no {path}")
    crd = yaml.safe_load(path.read_text(encoding="utf-8"))
    version = next(v for v in crd["spec"]["versions"] if v.get("served"))
    return dict(version["schema"]["openAPIV3Schema"])


def validate(obj: dict[str, Any], schema_file: Path) -> None:
    jsonschema.validate(obj, crd_schema(schema_file))


def node_labels(cluster: Path) -> dict[str, dict[str, str]]:
    """Node name -> labels of a cluster file (v1 List or document stream)."""
    out: dict[str, dict[str, str]] = {}
    for doc in yaml.safe_load_all(cluster.read_text(encoding="utf-8")):
        for obj in (doc or {}).get("items", [doc]) if isinstance(doc, dict) else []:
            if isinstance(obj, dict) and obj.get("kind") == "Node":
                out[obj["metadata"]["name"]] = dict(obj["metadata"].get("labels") or {})
    return out
