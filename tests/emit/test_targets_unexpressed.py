"""What each target says it cannot express (``Translation.unexpressed``): one sentence per lost
constraint, naming the group, the constraint and what was written instead; and a gang every
target expresses in full.

Topology of every gang here (levels coarsest first)::

    zone
     └─ rack
         └─ host
"""

from __future__ import annotations

from typing import Any

import pytest

from builders import RACK, ZONE, topology
from toposched.emit.targets import TARGETS, VERSIONED
from toposched.model import HOSTNAME, Gang, Group, PodSpec, Resources, SliceLayer
from toposched.wire.kueue import REQUIRED, SLICE_REQUIRED, SLICE_SIZE

TOPOLOGY = topology("zone", "rack", "host")


def leaf(name: str, pods: int, *, running: str | None = None, **constraint: Any) -> Group:
    cpu = Resources.parse({"cpu": "1"})
    return Group(
        name,
        pods=tuple(PodSpec(f"{name}-{i}", i, cpu, node=running if i == 0 else None) for i in range(pods)),
        **constraint,
    )


def gang(*children: Group, **root: Any) -> Gang:
    return Gang("job", Group("root", children=children, **root))


CASES = [
    pytest.param(
        "kueue",
        gang(leaf("workers", 4, required=RACK, min_member=2)),
        "group workers: Kueue admits all pods of a workload; minMember 2 written as all 4",
        id="kueue-min-member-below-size",
    ),
    pytest.param(
        "kueue",
        gang(leaf("a", 2, required=RACK), leaf("b", 3, required=RACK), required=ZONE),
        "group root: Kueue cannot constrain several PodSets together; required zone left out",
        id="kueue-constraint-over-podsets",
    ),
    pytest.param(
        "kueue",
        gang(leaf("a", 2, required=ZONE, preferred=RACK)),
        "group a: a PodSet has one level; preferred rack left out, required zone kept",
        id="kueue-required-and-preferred",
    ),
    pytest.param(
        "kueue",
        gang(
            Group("mid", required=ZONE, children=(leaf("a", 2, required=RACK), leaf("b", 3, required=RACK))),
            leaf("c", 1),
        ),
        "group mid: Kueue has no nested groups; required zone over its 5 pods left out",
        id="kueue-nested-group",
    ),
    pytest.param(
        "kueue",
        gang(leaf("a", 2, running="n1")),
        "group a: Kueue has no running pods in a workload; a-0 written as pending",
        id="kueue-running-pod",
    ),
    pytest.param(
        "kueue",
        gang(leaf("a", 2, required=RACK), leaf("b", 3, required=RACK), min_sub_group=1),
        "group root: Kueue has no minimum of subgroups; minSubGroup 1 written as all 2",
        id="kueue-min-sub-group",
    ),
    pytest.param(
        "kai",
        gang(leaf("a", 4, required=RACK, slices=(SliceLayer(HOSTNAME, 2),))),
        "group a: KAI has no slices; every 2 pods in one node left out",
        id="kai-slices",
    ),
    pytest.param(
        "kai",
        gang(Group("mid", min_member=2, children=(leaf("a", 2), leaf("b", 2)))),
        "group mid: KAI sets no minimum on a group with children; minMember 2 written as its children's 4",
        id="kai-inner-min-member",
    ),
    pytest.param(
        "kai",
        gang(leaf("a", 2, required=RACK, topology="other")),
        "group a: constraint on topology other written on default",
        id="kai-other-topology",
    ),
    pytest.param(
        "grove",
        gang(leaf("a", 4, required=RACK, slices=(SliceLayer(HOSTNAME, 2),))),
        "group a: Grove has no slices; every 2 pods in one node left out",
        id="grove-slices",
    ),
    pytest.param(
        "grove",
        gang(
            leaf("c", 1),
            Group("sg", children=(Group("deep", required=RACK, children=(leaf("a", 1), leaf("b", 1))),)),
        ),
        "group deep: Grove has no groups below a scaling group; required rack over its 2 pods left out",
        id="grove-deeper-than-scaling-group",
    ),
    pytest.param(
        "grove",
        gang(leaf("a", 2), leaf("b", 2), min_sub_group=1),
        "group root: Grove has no minimum of subgroups; minSubGroup 1 written as all 2",
        id="grove-min-sub-group",
    ),
    pytest.param(
        "grove",
        gang(leaf("a", 2, running="n1")),
        "group a: Grove has no running pods in a workload; a-0 written as pending",
        id="grove-running-pod",
    ),
]


@pytest.mark.parametrize(("target", "subject", "sentence"), CASES)
def test_target_names_what_it_cannot_express(target: str, subject: Gang, sentence: str) -> None:
    assert TARGETS[target](subject, TOPOLOGY).unexpressed == (sentence,)


# Every 4 pods in one rack, all 8 in one zone: KAI subgroups, Grove cliques, one Kueue PodSet
# with a slice layer.
RACKS_IN_A_ZONE = gang(leaf("model-1", 4, required=RACK), leaf("model-2", 4, required=RACK), required=ZONE)


# A constraint over several groups needs kube-scheduler's CompositePodGroup (v1alpha3 only).
FULLEST = {"kube": "scheduling.k8s.io/v1alpha3"}


@pytest.mark.parametrize("target", list(TARGETS))
def test_every_target_expresses_racks_in_a_zone(target: str) -> None:
    compiler = VERSIONED[target](FULLEST[target]) if target in FULLEST else TARGETS[target]
    result = compiler(RACKS_IN_A_ZONE, TOPOLOGY)
    assert result.target == target
    assert result.unexpressed == ()


def test_kueue_writes_equal_subgroups_as_one_podset_with_slices() -> None:
    (_, job) = TARGETS["kueue"](RACKS_IN_A_ZONE, TOPOLOGY).objects
    assert job["kind"] == "Job" and job["spec"]["parallelism"] == 8
    assert job["spec"]["template"]["metadata"]["annotations"] == {
        REQUIRED: ZONE,
        SLICE_REQUIRED: RACK,
        SLICE_SIZE: "4",
    }


def test_kai_keeps_running_pods_on_their_nodes_and_joins_pods_to_leaf_subgroups() -> None:
    subject = gang(leaf("leader", 1), leaf("workers", 2, required=RACK, running="n1"))
    objects = TARGETS["kai"](subject, TOPOLOGY).objects
    pods = {o["metadata"]["name"]: o for o in objects if o["kind"] == "Pod"}
    assert pods["workers-0"]["spec"]["nodeName"] == "n1"
    assert pods["workers-1"]["metadata"]["labels"] == {
        "kai.scheduler/subgroup-name": "workers",
        "kai.scheduler/queue": "default-queue",  # the input names none: KAI's fallback queue
    }
    assert pods["leader-0"]["metadata"]["annotations"] == {"pod-group-name": "job"}


def test_grove_packs_by_domain_name() -> None:
    (_, pcs) = TARGETS["grove"](RACKS_IN_A_ZONE, TOPOLOGY).objects
    template = pcs["spec"]["template"]
    assert "clusterTopologyName" not in template  # GREP-369's draft field: not in Grove's CRD
    assert template["topologyConstraint"] == {"topologyName": "default", "pack": {"required": "zone"}}
    assert [(c["name"], c["topologyConstraint"]) for c in template["cliques"]] == [
        ("model-1", {"topologyName": "default", "pack": {"required": "rack"}}),
        ("model-2", {"topologyName": "default", "pack": {"required": "rack"}}),
    ]
