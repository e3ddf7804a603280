"""One front-end registry per process: the service ``toposched serve`` starts and the controller
``toposched controller`` runs compile with the registry the other commands use, so a front end
registered there is known everywhere."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Any

import pytest
from tests.controller.kubeconfig import write_kubeconfig
from typer.testing import CliRunner

import toposched.api
import toposched.api.server
import toposched.controller.app
from toposched.cli.main import app
from toposched.cli.workloads import REGISTRY
from toposched.controller.app import Options
from toposched.scheduler import Scheduler


@pytest.fixture(autouse=True)
def no_signal_handlers(monkeypatch: pytest.MonkeyPatch) -> None:
    """The commands install SIGINT/SIGTERM handlers: not in the test process."""
    monkeypatch.setattr(signal, "signal", lambda *_: None)


def test_the_service_compiles_with_the_commands_registry(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    started: list[Scheduler] = []

    def create_app(scheduler: Scheduler, *args: Any, **kwargs: Any) -> object:
        started.append(scheduler)
        return object()

    monkeypatch.setattr(toposched.api, "create_app", create_app)
    monkeypatch.setattr(toposched.api.server, "run_server", lambda *_, **__: None)
    result = CliRunner().invoke(app, ["serve", "--db", str(tmp_path / "t.db"), "--port", "0"])
    assert result.exit_code == 0, result.output
    (scheduler,) = started
    assert scheduler.registry is REGISTRY


def test_the_service_takes_the_reservation_settings(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    # What the simulator's toposched policy turns on, the service turns on the same way.
    started: list[Scheduler] = []
    monkeypatch.setattr(toposched.api, "create_app", lambda scheduler, *_, **__: started.append(scheduler))
    monkeypatch.setattr(toposched.api.server, "run_server", lambda *_, **__: None)
    db = str(tmp_path / "t.db")
    for extra in ([], ["--reserve-depth", "3", "--no-quota-reserve"]):
        result = CliRunner().invoke(app, ["serve", "--db", db, "--port", "0", *extra])
        assert result.exit_code == 0, result.output
    default, chosen = (s.config for s in started)
    # The default is the simulator's toposched policy's queueing; off, Kueue's and KAI's.
    assert (default.reservation_depth, default.quota_reservations) == (1, True)
    assert (chosen.reservation_depth, chosen.quota_reservations) == (3, False)
    result = CliRunner().invoke(app, ["serve", "--db", db, "--port", "0", "--reserve-depth", "65"])
    assert result.exit_code == 2 and "--reserve-depth" in result.output


def test_the_controller_command_compiles_with_the_commands_registry(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    ran: list[Options] = []
    monkeypatch.setattr(toposched.controller.app, "run", lambda api, options, stop, **_: ran.append(options))
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:9")  # never contacted
    result = CliRunner().invoke(app, ["controller", "--kubeconfig", str(kubeconfig), "--metrics-port", "0"])
    assert result.exit_code == 0, result.output
    (options,) = ran
    assert options.registry is REGISTRY
