"""A gated gang of each front end, as that front end's own controllers write it into a cluster,
for the tests on the real API server: three pods of 4 GPUs that must share a rack. The pods come
first; ``Gang.last`` then writes what makes the gang whole (its last pod, its PodGroup, its
topology). Every name starts with ``prefix``, so several gangs can share one namespace."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import yaml
from tests.controller.cluster import (
    kai_pod,
    kai_podgroup,
    kube_child,
    kube_composite,
    kube_pod,
    kube_podgroup,
    kueue_pod,
    trainer,
)
from tests.controller.real_cluster import HOST, RACK, ZONE, RealCluster

from toposched.controller.keys import GATE
from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    KUBE_COMPOSITE_PODGROUPS,
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    PODS,
    Object,
    Resource,
)
from toposched.frontends.kube.gang import ALL_NODES
from toposched.frontends.osmo import compile_osmo
from toposched.wire.core import pod_object
from toposched.wire.grove import cluster_topology_object
from toposched.wire.kai import topology_object as kai_topology_object


@dataclass(frozen=True, slots=True)
class Gang:
    pods: list[Object]  # written first
    last: Callable[[RealCluster], None]  # writes the rest
    topology: str  # the topology it is placed on: the one its spec names, else the controller's
    names: list[str]  # every pod's, those ``last`` writes included

    def create(self, cluster: RealCluster) -> None:
        for pod in self.pods:
            cluster.create(PODS, pod)
        self.last(cluster)


def _gang(pods: list[Object], last: Callable[[RealCluster], None], topology: str) -> Gang:
    return Gang(pods, last, topology, [str(p["metadata"]["name"]) for p in pods])


def kueue_gang(cluster: RealCluster, prefix: str = "") -> Gang:
    """A Kueue pod group (label and total-count annotation) on the controller's topology."""
    pods = [kueue_pod(f"{prefix}p{i}", f"{prefix}g", total=3, level=RACK, gpus=4) for i in range(3)]
    names = [str(p["metadata"]["name"]) for p in pods]
    return Gang(pods[:2], lambda c: _create(c, PODS, pods[2]), cluster.topology().name, names)


def kai_gang(cluster: RealCluster, prefix: str = "") -> Gang:
    """A KAI PodGroup naming a KAI Topology of its own."""
    topology = cluster.topology(f"{cluster.run}-{prefix}kai")
    group = kai_podgroup(f"{prefix}pg", min_member=3, level=RACK, topology=topology.name)

    def last(c: RealCluster) -> None:
        c.create(KAI_TOPOLOGIES, kai_topology_object(topology.name, topology.levels))
        c.create(KAI_PODGROUPS, group)

    return _gang([kai_pod(f"{prefix}w{i}", f"{prefix}pg", gpus=4) for i in range(3)], last, topology.name)


OSMO_WORKFLOW = """
workflow:
  name: {name}
  groups:
  - name: group1
    tasks:
    - {{name: {prefix}shard-0, image: trainer}}
    - {{name: {prefix}shard-1, image: trainer}}
    - {{name: {prefix}shard-2, image: trainer}}
resources:
  default:
    gpu: 4
    topology:
    - key: rack
"""


def osmo_gang(cluster: RealCluster, prefix: str = "") -> Gang:
    """What OSMO writes for a workflow on a KAI pool: the pool's KAI Topology, the group's
    PodGroup and its pods annotated with it (compiled by toposched's OSMO front end)."""
    pool = {
        "name": f"{prefix}pool",
        "backend": {
            "name": "backend-a",
            "k8s_namespace": cluster.namespace,
            "scheduler_settings": {"scheduler_type": "kai", "scheduler_name": "kai-scheduler"},
        },
        "topology_keys": [
            {"key": "zone", "label": ZONE},
            {"key": "rack", "label": RACK},
            {"key": "host", "label": HOST},
        ],
    }
    workflow = OSMO_WORKFLOW.format(name=f"{prefix}train", prefix=prefix)
    compiled = compile_osmo(yaml.safe_load(workflow), pool)
    pods = [
        {**task, "spec": {**task["spec"], "schedulingGates": [{"name": GATE}], "containers": [trainer(4)]}}
        for task in compiled["pods"].values()
    ]

    def last(c: RealCluster) -> None:
        c.create(KAI_TOPOLOGIES, compiled["topology"])
        for podgroup in compiled["podGroups"].values():
            c.create(KAI_PODGROUPS, podgroup)

    return _gang(pods, last, str(compiled["topology"]["metadata"]["name"]))


