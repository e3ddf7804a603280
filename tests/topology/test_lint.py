"""The topology lint: label errors, reused values, empty domains, mixed shapes, level figures."""

from __future__ import annotations

from builders import BLOCK, GPU, RACK, node, running, topology
from toposched.model import Node
from toposched.topology.lint import lint

LEVELS = topology("block", "rack", "host")


def rack(block: str, name: str, count: int, gpus: int = 4) -> list[Node]:
    return [
        node(f"{block}-{name}-n{i}").at(block=block, rack=name).alloc(**{GPU: gpus}).build()
        for i in range(count)
    ]


def test_a_clean_topology_has_no_findings_and_counts_its_levels() -> None:
    nodes = rack("b1", "r1", 2) + rack("b1", "r2", 3) + rack("b2", "r3", 1)
    report = lint(LEVELS, nodes, [running("busy", "b1-r2-n0", **{GPU: 3})])
    assert report.findings == () and report.members == 6 and report.outside == 0
    block, rack_level, host = report.levels
    assert (block.key, block.domains, block.nodes_min, block.nodes_max) == (BLOCK, 2, 1, 5)
    assert (
        rack_level.domains,
        rack_level.nodes_median,
        rack_level.capacity_min,
        rack_level.capacity_max,
    ) == (
        3,
        2,
        4,
        12,
    )
    assert rack_level.resource == GPU
    assert (rack_level.free_total, rack_level.free_max) == (21, 9)  # r2: 12 - 3
    assert (host.domains, host.capacity_max, host.free_max) == (6, 4, 4)


def test_partial_labels_are_errors() -> None:
    nodes = [*rack("b1", "r1", 1), node("half").labels({BLOCK: "b1"}).build()]
    report = lint(LEVELS, nodes)
    assert [p.path for p in report.errors] == ["nodes[half].metadata.labels"]
    assert report.warnings == [] and report.outside == 1


def test_a_rack_value_under_two_blocks_is_a_warning() -> None:
    report = lint(LEVELS, rack("b1", "r1", 1) + rack("b2", "r1", 1))
    (warning,) = report.warnings
    assert warning.path == f"nodes.metadata.labels[{RACK}]"
    assert "'r1' appears under 2 different" in warning.message and "b1, b2" in warning.message
    assert report.errors == []


def test_domains_without_a_schedulable_node_are_reported_at_their_highest_level() -> None:
    down = [
        node(f"d{i}").at(block="b2", rack=f"x{i}").alloc(**{GPU: 4}).not_ready().build() for i in range(2)
    ]
    cordoned = node("c").at(block="b1", rack="r9").alloc(**{GPU: 4}).cordoned().build()
    report = lint(LEVELS, [*rack("b1", "r1", 1), cordoned, *down])
    assert [p.path for p in report.warnings] == [f"domains[{BLOCK}=b2]", f"domains[{RACK}=b1/r9]"]
    assert "2 NotReady" in report.warnings[0].message and "1 cordoned" in report.warnings[1].message


def test_mixed_node_shapes_in_a_rack() -> None:
    report = lint(
        LEVELS, [*rack("b1", "r1", 3), node("big").at(block="b1", rack="r1").alloc(**{GPU: 8}).build()]
    )
    (warning,) = report.warnings
    assert warning.path == f"domains[{RACK}=b1/r1]"
    assert f"3 x {GPU}=4; 1 x {GPU}=8" in warning.message
