"""One path: every conformance placement case (faithful search) and hundreds of random workloads
of all four front ends (complete search) give the same placement (or the same reason) through
``toposched place``'s path and through the service's (real SQLite store, one cycle), each pair
in the same search mode.

Conformance cases describe gangs in the IR, so a front end registered for this test turns a case
document into its gang; everything after compilation (topology choice, snapshots of every
topology a gang names, engine, encoding) is the real code of each path."""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import BLOCK, HOST, RACK, node
from conformance import kai_case, kueue_case
from conformance.loader import Case, params
from toposched.frontends.osmo import parse_pool
from toposched.frontends.registry import CompileContext, Compiled, Documents, PoolEntry, default_registry
from toposched.model import Cluster, Policy, Resources, RunningPod, Search, Topology

from .one_path import Answer, via_cli, via_service, via_simulator

CASE_KIND = "ConformanceCase"
GPU = "nvidia.com/gpu"  # what OSMO's ``gpu`` asks for


@dataclass(frozen=True)
class CaseFrontend:
    """Reads ``{kind: ConformanceCase, source: kueue|kai, case: {...}}``: the case's gang."""

    name: str = "conformance"
    kinds: frozenset[str] = frozenset({CASE_KIND})
    input_names_topology: bool = False
    membership: None = None  # its pods are not a running cluster's

    def recognises(self, documents: Documents) -> bool:
        return any(d.get("kind") == CASE_KIND for d in documents)

    def compile(self, documents: Documents, context: CompileContext) -> Compiled:
        (doc,) = documents
        data = doc["case"]
        if doc["source"] == "kueue":
            gang = replace(kueue_case.gang_of(data), policy=kueue_case.policy_of(data))
        else:
            gang = kai_case.gang_of(data)
            gang = replace(gang, policy=Policy.BINPACK, topology=gang.topology or data["topology"]["name"])
        return Compiled(self.name, gang)


def registry_with_cases() -> Any:
    registry = default_registry()
    registry.register(CaseFrontend(), first=True)
    return registry


def cluster_of_case(source: str, data: Mapping[str, Any]) -> Cluster:
    if source == "kueue":
        nodes, pods = kueue_case.nodes_of(data)
        return Cluster.create(nodes, pods, [kueue_case.topology_of(data)])
    nodes, pods = kai_case.nodes_of(data)
    return Cluster.create(nodes, pods, kai_case.topologies_of(data))


def both(documents: list[Any], cluster: Cluster, db: Path, **kwargs: Any) -> tuple[Answer, Answer]:
    return via_cli(documents, cluster, **kwargs), via_service(documents, cluster, db, **kwargs)


@pytest.mark.parametrize(
    ("source", "case"),
    [pytest.param("kueue", p.values[0], id=p.id) for p in params("kueue", ["placement"])]
    + [pytest.param("kai", p.values[0], id=p.id) for p in params("kai", ["placement"])],
)
def test_conformance_cases_place_alike_on_both_paths(source: str, case: Case, tmp_path: Path) -> None:
    documents = [{"kind": CASE_KIND, "source": source, "case": case.data}]
    registry = registry_with_cases()
    cluster = cluster_of_case(source, case.data)
    cli, service = both(documents, cluster, tmp_path / "s.db", registry=registry)
    assert cli == service


# -- random workloads of every front end ----------------------------------------------------------

ALIASES = {"block": BLOCK, "rack": RACK, "host": HOST}
TOPOLOGY = Topology.create("default", [BLOCK, RACK, HOST], ALIASES)
POOL = {
    "name": "pool",
    "backend": {"name": "be", "k8s_namespace": "osmo", "scheduler_settings": {"scheduler_type": "kai"}},
    "topology_keys": [{"key": "block", "label": BLOCK}, {"key": "rack", "label": RACK}],
}


@st.composite
def clusters(draw: st.DrawFn) -> Cluster:
    """2 blocks x 2-3 racks x 2-3 nodes of 4 or 8 GPUs, some already partly used."""
    nodes, pods = [], []
    for b, r in itertools.product(range(2), range(draw(st.integers(2, 3)))):
        for n in range(draw(st.integers(2, 3))):
            name = f"b{b}-r{r}-n{n}"
            gpus = draw(st.sampled_from([4, 8]))
            nodes.append(node(name).at(block=f"b{b}", rack=f"b{b}-r{r}").alloc(**{GPU: gpus}).build())
            used = draw(st.integers(0, gpus))
            if used:
                pods.append(RunningPod(f"{name}-used", "other", name, Resources({GPU: used})))
    return Cluster.create(nodes, pods, [TOPOLOGY])


levels = st.sampled_from(["block", "rack"])
modes = st.sampled_from(["required", "preferred", None])


def container(gpu: int) -> dict[str, Any]:
    return {"name": "main", "image": "busybox", "resources": {"requests": {GPU: str(gpu)}}}


@st.composite
def kueue_jobs(draw: st.DrawFn) -> list[Any]:
    pods, gpu, mode, level = draw(st.integers(1, 10)), draw(st.integers(1, 4)), draw(modes), draw(levels)
    annotations = {f"kueue.x-k8s.io/podset-{mode}-topology": ALIASES[level]} if mode else {}
    if mode and pods % 2 == 0 and draw(st.booleans()):
        annotations |= {
            "kueue.x-k8s.io/podset-slice-required-topology": RACK,
            "kueue.x-k8s.io/podset-slice-size": "2",
        }
    spec = {"metadata": {"annotations": annotations}, "spec": {"containers": [container(gpu)]}}
    return [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "job", "namespace": "default"},
            "spec": {"parallelism": pods, "completions": pods, "completionMode": "Indexed", "template": spec},
        }
    ]


