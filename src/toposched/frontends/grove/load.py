"""A PodCliqueSet file as the CLI and the service read it: admitted against the ClusterTopologies
it may reference, then compiled to its PodGangs, their KAI PodGroups and the gang."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from toposched.frontends.grove.admission import admit, topologies_of
from toposched.frontends.grove.gang import to_gang
from toposched.frontends.grove.kai import build_kai_podgroup
from toposched.frontends.grove.objects import PodCliqueSet, parse_podcliqueset
from toposched.frontends.grove.podgang import PODCLIQUE_LABEL, BuiltPodGang, build_podgangs
from toposched.model import MAX_PODS_PER_GANG, Gang, PodBudget, Problem, WorkloadSpecError
from toposched.model.names import documents_metadata_problems
from toposched.wire.grove import ClusterTopology, is_cluster_topology

# Topology-aware scheduling on and KAI as the backend: what a Grove install using TAS runs.
DEFAULT_OPERATOR_CONFIG: Mapping[str, Any] = {
    "topologyAwareScheduling": {"enabled": True},
    "scheduler": {"profiles": [{"name": "kai-scheduler"}]},
}


@dataclass(frozen=True, slots=True)
class GroveWorkload:
    """An admitted PodCliqueSet, the ClusterTopology it resolves to, and what Grove creates."""

    pcs: PodCliqueSet
    topology: ClusterTopology | None
    gang: Gang
    podgangs: tuple[dict[str, Any], ...]
    podgroups: tuple[dict[str, Any], ...]
    warnings: tuple[str, ...] = ()


def load_grove(
    documents: Iterable[object],
    topologies: Iterable[Mapping[str, Any]] = (),
    *,
    operator_config: Mapping[str, Any] | None = None,
    max_pods: int = MAX_PODS_PER_GANG,
) -> GroveWorkload:
    """One PodCliqueSet among ``documents`` (ClusterTopologies there join ``topologies``),
    admitted with ``admit`` as the webhook does, then compiled. Raises ``WorkloadSpecError``,
    also when it asks for more than ``max_pods`` pods (checked before any pod is built)."""
    docs = [d for d in documents if d is not None]
    problems = documents_metadata_problems(docs)
    if problems:
        raise WorkloadSpecError(problems)
    existing = [dict(t) for t in topologies] + [
        dict(d) for d in docs if isinstance(d, Mapping) and is_cluster_topology(d)
    ]
    found = [d for d in docs if isinstance(d, Mapping) and d.get("kind") == "PodCliqueSet"]
    if len(found) != 1:
        raise WorkloadSpecError(
            [Problem("", f"expected one PodCliqueSet, found {len(found)}", "write one PodCliqueSet")]
        )
    config = operator_config if operator_config is not None else DEFAULT_OPERATOR_CONFIG
    answer = admit("PodCliqueSet", "create", found[0], existing=existing, operator_config=config)
    answer.raise_if_rejected("PodCliqueSet")
    pcs = parse_podcliqueset(found[0])
    _check_pods(pcs, PodBudget(max_pods))
    resolved = pcs.resolved_topology()
    topology = topologies_of(existing).get(resolved) if resolved else None
    built = build_podgangs(pcs, topology)
    podgroups = tuple(build_kai_podgroup(b.object, pcs).object for b in built)
    return GroveWorkload(
        pcs,
        topology,
        to_gang(pcs, topology),
        tuple(_with_pods(b) for b in built),
        podgroups,
        answer.warnings,
    )


def _check_pods(pcs: PodCliqueSet, budget: PodBudget) -> None:
    """Every replica count, then the total: PodCliqueSet replicas x (standalone clique replicas
    + scaling group replicas x the replicas of the group's cliques)."""
    counts = [("spec.replicas", pcs.replicas)]
    counts += [(f"spec.template.cliques[{i}].spec.replicas", c.replicas) for i, c in enumerate(pcs.cliques)]
    counts += [
        (f"spec.template.podCliqueScalingGroups[{i}].replicas", g.replicas)
        for i, g in enumerate(pcs.scaling_groups)
    ]
    problems = [p for p in (budget.check(path, n) for path, n in counts) if p is not None]
    if not problems:
        per_replica = sum(max(c.replicas, 0) for c in pcs.cliques if pcs.group_of(c.name) is None)
        for group in pcs.scaling_groups:
            members = (pcs.clique(name) for name in group.clique_names)
            per_replica += max(group.replicas, 0) * sum(max(c.replicas, 0) for c in members if c is not None)
        too_many = budget.take("spec.replicas", max(pcs.replicas, 0) * per_replica)
        problems = [too_many] if too_many is not None else []
    if problems:
        raise WorkloadSpecError(problems)


def _with_pods(built: BuiltPodGang) -> dict[str, Any]:
    """The PodGang as it stands once Grove created its pods: ``podReferences`` filled in, and
    unset (null) constraints left out, as the CRD schema wants them."""
    obj = copy.deepcopy(built.object)
    refs: dict[str, list[dict[str, str]]] = {}
    for pod in built.pods():
        meta = pod["metadata"]
        refs.setdefault(meta["labels"][PODCLIQUE_LABEL], []).append(
            {"namespace": meta["namespace"], "name": meta["name"]}
        )
    for group in obj.get("spec", {}).get("podgroups", []):
        group["podReferences"] = refs.get(group["name"], [])
        if group.get("topologyConstraint") is None:
            group.pop("topologyConstraint", None)
    return obj