def grove_gang(cluster: RealCluster, prefix: str = "") -> Gang:
    """A Grove PodGang of a router and two decoders, as KAI runs it: the KAI PodGroup named
    after the PodGang (a subgroup per clique), its pods labelled with the PodGang and their
    subgroup and annotated with the PodGroup (as KAI's PodGrouper does; the KAI front end reads a
    pod without that annotation as not in the PodGroup); the topology a Grove ClusterTopology."""
    topology = cluster.topology(f"{cluster.run}-{prefix}grove")
    gang = f"{prefix}serve-0"
    podgroup = {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": gang, "annotations": {"kai.scheduler/skip-podgrouper": "true"}},
        "spec": {
            "minMember": 3,
            "queue": "inference",
            "topologyConstraint": {"topology": topology.name, "requiredTopologyLevel": RACK},
            "subGroups": [
                {"name": f"{gang}-router", "minMember": 1},
                {"name": f"{gang}-decode", "minMember": 2},
            ],
        },
    }
    cliques = {"router-0": "router", "decode-0": "decode", "decode-1": "decode"}
    pods = [
        pod_object(
            f"{gang}-{name}",
            "default",
            labels={"grove.io/podgang": gang, "kai.scheduler/subgroup-name": f"{gang}-{clique}"},
            annotations={"pod-group-name": gang},
            spec={"schedulingGates": [{"name": GATE}], "containers": [trainer(4)]},
        )
        for name, clique in cliques.items()
    ]

    def last(c: RealCluster) -> None:
        c.create(GROVE_CLUSTER_TOPOLOGIES, cluster_topology_object(topology))
        c.create(KAI_PODGROUPS, podgroup)

    return _gang(pods, last, topology.name)


def kube_podgroup_gang(cluster: RealCluster, prefix: str = "") -> Gang:
    """An upstream PodGroup whose constraint is the rack (it brings its own topologies)."""
    group = kube_podgroup(f"{prefix}workers", min_count=3, key=RACK)
    pods = [kube_pod(f"{prefix}w{i}", f"{prefix}workers", gpus=4) for i in range(3)]
    return _gang(pods, lambda c: _create(c, KUBE_PODGROUPS, group), ALL_NODES)


def kube_tree_gang(cluster: RealCluster, prefix: str = "") -> Gang:
    """A CompositePodGroup (one rack) over a leader PodGroup and a workers PodGroup."""
    root, leader, workers = f"{prefix}train", f"{prefix}leader", f"{prefix}workers"
    members = {f"{prefix}l0": leader, f"{prefix}w0": workers, f"{prefix}w1": workers}

    def last(c: RealCluster) -> None:
        c.create(KUBE_COMPOSITE_PODGROUPS, kube_composite(root, key=RACK))
        c.create(KUBE_PODGROUPS_V1ALPHA3, kube_child(leader, root, 1))
        c.create(KUBE_PODGROUPS_V1ALPHA3, kube_child(workers, root, 2))

    return _gang([kube_pod(n, g, gpus=4) for n, g in members.items()], last, ALL_NODES)


FRONT_ENDS: dict[str, Callable[[RealCluster, str], Gang]] = {
    "kueue-pod-group": kueue_gang,
    "kai-podgroup": kai_gang,
    "osmo-pod-group-name": osmo_gang,
    "grove-podgang": grove_gang,
    "kube-podgroup": kube_podgroup_gang,
    "kube-composite-tree": kube_tree_gang,
}


def _create(cluster: RealCluster, resource: Resource, obj: Object) -> None:
    cluster.create(resource, obj)
