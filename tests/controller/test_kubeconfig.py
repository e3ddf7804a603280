"""The controller finds its cluster as kubectl does: ``--kubeconfig``, else ``$KUBECONFIG`` (the
files merged), else ``~/.kube/config``, else in-cluster; ``--context`` with any of them.

The files here name servers nobody listens on: what is checked is which server and credentials
the client was configured with. ``test_real_*`` talk to the real API server through each source.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.realkube.control_plane import ControlPlane
from typer.testing import CliRunner

from toposched.cli.main import app
from toposched.controller.kubeapi import NODES
from toposched.controller.kubeconfig import client_configuration
from toposched.controller.rest import connect
from toposched.model import SpecError


def _kubeconfig(path: Path, contexts: dict[str, str], current: str | None = None) -> Path:
    """A kubeconfig with one cluster and user per context, the cluster's server given."""
    config: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Config",
        "clusters": [{"name": name, "cluster": {"server": server}} for name, server in contexts.items()],
        "users": [{"name": name, "user": {"token": f"token-of-{name}"}} for name in contexts],
        "contexts": [{"name": name, "context": {"cluster": name, "user": name}} for name in contexts],
    }
    if current is not None:
        config["current-context"] = current
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty home and no $KUBECONFIG, outside any pod."""
    folder = tmp_path / "home"
    folder.mkdir()
    monkeypatch.setenv("HOME", str(folder))
    monkeypatch.delenv("KUBECONFIG", raising=False)
    monkeypatch.delenv("KUBERNETES_SERVICE_HOST", raising=False)
    return folder


def _host(kubeconfig: str | None = None, context: str | None = None) -> str:
    configuration, _ = client_configuration(kubeconfig, context=context)
    return str(configuration.host)


def test_kubeconfig_variable_is_read_without_the_option(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    config = _kubeconfig(tmp_path / "a.yaml", {"a": "https://a.example:6443"}, current="a")
    monkeypatch.setenv("KUBECONFIG", str(config))

    configuration, source = client_configuration()

    assert configuration.host == "https://a.example:6443"
    assert "Bearer token-of-a" in configuration.api_key.values()
    assert source.describe() == f"$KUBECONFIG ({config})"


def test_kubeconfig_variable_merges_its_files_as_kubectl(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # kubectl: a name takes the first file's entry, the current context the first one set;
    # a listed file that does not exist is skipped.
    first = _kubeconfig(tmp_path / "first.yaml", {"shared": "https://first.example"})
    second = _kubeconfig(
        tmp_path / "second.yaml", {"shared": "https://second.example", "b": "https://b.example"}, "shared"
    )
    third = _kubeconfig(tmp_path / "third.yaml", {"c": "https://c.example"}, current="c")
    missing = tmp_path / "missing.yaml"
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join(map(str, [missing, first, second, third])))

    assert _host() == "https://first.example"  # second's current context, first's entry
    assert _host(context="b") == "https://b.example"
    assert _host(context="c") == "https://c.example"


def test_home_kubeconfig_is_the_default(home: Path) -> None:
    (home / ".kube").mkdir()
    _kubeconfig(home / ".kube" / "config", {"h": "https://home.example"}, current="h")

    assert _host() == "https://home.example"


def test_kubeconfig_variable_takes_the_place_of_the_home_file(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (home / ".kube").mkdir()
    _kubeconfig(home / ".kube" / "config", {"h": "https://home.example"}, current="h")
    monkeypatch.setenv("KUBECONFIG", str(_kubeconfig(tmp_path / "v.yaml", {"v": "https://v.example"}, "v")))

    assert _host() == "https://v.example"
    assert _host(str(home / ".kube" / "config")) == "https://home.example"  # the option wins


def test_context_chooses_among_the_home_file_contexts(home: Path) -> None:
    (home / ".kube").mkdir()
    _kubeconfig(home / ".kube" / "config", {"h": "https://home.example", "g": "https://g.example"}, "h")

    assert _host(context="g") == "https://g.example"


def test_an_unknown_context_is_refused_with_the_known_ones(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "KUBECONFIG", str(_kubeconfig(tmp_path / "k.yaml", {"x": "https://x", "y": "https://y"}, "x"))
    )

    with pytest.raises(SpecError) as caught:
        client_configuration(context="z")

    assert [str(p) for p in caught.value.problems] == [
        f"--context: no context 'z' in $KUBECONFIG ({tmp_path / 'k.yaml'}) (use one of: x, y)"
    ]


def test_a_context_without_any_kubeconfig_is_refused(home: Path) -> None:
    with pytest.raises(SpecError, match=r"--context: 'prod' given, but there is no kubeconfig"):
        client_configuration(context="prod")


def test_no_current_context_asks_for_one(home: Path, tmp_path: Path) -> None:
    config = _kubeconfig(tmp_path / "k.yaml", {"x": "https://x"})

    with pytest.raises(SpecError, match=r"sets no current-context \(pass --context NAME \(one of: x\)\)"):
        client_configuration(str(config))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("contexts: 5\n", "contexts: is not a list"),
        ("contexts: [{context: {}}]\n", r"contexts\[0\]: has no name"),
        ("- a\n- b\n", "is not one kubeconfig mapping"),
        ("a: [\n", "k.yaml:"),
    ],
    ids=["contexts-not-a-list", "context-without-name", "a-list", "yaml-syntax"],
)
def test_a_malformed_kubeconfig_is_a_spec_error_naming_it(
    home: Path, tmp_path: Path, text: str, message: str
) -> None:
    path = tmp_path / "k.yaml"
    path.write_text(text, encoding="utf-8")

    with pytest.raises(SpecError, match=message):
        client_configuration(str(path))


def test_the_controller_command_refuses_an_unknown_context_of_the_variable_files(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("KUBECONFIG", str(_kubeconfig(tmp_path / "k.yaml", {"x": "https://x"}, "x")))

    result = CliRunner().invoke(app, ["controller", "--context", "nope", "--metrics-port", "0"])

    assert result.exit_code == 2
    assert result.output.startswith("--context: no context 'nope' in $KUBECONFIG")


def _real_kubeconfig_beside_a_dead_one(plane: ControlPlane, folder: Path) -> tuple[Path, str]:
    """A copy of the test control plane's kubeconfig listed after one whose current context
    points at nothing, and the real file's context name."""
    real = yaml.safe_load(plane.kubeconfig.read_text())
    dead = _kubeconfig(folder / "dead.yaml", {"dead": "https://127.0.0.1:1"}, "dead")
    return dead, str(real["current-context"])


def test_real_api_server_through_the_kubeconfig_variable_and_a_context(
    real_apiserver: ControlPlane, home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dead, context = _real_kubeconfig_beside_a_dead_one(real_apiserver, tmp_path)
    monkeypatch.setenv("KUBECONFIG", os.pathsep.join([str(dead), str(real_apiserver.kubeconfig)]))

    api = connect(None, context=context)
    try:
        assert api.list(NODES).resource_version
    finally:
        api.close()


def test_real_api_server_through_the_home_kubeconfig(real_apiserver: ControlPlane, home: Path) -> None:
    (home / ".kube").mkdir()
    (home / ".kube" / "config").write_bytes(real_apiserver.kubeconfig.read_bytes())

    api = connect()
    try:
        assert api.list(NODES).resource_version
    finally:
        api.close()
