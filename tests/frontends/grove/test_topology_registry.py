"""The topology registry: many topology kinds, resolution, finalizers and usage."""

from __future__ import annotations

from typing import Any

from toposched.frontends.grove.operator import FINALIZER, TopologyRegistry, format_usage, usage

CONFIG = {
    "topologyAwareScheduling": {
        "enabled": True,
        "levels": [{"domain": "host", "key": "h"}, {"domain": "zone", "key": "z"}],
    },
    "scheduler": {"profiles": [{"name": "kai-scheduler"}]},
}


def ct(name: str) -> dict[str, Any]:
    levels = [{"domain": "zone", "key": "z"}, {"domain": "rack", "key": "r"}]
    return {"kind": "ClusterTopology", "metadata": {"name": name}, "spec": {"levels": levels}}


def pcs(name: str, namespace: str = "ml", **template: Any) -> dict[str, Any]:
    body = {"cliques": [{"name": "w", "spec": {"replicas": 1}}], **template}
    return {
        "kind": "PodCliqueSet",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"template": body},
    }


def registry() -> TopologyRegistry:
    reg = TopologyRegistry(CONFIG)
    reg.start(CONFIG)
    assert reg.create(ct("aws-p5")).accepted
    assert reg.create(
        pcs("llama", clusterTopologyName="aws-p5", topologyConstraint={"packDomain": "rack"})
    ).accepted
    assert reg.create(pcs("simple", "default", topologyConstraint={"packDomain": "zone"})).accepted
    assert reg.create(pcs("plain", "batch")).accepted
    return reg


def test_default_topology_comes_from_config_in_canonical_order() -> None:
    reg = registry()
    default = reg.get("ClusterTopology", "grove-topology")
    assert default is not None
    assert [lv["domain"] for lv in default["spec"]["levels"]] == ["zone", "host"]
    assert default["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "grove-operator"


def test_many_kinds_in_one_place() -> None:
    reg = registry()
    kai = {"apiVersion": "kai.scheduler/v1alpha1", "kind": "Topology", "metadata": {"name": "kai-only"},
           "spec": {"levels": [{"nodeLabel": "z", "alias": "zone"}]}}  # fmt: skip
    kueue = {"apiVersion": "kueue.x-k8s.io/v1beta1", "kind": "Topology", "metadata": {"name": "default"},
             "spec": {"levels": [{"nodeLabel": "z"}, {"nodeLabel": "kubernetes.io/hostname"}]}}  # fmt: skip
    assert reg.create(kai).accepted and reg.create(kueue).accepted
    reg.reconcile()
    names = [t.name for t in reg.topologies()]
    assert names == ["aws-p5", "grove-topology", "kai-only", "default"]
    assert reg.topology("aws-p5").resolve("rack") == "r"
    assert reg.topology("kai-only").resolve("zone") == "z"


def test_usage_lists_workloads_per_topology() -> None:
    reg = registry()
    reg.schedule_pods("ml/llama", 2)
    rows = usage(reg)
    assert [(r.label, f"{r.namespace}/{r.name}", r.scheduled_pods) for r in rows] == [
        ("(none)", "batch/plain", 0),
        ("aws-p5", "ml/llama", 2),
        ("grove-topology (default)", "default/simple", 0),
    ]
    assert format_usage(rows).splitlines()[1].split() == ["aws-p5", "ml/llama"]


def test_delete_waits_for_the_last_reference() -> None:
    reg = registry()
    reg.reconcile()
    assert reg.delete("ClusterTopology", "aws-p5").accepted
    reg.reconcile()
    marked = reg.get("ClusterTopology", "aws-p5")
    assert marked is not None and FINALIZER in marked["metadata"]["finalizers"]
    assert reg.get("KAITopology", "aws-p5") is not None
    reg.delete("PodCliqueSet", "llama", "ml")
    assert reg.get("PodGang", "llama-0", "ml") is None
    reg.reconcile()
    assert reg.get("ClusterTopology", "aws-p5") is None
    assert reg.get("KAITopology", "aws-p5") is None  # owned, so deleted with it


def test_gang_uses_the_resolved_topology() -> None:
    reg = registry()
    gang = reg.gang("default", "simple")
    assert gang.topology == "grove-topology" and gang.root.children[0].required == "z"
