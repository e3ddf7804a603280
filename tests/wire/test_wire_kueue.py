"""Kueue wire objects: the Topology in every served version (v1alpha1 checked against its CRD
schema), the Workload admission shape, and the ungater's pod patch applied to a pod."""

from __future__ import annotations

import re

import pytest

from integration.conftest import SCHEMAS, validate
from toposched.model import HOSTNAME, SpecError, Topology
from toposched.wire.kueue import (
    TOPOLOGY_GATE,
    PodSetAssignment,
    apply_pod_patch,
    topology_object,
    ungate_patch,
    workload_admission,
)

BLOCK = "cloud.provider.com/topology-block"
RACK = "cloud.provider.com/topology-rack"
WITH_HOSTS = Topology.create("hosts", [BLOCK, RACK, HOSTNAME], {"rack": RACK})


def test_topology_lists_levels_coarsest_first_without_aliases() -> None:
    assert topology_object(WITH_HOSTS) == {
        "apiVersion": "kueue.x-k8s.io/v1beta2",
        "kind": "Topology",
        "metadata": {"name": "hosts"},
        "spec": {"levels": [{"nodeLabel": BLOCK}, {"nodeLabel": RACK}, {"nodeLabel": HOSTNAME}]},
    }


def test_topology_matches_the_v1alpha1_schema() -> None:
    obj = topology_object(WITH_HOSTS, "kueue.x-k8s.io/v1alpha1")
    validate(obj, SCHEMAS / "kai" / "legacy-kueue.x-k8s.io_topologies.yaml")


@pytest.mark.parametrize("version", ["kueue.x-k8s.io/v1alpha1", "kueue.x-k8s.io/v1beta1", "v1beta1"])
def test_topology_older_versions(version: str) -> None:
    assert topology_object(WITH_HOSTS, version)["apiVersion"] == "kueue.x-k8s.io/" + version.split("/")[-1]


def test_topology_rejects_unknown_version() -> None:
    with pytest.raises(SpecError, match=re.escape("unsupported Kueue API version 'kai.scheduler/v1alpha1'")):
        topology_object(WITH_HOSTS, "kai.scheduler/v1alpha1")


def test_workload_admission_keeps_pod_set_order() -> None:
    encoded = {"levels": [HOSTNAME], "domains": [{"values": ["n1"], "count": 1}]}
    patch = workload_admission(
        "job", "v1beta1", [PodSetAssignment("workers", 3, encoded), PodSetAssignment("leader", 1, encoded)]
    )
    assert patch["apiVersion"] == "kueue.x-k8s.io/v1beta1" and patch["metadata"] == {"name": "job"}
    entries = patch["status"]["admission"]["podSetAssignments"]
    assert [(e["name"], e["count"], e["topologyAssignment"]) for e in entries] == [
        ("workers", 3, encoded),
        ("leader", 1, encoded),
    ]


def test_ungate_patch_applied_merges_the_selector_and_removes_only_the_topology_gate() -> None:
    pod = {"spec": {"nodeSelector": {"a": "1"}, "schedulingGates": [{"name": TOPOLOGY_GATE}, {"name": "q"}]}}
    patched = apply_pod_patch(pod, ungate_patch({HOSTNAME: "n1"}))
    assert patched["spec"] == {"nodeSelector": {"a": "1", HOSTNAME: "n1"}, "schedulingGates": [{"name": "q"}]}
    assert apply_pod_patch({"spec": {"schedulingGates": [{"name": TOPOLOGY_GATE}]}}, ungate_patch({})) == {
        "spec": {"nodeSelector": {}}
    }
