"""label_problems: nodes only partly in a topology, topologies no node belongs to, shared
hostname labels. Every cluster load reports these as warnings; the lint as errors."""

from __future__ import annotations

from builders import BLOCK, HOST, RACK, node, topology
from toposched.model.labels import label_problems
from toposched.model.names import UniqueNames


def test_clean_cluster_has_no_problems() -> None:
    nodes = [node("a").at(block="b1").build(), node("cpu-only").build()]
    assert label_problems(topology("block", "host"), nodes) == []


def test_partial_labels_and_shared_hostnames_are_reported() -> None:
    nodes = [
        node("n1").at(block="b1", rack="r1").build(),
        node("n2").labels({BLOCK: "b1", RACK: "r1", HOST: "n1"}).build(),
        node("half").labels({BLOCK: "b1", HOST: "half"}).build(),
        node("plain").build(),
    ]
    problems = label_problems(topology("block", "rack", "host"), nodes)
    assert [p.path for p in problems] == ["nodes[half].metadata.labels", f"nodes[n2].metadata.labels[{HOST}]"]
    partial, shared = problems
    assert f"lacks {RACK}" in partial.message and "outside topology 'default'" in partial.message
    assert shared.message == "hostname label value 'n1' is used by 2 nodes (n1, n2)"
    assert partial.hint and shared.hint


def test_a_topology_no_node_belongs_to() -> None:
    problems = label_problems(topology("block", "host"), [node("cpu-only").build()])
    assert len(problems) == 1 and "no node carries every level label" in problems[0].message
    assert problems[0].path == "topologies[default].spec.levels"


def test_unique_names_are_valid_object_names_without_clashes() -> None:
    names = UniqueNames(fallback="pod")
    assert [names.of(n) for n in ("pending_job0-0", "pending-job0-0", "Pod", "___")] == [
        "pending-job0-0",
        "pending-job0-0-2",
        "pod",
        "pod-2",
    ]
