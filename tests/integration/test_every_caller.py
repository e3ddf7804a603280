"""Every caller gives the same answer: the same pods (Kueue pod groups, KAI PodGroups with their
pods) on the same cluster get the same placement, or the same refusal, from ``toposched place``'s
path, the service's (one submission, one cycle), the simulator's (its first cycle) and the
controller's (its ungater over the in-memory ``FakeKubeApi``, reading the cluster, the gang and
the running pods from the API objects), each with its own defaults, which are the same.

The controller also writes what it decided: each admitted pod is pinned by ``nodeSelector`` to
the node the placement names. ``test_one_path`` compares the other callers on every front end's
Jobs and workflows, which the controller does not take (it acts on pods)."""

from __future__ import annotations

import random
from typing import Any

from tests.controller.cluster import HOST, RACK, TOPOLOGY, ZONE, controller, pod, trainer
from tests.controller.fake_kube import FakeKubeApi

from toposched.controller.keys import GATE
from toposched.controller.kubeapi import KAI_PODGROUPS, KUEUE_TOPOLOGIES, NODES, PODS
from toposched.engine import PlacementOptions
from toposched.intake.cluster.loader import cluster_from_objects
from toposched.model import Cluster, Policy, Search
from toposched.scheduler import SchedulerConfig
from toposched.sim.config import SimConfig
from toposched.store import WorkloadState
from toposched.wire.core import node_object, pod_object
from toposched.wire.kueue import topology_object

from .one_path import Answer, stored_answer, via_cli, via_service, via_simulator

DEFAULT = Search.COMPLETE  # every caller's default search
GANGS = 260  # per front end: 520 in all
STEPS = 3  # ungater passes: record the gang, place it, ungate its pods


def cluster_objects(rng: random.Random) -> list[dict[str, Any]]:
    """1-2 zones x 2-3 racks x 2-3 nodes of 4 or 8 GPUs, some already partly used by pods that
    run there."""
    objects: list[dict[str, Any]] = [topology_object(TOPOLOGY)]
    for z in range(rng.randint(1, 2)):
        for r in range(rng.randint(2, 3)):
            for n in range(rng.randint(2, 3)):
                name, gpus = f"z{z}-r{r}-n{n}", rng.choice([4, 8])
                labels = {ZONE: f"z{z}", RACK: f"z{z}-r{r}", HOST: name}
                objects.append(node_object(name, labels, {"nvidia.com/gpu": str(gpus), "pods": "110"}))
                used = rng.randint(0, gpus)
                if used:
                    spec = {"nodeName": name, "containers": [trainer(used)]}
                    objects.append(pod_object(f"{name}-used", "other", spec=spec, phase="Running"))
    return objects


def gated(name: str, gpus: int, labels: dict[str, str], annotations: dict[str, str]) -> dict[str, Any]:
    spec = {"schedulingGates": [{"name": GATE}], "containers": [trainer(gpus)]}
    return pod_object(name, "default", labels=labels, annotations=annotations, spec=spec, phase="Pending")


def kueue_gang(rng: random.Random) -> list[dict[str, Any]]:
    """A Kueue pod group: 1-6 pods of 1-8 GPUs, required or preferred in a rack or zone, or
    unconstrained."""
    pods, gpus = rng.randint(1, 6), rng.randint(1, 8)
    annotations = {"kueue.x-k8s.io/pod-group-total-count": str(pods)}
    mode = rng.choice(["required", "preferred", None])
    if mode:
        annotations[f"kueue.x-k8s.io/podset-{mode}-topology"] = rng.choice([RACK, ZONE])
    labels = {"kueue.x-k8s.io/pod-group-name": "g"}
    return [gated(f"p{i}", gpus, labels, annotations) for i in range(pods)]


def kai_gang(rng: random.Random) -> list[dict[str, Any]]:
    """A KAI PodGroup of 1-6 pods of 1-8 GPUs, required or preferred in a rack or zone, or
    unconstrained, and its pods."""
    pods, gpus = rng.randint(1, 6), rng.randint(1, 8)
    spec: dict[str, Any] = {"minMember": pods, "queue": "default-queue"}
    mode = rng.choice(["required", "preferred", None])
    if mode:
        level = rng.choice([RACK, ZONE])
        spec["topologyConstraint"] = {"topology": TOPOLOGY.name, f"{mode}TopologyLevel": level}
    group = {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "pg", "namespace": "default"},
        "spec": spec,
    }
    labels = {"kai.scheduler/queue": "default-queue"}
    return [group, *(gated(f"p{i}", gpus, labels, {"pod-group-name": "pg"}) for i in range(pods))]


def via_controller(
    documents: list[dict[str, Any]], objects: list[dict[str, Any]], policy: Policy | None
) -> Answer | None:
    """The ungater's answer once the gang is whole (None: it recorded no workload), after
    checking that every admitted pod is pinned to its placement's node."""
    api = FakeKubeApi()
    for obj in objects:
        api.put({"Topology": KUEUE_TOPOLOGIES, "Node": NODES}.get(obj["kind"], PODS), obj)
    for doc in documents:
        api.put(KAI_PODGROUPS if doc["kind"] == "PodGroup" else PODS, doc)
    ctl = controller(api, policy=policy)
    for _ in range(STEPS):
        ctl.step()
    (record, *others) = ctl.scheduler.list() or [None]
    if record is None:
        return None
    assert not others
    answer = stored_answer(record)
    names = [doc["metadata"]["name"] for doc in documents if doc["kind"] == "Pod"]
    pinned = {name: pod(api, name)["spec"].get("nodeSelector", {}).get(HOST) for name in names}
    if record.state is WorkloadState.ADMITTED:
        assert pinned == {name: node for _, name, _, node in answer.pods}
    else:
        assert set(pinned.values()) == {None}
    return answer


def cluster_of(objects: list[dict[str, Any]]) -> Cluster:
    """The cluster as ``toposched place`` reads the same objects from a file."""
    on, warnings = cluster_from_objects(objects)
    assert not warnings
    return on


def check(make: Any, seed: int, tmp_path: Any) -> tuple[int, int]:
    """``GANGS`` random gangs from ``make``; the numbers placed and refused."""
    rng = random.Random(seed)
    placed = refused = 0
    for run in range(GANGS):
        objects = cluster_objects(rng)
        documents = make(rng)
        on = cluster_of(objects)
        policy = rng.choice([None, *Policy])
        cli = via_cli(documents, on, policy=policy, search=DEFAULT)
        service = via_service(documents, on, tmp_path / f"{run}.db", policy=policy, search=DEFAULT)
        simulated = via_simulator(documents, on, policy=policy, search=DEFAULT)
        controlled = via_controller(documents, objects, policy)
        assert cli == service == simulated == controlled, (run, policy, documents)
        placed += cli.placed
        refused += not cli.placed
    return placed, refused


def test_the_callers_defaults_are_the_same() -> None:
    assert SchedulerConfig().options() == PlacementOptions()  # the service's and the controller's
    assert PlacementOptions().search is SimConfig().scheduler.search is DEFAULT


def test_kueue_pod_groups_get_the_same_answer_from_every_caller(tmp_path: Any) -> None:
    placed, refused = check(kueue_gang, 1, tmp_path)
    assert placed > GANGS // 3 and refused > GANGS // 10  # both kinds of answer are compared


def test_kai_pod_groups_get_the_same_answer_from_every_caller(tmp_path: Any) -> None:
    placed, refused = check(kai_gang, 2, tmp_path)
    assert placed > GANGS // 3 and refused > GANGS // 10
