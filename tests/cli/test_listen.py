"""``toposched serve`` and ``toposched controller`` run side by side with their defaults, and a
port one of them cannot listen on is one line naming the option, not a traceback."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from tests.controller.kubeconfig import write_kubeconfig
from typer.testing import CliRunner

from toposched.cli.main import app


@pytest.fixture
def busy_port() -> Iterator[int]:
    """A port another process listens on."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        yield int(listener.getsockname()[1])


def test_the_controller_and_the_service_listen_on_different_ports_by_default() -> None:
    group = typer.main.get_command(app)
    context = typer.Context(group)
    defaults = {
        name: next(p.default for p in group.get_command(context, name).params if p.name == option)  # type: ignore[attr-defined]
        for name, option in (("controller", "metrics_port"), ("serve", "port"))
    }
    assert defaults["controller"] != defaults["serve"]


def test_a_metrics_port_in_use_is_one_line_naming_the_option(tmp_path: Path, busy_port: int) -> None:
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", "http://127.0.0.1:9")  # never contacted
    result = CliRunner().invoke(
        app, ["controller", "--kubeconfig", str(kubeconfig), "--metrics-port", str(busy_port)]
    )
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [
        f"--metrics-port: cannot listen on 0.0.0.0:{busy_port}: it is in use by another process"
        " (choose a free port with --metrics-port)"
    ]


def test_a_service_port_in_use_is_one_line_naming_the_option(tmp_path: Path, busy_port: int) -> None:
    result = CliRunner().invoke(
        app, ["serve", "--db", str(tmp_path / "toposched.db"), "--port", str(busy_port)]
    )
    assert result.exit_code == 2, result.output
    assert result.output.splitlines() == [
        f"--port: cannot listen on 127.0.0.1:{busy_port}: it is in use by another process"
        " (choose a free port with --port)"
    ]
    assert not (tmp_path / "toposched.db").exists()  # refused before anything was created
