"""``toposched topology lint`` and ``toposched topology show`` on the sample and on broken clusters."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from toposched.wire.core import list_object, node_object, pod_object

from .conftest import Invoke

ZONE, RACK, HOST = "example.com/zone", "example.com/rack", "kubernetes.io/hostname"
GPU = "nvidia.com/gpu"
TOPOLOGY = {
    "apiVersion": "kueue.x-k8s.io/v1beta1",
    "kind": "Topology",
    "metadata": {"name": "racks"},
    "spec": {"levels": [{"nodeLabel": ZONE}, {"nodeLabel": RACK}, {"nodeLabel": HOST}]},
}


def write_cluster(tmp_path: Path, *extra: dict[str, Any]) -> Path:
    nodes = [
        node_object(f"n{i}", {ZONE: "z1", RACK: f"r{i // 2}", HOST: f"n{i}"}, {GPU: "4"}) for i in range(4)
    ]
    busy = pod_object(
        "busy",
        "team",
        spec={"containers": [{"name": "c", "resources": {"requests": {GPU: "3"}}}]},
        node_name="n0",
        phase="Running",
    )
    path = tmp_path / "cluster.yaml"
    path.write_text(yaml.safe_dump(list_object([*nodes, busy, TOPOLOGY, *extra])))
    return path


def test_lint_of_the_sample_is_clean(invoke: Invoke, sample_cluster: Path) -> None:
    run = invoke("topology", "lint", "--cluster", sample_cluster)
    assert run.exit_code == 0, run.stderr
    assert "288 member node(s), 0 outside" in run.stdout and "no problems found" in run.stdout


def test_lint_json_reports_levels_and_errors_and_exits_2(invoke: Invoke, tmp_path: Path) -> None:
    half = node_object("half", {ZONE: "z1"}, {GPU: "8"})
    run = invoke("topology", "lint", "--cluster", write_cluster(tmp_path, half), "-o", "json")
    assert run.exit_code == 2
    (report,) = json.loads(run.stdout)["topologies"]
    assert report["topology"] == "racks" and report["memberNodes"] == 4 and report["outsideNodes"] == 1
    assert [e["path"] for e in report["errors"]] == ["nodes[half].metadata.labels"]
    rack = report["levels"][1]
    assert rack["domains"] == 2 and rack["capacityPerDomain"] == {"min": 8, "max": 8}
    assert rack["free"] == {"total": 13, "mostInOneDomain": 8}


def test_lint_unknown_topology_names_the_option(invoke: Invoke, tmp_path: Path) -> None:
    run = invoke("topology", "lint", "--cluster", write_cluster(tmp_path), "--topology", "nope")
    assert run.exit_code == 2
    assert "--topology: topology 'nope' not found (known topologies: racks)" in run.stderr


@pytest.mark.parametrize(
    ("depth", "shown", "hidden"), [("1", "zone z1", "rack r0"), ("2", "rack r1", "node n3")]
)
def test_show_draws_the_levels_asked_for(
    invoke: Invoke, tmp_path: Path, depth: str, shown: str, hidden: str
) -> None:
    run = invoke("topology", "show", "--cluster", write_cluster(tmp_path), "--depth", depth)
    assert run.exit_code == 0, run.stderr
    assert shown in run.stdout and hidden not in run.stdout
    assert "13/16 GPU free, 4 node(s)" in run.stdout  # the topology line: 3 of 16 GPUs used


def test_show_marks_used_and_free_capacity(invoke: Invoke, tmp_path: Path) -> None:
    run = invoke("topology", "show", "--cluster", write_cluster(tmp_path), "--depth", "2")
    rack0 = next(line for line in run.stdout.splitlines() if "rack r0" in line)
    assert "5/8 GPU free" in rack0
    assert rack0.count("█") == 8 and rack0.count("·") == 12  # 3 of 8 GPUs used, on a 20-cell bar


def test_show_collapses_to_what_the_terminal_holds(
    invoke: Invoke, sample_cluster: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LINES", "12")  # 8 lines for domains: 2 zones + 4 blocks fit, 16 racks do not
    monkeypatch.setenv("FORCE_COLOR", "1")  # rich's way to say the output is a terminal
    monkeypatch.setenv("NO_COLOR", "1")
    run = invoke("topology", "show", "--cluster", sample_cluster)
    assert "block z1-b1" in run.stdout and "rack" not in run.stdout


def test_show_off_a_terminal_prints_every_level(invoke: Invoke, sample_cluster: Path) -> None:
    run = invoke("topology", "show", "--cluster", sample_cluster)  # the runner's output is no terminal
    assert "node z2-b2-r4-n18" in run.stdout and len(run.stdout.splitlines()) == 1 + 2 + 4 + 16 + 288


def test_show_as_a_document_and_as_names(invoke: Invoke, sample_cluster: Path) -> None:
    document = json.loads(
        invoke("topology", "show", "--cluster", sample_cluster, "-o", "json", "-d", "2").stdout
    )
    (topology,) = document["topologies"]
    zones = [d for d in topology["domains"] if d["level"] == "topology.kubernetes.io/zone"]
    assert len(topology["domains"]) == 2 + 4 and sum(z["capacity"] for z in zones) == 1152
    assert all(d["free"] == d["capacity"] - d["used"] - d["unavailable"] for d in topology["domains"])
    assert (
        invoke("topology", "show", "--cluster", sample_cluster, "-o", "name").stdout == "topology/default\n"
    )
