"""Fixtures for the command-line tests: the bundled sample cluster and jobs, and a runner."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import pytest
from typer.testing import CliRunner

from toposched.cli.main import app

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples" / "kueue"


@dataclass(frozen=True)
class Run:
    exit_code: int
    stdout: str
    stderr: str


Invoke = Callable[..., Run]


def sample_path(name: str) -> Path:
    """A bundled sample file as a real path (the package is installed from a directory)."""
    path = Path(str(resources.files("toposched.samples").joinpath(name)))
    assert path.is_file(), path
    return path


@pytest.fixture(autouse=True)
def no_live_cluster(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No kubeconfig and no pod's service account: a command without ``--cluster`` finds no live
    cluster, whatever the machine running the tests has (tests of a live cluster set their own)."""
    monkeypatch.setenv("KUBECONFIG", str(tmp_path_factory.getbasetemp() / "no-kubeconfig"))
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)


@pytest.fixture(scope="session")
def sample_cluster() -> Path:
    return sample_path("cluster.yaml")


@pytest.fixture(scope="session")
def sample_job() -> Callable[[str], Path]:
    return lambda name: sample_path(f"jobs/{name}")


@pytest.fixture
def invoke() -> Invoke:
    """Run ``toposched ARGS...`` in-process through the real typer app."""
    runner = CliRunner()

    def run(*args: str | Path, stdin: str | None = None) -> Run:
        result = runner.invoke(app, [str(a) for a in args], input=stdin)
        if result.exception is not None and not isinstance(result.exception, SystemExit):
            raise result.exception
        return Run(result.exit_code, result.stdout, result.stderr)

    return run
