"""A command loads only what it uses: the plotting library, the web server and the Kubernetes
client stay out of every command but simulate, serve and controller (bench/cli_startup.py
prints what that saves in CPU time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from .conftest import REPO, sample_path

HEAVY = ("matplotlib", "fastapi", "uvicorn", "starlette", "kubernetes")


def loaded_after(code: str) -> set[str]:
    """The top-level packages a fresh interpreter has loaded after running ``code``."""
    script = (
        f"import json, sys\n{code}\nprint(json.dumps(sorted({{name.split('.')[0] for name in sys.modules}})))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def run_cli(*args: str) -> str:
    """Python that runs ``toposched ARGS`` in-process and carries on after its exit."""
    return (
        "from toposched.cli.main import app\n"
        "try:\n"
        f"    app({list(args)!r}, prog_name='toposched')\n"
        "except SystemExit:\n"
        "    pass"
    )


def test_importing_the_command_line_loads_no_server_plotting_or_kubernetes_client() -> None:
    loaded = loaded_after("import toposched.cli.main")
    assert loaded.isdisjoint(HEAVY), loaded & set(HEAVY)
    assert "numpy" not in loaded  # nor the engine: a command is imported when it runs


def test_version_loads_no_engine() -> None:
    loaded = loaded_after(run_cli("--version"))
    assert loaded.isdisjoint({*HEAVY, "numpy", "pydantic", "httpx", "yaml"}), loaded


def test_place_loads_neither_the_service_nor_the_osmo_front_end() -> None:
    args = [
        "place",
        str(REPO / "examples/kueue/job-rack.yaml"),
        "--cluster",
        str(sample_path("cluster.yaml")),
    ]
    loaded = loaded_after(run_cli(*args))
    assert "numpy" in loaded  # it did place
    # pydantic reads OSMO pools; httpx is the client commands'
    assert loaded.isdisjoint({*HEAVY, "pydantic", "httpx"}), loaded & {*HEAVY, "pydantic", "httpx"}


def test_every_command_is_listed_and_loads() -> None:
    import typer
    from typer.main import get_command

    from toposched.cli.main import COMMANDS, app

    group = get_command(app)
    context = typer.Context(group)
    assert group.list_commands(context) == list(COMMANDS)  # type: ignore[attr-defined]
    for name in COMMANDS:
        command = group.get_command(context, name)  # type: ignore[attr-defined]
        assert command is not None and command.name == name and command.help


def test_python_dash_m_runs_the_command_line() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "toposched", "--version"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("toposched "), done.stderr
