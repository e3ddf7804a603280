"""Compiled groups as the IR: root constraint, subgroup tree, leaf minMember, pods by task."""

from __future__ import annotations

from pathlib import Path

import yaml

from toposched.frontends.osmo import compile_workflow, parse_pool, parse_workflow, to_gang
from toposched.model import Gang, Group, Semantics

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "osmo"


def gang_of(name: str, group: int = 0) -> Gang:
    pool = parse_pool(yaml.safe_load((EXAMPLES / f"{name}.pool.yaml").read_text()))
    wf = parse_workflow(yaml.safe_load((EXAMPLES / f"{name}.workflow.yaml").read_text()), pool)
    return to_gang(compile_workflow(wf, pool)[group])


def test_flat_gang_holds_every_pod_on_the_root() -> None:
    gang = gang_of("1-single-nvl72-rack")
    assert gang.root.required == "nvidia.com/gpu-clique"
    assert gang.min_member == 4
    assert gang.semantics is Semantics.HIERARCHY  # OSMO schedules through KAI
    assert [p.name for p in gang.root.pods] == [f"model1-shard{i}" for i in range(1, 5)]


def test_subgroups_become_child_groups_with_leaf_min_member() -> None:
    gang = gang_of("3-multiple-nvl72-same-zone")
    root: Group = gang.root
    assert (root.required, root.preferred, root.min_member) == ("topology.kubernetes.io/zone", None, None)
    assert [(c.name, c.required, c.min_member, [p.name for p in c.pods]) for c in root.children] == [
        (
            "workflow-group-model-1-group",
            "nvidia.com/gpu-clique",
            4,
            [f"model1-shard{i}" for i in range(1, 5)],
        ),
        (
            "workflow-group-model-2-group",
            "nvidia.com/gpu-clique",
            4,
            [f"model2-shard{i}" for i in range(1, 5)],
        ),
    ]
    assert gang.topology == "osmo-pool-osmo-workflows-my-pool-topology"
    assert [p.index for p in root.all_pods()] == list(range(8))
    assert root.children[0].pods[0].requests["nvidia.com/gpu"] == 8


def test_preferred_levels_carry_over() -> None:
    root: Group = gang_of("4-best-effort").root
    assert (root.required, root.preferred) == (None, "topology.kubernetes.io/spine")
    assert {c.preferred for c in root.children} == {"topology.kubernetes.io/rack"}
