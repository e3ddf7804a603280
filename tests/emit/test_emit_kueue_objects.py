"""Kueue results: the Workload admission patch and the ungater's pod patches."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.emit.kueue import from_v1beta1, from_v1beta2, node_selector_patches, workload_status_patch
from toposched.model import (
    HOSTNAME,
    DomainCount,
    Placement,
    PodPlacement,
    Policy,
    SpecError,
    Topology,
    TopologyAssignment,
)
from toposched.wire.kueue import TOPOLOGY_GATE, apply_pod_patch

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"

#   b1 ─┬─ r1 ── n1, n2
#       └─ r2 ── n3
WITH_HOSTS = Topology.create("hosts", [BLOCK, RACK, HOSTNAME])
RACKS_ONLY = Topology.create("racks", [BLOCK, RACK])


def placement(*pods: tuple[str, tuple[str, ...]]) -> Placement:
    return Placement(
        gang="job",
        topology="hosts",
        policy=Policy.MIXED,
        pods=tuple(PodPlacement(name, "workers", i, None, domain) for i, (name, domain) in enumerate(pods)),
        assignments={},
    )


ASSIGNMENTS = {
    "leader": TopologyAssignment((HOSTNAME,), (DomainCount(("n1",), 1),)),
    "workers": TopologyAssignment((HOSTNAME,), (DomainCount(("n1",), 3), DomainCount(("n2",), 4))),
}


@pytest.mark.parametrize(
    ("version", "decode"),
    [("v1beta1", from_v1beta1), ("kueue.x-k8s.io/v1beta2", from_v1beta2)],
    ids=["v1beta1", "v1beta2"],
)
def test_workload_status_patch(version: str, decode: Any) -> None:
    patch = workload_status_patch("job-abc", ASSIGNMENTS, version, namespace="team-a")
    assert patch["apiVersion"] == "kueue.x-k8s.io/" + version.split("/")[-1]
    assert patch["kind"] == "Workload"
    assert patch["metadata"] == {"name": "job-abc", "namespace": "team-a"}
    entries = patch["status"]["admission"]["podSetAssignments"]
    assert [(e["name"], e["count"]) for e in entries] == [("leader", 1), ("workers", 7)]
    assert [decode(e["topologyAssignment"]) for e in entries] == list(ASSIGNMENTS.values())


def test_workload_status_patch_rejects_unknown_version() -> None:
    with pytest.raises(SpecError, match="v1alpha1"):
        workload_status_patch("job", ASSIGNMENTS, "v1alpha1")


def test_hostname_lowest_selects_only_the_hostname() -> None:
    patches = node_selector_patches(
        placement(("job-0", ("b1", "r1", "n1")), ("job-1", ("b1", "r2", "n3"))), WITH_HOSTS
    )
    assert patches == {
        "job-0": {
            "spec": {
                "nodeSelector": {HOSTNAME: "n1"},
                "schedulingGates": [{"$patch": "delete", "name": TOPOLOGY_GATE}],
            }
        },
        "job-1": {
            "spec": {
                "nodeSelector": {HOSTNAME: "n3"},
                "schedulingGates": [{"$patch": "delete", "name": TOPOLOGY_GATE}],
            }
        },
    }


def test_rack_lowest_selects_every_level() -> None:
    patches = node_selector_patches(placement(("job-0", ("b1", "r2"))), RACKS_ONLY)
    assert patches["job-0"]["spec"]["nodeSelector"] == {BLOCK: "b1", RACK: "r2"}


def test_domain_that_does_not_match_the_topology_is_reported() -> None:
    with pytest.raises(SpecError) as info:
        node_selector_patches(placement(("job-0", ("b1", "r2"))), WITH_HOSTS)
    assert info.value.problems[0].path == "pods[job-0].domain"


def test_applying_a_patch_ungates_the_pod_and_keeps_other_gates() -> None:
    pod = {
        "metadata": {"name": "job-0"},
        "spec": {
            "nodeSelector": {"nvidia.com/gpu.product": "GB200"},
            "schedulingGates": [{"name": TOPOLOGY_GATE}, {"name": "example.com/quota"}],
        },
    }
    patch = node_selector_patches(placement(("job-0", ("b1", "r1", "n2"))), WITH_HOSTS)["job-0"]
    patched = apply_pod_patch(pod, patch)
    assert patched["spec"] == {
        "nodeSelector": {"nvidia.com/gpu.product": "GB200", HOSTNAME: "n2"},
        "schedulingGates": [{"name": "example.com/quota"}],
    }
    assert pod["spec"]["schedulingGates"][0] == {"name": TOPOLOGY_GATE}  # the input is not changed


def test_applying_a_patch_drops_an_emptied_gate_list() -> None:
    pod = {"spec": {"schedulingGates": [{"name": TOPOLOGY_GATE}]}}
    patch = node_selector_patches(placement(("job-0", ("b1", "r1"))), RACKS_ONLY)["job-0"]
    assert apply_pod_patch(pod, patch) == {"spec": {"nodeSelector": {BLOCK: "b1", RACK: "r1"}}}