@st.composite
def kai_jobs(draw: st.DrawFn) -> list[Any]:
    pods, gpu, mode, level = draw(st.integers(1, 10)), draw(st.integers(1, 4)), draw(modes), draw(levels)
    annotations = {"kai.scheduler/topology": "default"}
    if mode:
        annotations[f"kai.scheduler/topology-{mode}-placement"] = level
    return [
        {
            "apiVersion": "batch/v1",
            "kind": "Job",
            "metadata": {"name": "kai-job", "namespace": "default", "uid": "u1", "annotations": annotations},
            "spec": {
                "parallelism": pods,
                "completions": pods,
                "template": {"spec": {"containers": [container(gpu)]}},
            },
        }
    ]


@st.composite
def osmo_workflows(draw: st.DrawFn) -> list[Any]:
    resources: dict[str, Any] = {}
    tasks = []
    with_topology, shared = draw(st.booleans()), draw(st.booleans())
    for r in range(draw(st.integers(1, 3))):
        level = draw(levels)
        requirement = [{"key": level, "group": f"g{r}"}] if with_topology else []
        if requirement and level == "rack" and shared:
            requirement.append({"key": "block", "group": "all"})
        resources[f"res{r}"] = {"gpu": draw(st.integers(1, 4)), "topology": requirement}
        tasks += [
            {"name": f"t{r}-{i}", "image": "busybox", "command": ["run"], "resource": f"res{r}"}
            for i in range(draw(st.integers(1, 4)))
        ]
    return [
        {"workflow": {"name": "wf", "groups": [{"name": "group1", "tasks": tasks}]}, "resources": resources}
    ]


@st.composite
def grove_sets(draw: st.DrawFn) -> list[Any]:
    cliques = [
        {
            "name": f"c{c}",
            "spec": {
                "replicas": draw(st.integers(1, 4)),
                "podSpec": {"containers": [container(draw(st.integers(1, 4)))]},
            },
        }
        for c in range(draw(st.integers(1, 2)))
    ]
    if draw(st.booleans()):
        cliques[0]["topologyConstraint"] = {"packDomain": draw(st.sampled_from(["rack", "host"]))}
    return [
        {
            "apiVersion": "grove.io/v1alpha1",
            "kind": "PodCliqueSet",
            "metadata": {"name": "pcs", "namespace": "default", "labels": {"kai.scheduler/queue": "q"}},
            "spec": {
                "replicas": draw(st.integers(1, 2)),
                "template": {
                    "clusterTopologyName": "default",
                    "topologyConstraint": {"packDomain": draw(levels)},
                    "cliques": cliques,
                },
            },
        }
    ]


WORKLOADS = {"kueue": kueue_jobs(), "kai": kai_jobs(), "osmo": osmo_workflows(), "grove": grove_sets()}
RUNS = 130  # per front end: 520 random workloads in all


@pytest.mark.parametrize("frontend", sorted(WORKLOADS))
def test_random_workloads_place_alike_on_every_path(
    frontend: str, tmp_path_factory: pytest.TempPathFactory
) -> None:
    runs = itertools.count()

    @settings(max_examples=RUNS, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck))
    @given(documents=WORKLOADS[frontend], cluster=clusters())
    def check(documents: list[Any], cluster: Cluster) -> None:
        cli_pools = {"pool": PoolEntry(parse_pool(POOL))} if frontend == "osmo" else None
        service_pools = {"pool": POOL} if frontend == "osmo" else None
        db = tmp_path_factory.mktemp("db") / f"{next(runs)}.db"
        cli = via_cli(documents, cluster, pools=cli_pools, search=Search.COMPLETE)
        service = via_service(documents, cluster, db, pools=service_pools, search=Search.COMPLETE)
        simulated = via_simulator(documents, cluster, pools=service_pools, search=Search.COMPLETE)
        assert cli == service == simulated

    check()


def test_a_kai_subgroup_may_name_a_second_stored_topology(tmp_path: Path) -> None:
    """The PodGroup packs in a zone of topology ``zones``; its workers in a rack of ``racks``.
    The service once refused it ("Requested topology ... does not exist"): it gave the engine only
    the PodGroup's own topology."""
    zone = "topology.kubernetes.io/zone"
    zones = Topology.create("zones", [zone, HOST], {"zone": zone})
    racks = Topology.create("racks", [RACK, HOST], {"rack": RACK})
    nodes = [
        node(f"{z}-{r}-{n}").at(rack=f"{z}-{r}").labels({zone: z}).alloc(**{GPU: 4}).build()
        for z in ("za", "zb")
        for r in ("r1", "r2")
        for n in range(2)
    ]
    cluster = Cluster.create(nodes, [], [zones, racks])
    constraint = {"topology": "racks", "requiredTopologyLevel": "rack"}
    podgroup = {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "pg", "namespace": "default"},
        "spec": {
            "minMember": 3,
            "queue": "q",
            "topologyConstraint": {"topology": "zones", "requiredTopologyLevel": "zone"},
            "subGroups": [{"name": "workers", "minMember": 3, "topologyConstraint": constraint}],
        },
    }
    pods = [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {
                "name": f"worker-{i}",
                "namespace": "default",
                "annotations": {"pod-group-name": "pg"},
                "labels": {"kai.scheduler/subgroup-name": "workers"},
            },
            "spec": {"containers": [container(2)]},
        }
        for i in range(3)
    ]
    cli, service = both([podgroup, *pods], cluster, tmp_path / "s.db")
    assert service.placed, service.reason
    assert cli == service
    assert len({node_name.rsplit("-", 1)[0] for *_, node_name in service.pods if node_name}) == 1
