"""Topology lint: partial level labels, duplicate hostnames, topologies without members."""

from __future__ import annotations

from builders import BLOCK, HOST, node, topology
from toposched.topology import lint


def test_clean_cluster_has_no_problems() -> None:
    assert lint(topology("block", "host"), [node("a").at(block="b1").build()]) == []


def test_nodes_with_some_but_not_all_level_labels() -> None:
    problems = lint(topology("block", "rack", "host"), [node("a").labels({BLOCK: "b1"}).build()])
    assert problems[0].path == "nodes[a].metadata.labels"
    assert "example.com/rack" in problems[0].message and "kubernetes.io/hostname" in problems[0].message


def test_nodes_without_any_level_label_are_fine_unless_no_node_is_a_member() -> None:
    levels = topology("block", "host")
    assert lint(levels, [node("cpu-only").build(), node("a").at(block="b1").build()]) == []
    problems = lint(levels, [node("cpu-only").build()])
    assert len(problems) == 1 and "no node carries every level label" in problems[0].message


def test_duplicate_hostname_values() -> None:
    problems = lint(
        topology("block", "host"),
        [
            node("a").labels({BLOCK: "b1", HOST: "same"}).build(),
            node("b").labels({BLOCK: "b2", HOST: "same"}).build(),
        ],
    )
    assert len(problems) == 1
    assert "'same' is used by 2 nodes (a, b)" in problems[0].message
