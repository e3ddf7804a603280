"""Which front end reads a ``toposched place`` input, and placing what it compiles.

Kueue workloads go through ``pipeline.place_job``. KAI workloads (``kai.scheduler/*`` keys or a
PodGroup), OSMO workflows (a ``workflow:`` document, with ``--pool``) and Grove PodCliqueSets
compile to one or more gangs; several gangs are placed in order, each on the capacity the
previous ones left, all or nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import Any

from toposched.cli.pipeline import Outcome, choose_topology, place_job, read_text
from toposched.engine import place
from toposched.frontends import grove, kai, osmo
from toposched.frontends.cluster import parse_topology_object
from toposched.frontends.cluster.documents import parse_yaml
from toposched.model import (
    Cluster,
    DomainCount,
    Gang,
    Group,
    NotFoundError,
    Placement,
    PodPlacement,
    Policy,
    Problem,
    RunningPod,
    Search,
    SpecError,
    Topology,
    TopologyAssignment,
    Unschedulable,
    WorkloadSpecError,
)


class InputKind(StrEnum):
    KUEUE = "kueue"
    KAI = "kai"
    OSMO = "osmo"
    GROVE = "grove"


def parse_documents(text: str, *, source: str) -> list[Any]:
    """Every non-empty YAML document; bad YAML is a ``WorkloadSpecError`` naming file, line, column."""
    documents, problems = parse_yaml(text, source=source)
    if problems:
        raise WorkloadSpecError(problems)
    return documents


def detect(documents: Sequence[Any]) -> InputKind:
    """OSMO for a ``workflow:`` document, Grove for a PodCliqueSet, KAI for a PodGroup or any
    ``kai.scheduler/*`` annotation or label, else Kueue."""
    maps = [d for d in documents if isinstance(d, Mapping)]
    if any("workflow" in d and "kind" not in d for d in maps):
        return InputKind.OSMO
    if any(d.get("kind") == "PodCliqueSet" for d in maps):
        return InputKind.GROVE
    if any(kai.is_kai_document(d) for d in maps):
        return InputKind.KAI
    return InputKind.KUEUE


def place_input(
    text: str,
    cluster: Cluster,
    *,
    topology: str | None = None,
    policy: Policy | None = None,
    pool: str | None = None,
    source: str = "job",
    cluster_text: str = "",
    search: Search = Search.FAITHFUL,
) -> Outcome:
    """Compile ``text`` with the front end it belongs to and place it on ``cluster`` in ``search`` mode."""
    documents = parse_documents(text, source=source)
    kind = detect(documents)
    if pool is not None and kind is not InputKind.OSMO:
        raise SpecError([Problem("--pool", "is only used with OSMO workflows", "leave it out")])
    if kind is InputKind.KUEUE:
        return place_job(text, cluster, topology=topology, policy=policy, source=source, search=search)
    if kind is InputKind.KAI:
        cluster, given = _given_topology(cluster, topology)
        loaded = kai.load_kai(documents, cluster.topologies)
        return place_gangs(
            cluster, given, list(loaded.gangs), policy, warnings=loaded.warnings, search=search
        )
    if kind is InputKind.OSMO:
        return _place_osmo(text, cluster, topology=topology, policy=policy, pool=pool, search=search)
    return _place_grove(
        documents, cluster, topology=topology, policy=policy, cluster_text=cluster_text, search=search
    )


def _given_topology(cluster: Cluster, value: str | None) -> tuple[Cluster, Topology | None]:
    if value is None:
        return cluster, None
    cluster, chosen, _ = choose_topology(cluster, value)
    return cluster, chosen


def _main_topology(cluster: Cluster, given: Topology | None, gang: Gang) -> tuple[Cluster, Topology]:
    if given is not None:
        return cluster, given
    if gang.topology is None:
        return choose_topology(cluster, None)[:2]
    try:
        return cluster, cluster.topology(gang.topology)
    except NotFoundError as exc:
        raise SpecError(
            [Problem("--cluster", f"topology {gang.topology!r} is not defined", exc.hint)]
        ) from None


def place_gangs(
    cluster: Cluster,
    given: Topology | None,
    gangs: list[Gang],
    policy: Policy | None,
    *,
    warnings: Sequence[str] = (),
    pod_sets: Sequence[str] | None = None,
    search: Search = Search.FAITHFUL,
) -> Outcome:
    """Place ``gangs`` in order, each on what the previous left; the first failure is the result.

    ``pod_sets`` renames each gang's pod sets in the output (OSMO: the group name)."""
    if not gangs:
        raise WorkloadSpecError([Problem("", "the input has no pods", "add pods or replicas")])
    start = cluster
    placements: list[Placement] = []
    topology = given
    for gang in gangs:
        cluster, topology = _main_topology(cluster, given, gang)
        result = place(
            gang, cluster, topology=topology, policy=policy or gang.policy or Policy.BINPACK, search=search
        )
        if isinstance(result, Unschedulable):
            return Outcome(start, topology, gang, result, tuple(warnings))
        placements.append(result)
        cluster = _with_running(cluster, gang, result)
    assert topology is not None  # set by the loop, which ran at least once
    if len(gangs) == 1 and pod_sets is None:
        return Outcome(start, topology, gangs[0], placements[0], tuple(warnings))
    names = list(pod_sets) if pod_sets is not None else [g.name for g in gangs]
    return Outcome(
        start,
        topology,
        _display_gang(gangs, names),
        _merge(placements, names),
        tuple(warnings),
    )


def _with_running(cluster: Cluster, gang: Gang, placement: Placement) -> Cluster:
    specs = {(leaf.name, pod.name): pod for leaf in gang.leaves() for pod in leaf.pods}
    added = [
        RunningPod(p.pod, gang.namespace, p.node, specs[(p.group, p.pod)].requests, owner=gang.name)
        for p in placement.pods
        if p.node is not None and specs[(p.group, p.pod)].node is None
    ]
    return Cluster(cluster.nodes, (*cluster.pods, *added), cluster.topologies)


def _display_gang(gangs: list[Gang], names: list[str]) -> Gang:
    """One gang whose leaves are the renamed pod sets (for the table view)."""
    leaves = tuple(Group(name, pods=tuple(g.root.all_pods())) for g, name in zip(gangs, names, strict=True))
    first = gangs[0]
    return Gang(first.name, Group(first.name, children=leaves), namespace=first.namespace, kind=first.kind)


def _merge(placements: list[Placement], names: list[str]) -> Placement:
    pods: list[PodPlacement] = []
    assignments: dict[str, TopologyAssignment] = {}
    for placement, name in zip(placements, names, strict=True):
        pods += [PodPlacement(p.pod, name, p.index, p.node, p.domain) for p in placement.pods]
        counts: dict[tuple[str, ...], int] = {}
        levels: tuple[str, ...] = ()
        for a in placement.assignments.values():
            levels = a.levels or levels
            for d in a.domains:
                counts[d.values] = counts.get(d.values, 0) + d.count
        domains = tuple(DomainCount(v, c) for v, c in sorted(counts.items()))
        assignments[name] = TopologyAssignment(levels, domains)
    first = placements[0]
    complete = [p for p in placements if p.found_by is Search.COMPLETE]
    found_by = Search.COMPLETE if complete else Search.FAITHFUL
    note = "; ".join(p.note for p in complete)
    return Placement(
        first.gang, first.topology, first.policy, tuple(pods), assignments, found_by=found_by, note=note
    )


def _place_osmo(
    text: str,
    cluster: Cluster,
    *,
    topology: str | None,
    policy: Policy | None,
    pool: str | None,
    search: Search = Search.FAITHFUL,
) -> Outcome:
    if pool is None:
        raise SpecError(
            [Problem("--pool", "is missing", "an OSMO workflow needs its pool: --pool POOL.yaml")]
        )
    loaded_pool, _, compiled = osmo.load_osmo(text, read_text(pool, what="pool"))
    obj = osmo.topology_object(loaded_pool)
    if obj is not None:
        cluster = cluster.with_topology(parse_topology_object(obj))
    cluster, given = _given_topology(cluster, topology)
    gangs = [osmo.to_gang(cg) for cg in compiled]
    return place_gangs(
        cluster, given, gangs, policy, pod_sets=[cg.group.name for cg in compiled], search=search
    )


def grove_topologies(*texts: tuple[str, str]) -> list[dict[str, Any]]:
    """ClusterTopology objects of (text, source) pairs; other documents are ignored."""
    found: list[dict[str, Any]] = []
    for text, source in texts:
        found += [dict(d) for d in parse_documents(text, source=source) if grove.is_cluster_topology(d)]
    return found


def _place_grove(
    documents: list[Any],
    cluster: Cluster,
    *,
    topology: str | None,
    policy: Policy | None,
    cluster_text: str,
    search: Search = Search.FAITHFUL,
) -> Outcome:
    sources = [(cluster_text, "cluster")]
    if topology is not None and Path(topology).is_file():
        sources.append((read_text(topology, what="topology"), topology))
    loaded = grove.load_grove(documents, grove_topologies(*sources))
    if loaded.topology is not None:
        cluster = cluster.with_topology(loaded.topology.to_topology())
    given = None
    if topology is not None and not Path(topology).is_file():
        given = choose_topology(cluster, topology)[1]
    return place_gangs(cluster, given, [loaded.gang], policy, warnings=loaded.warnings, search=search)
