"""PodCliqueSet → the IR. One gang per PodCliqueSet: a group per replica (carrying the
PodCliqueSet constraint, which binds each replica on its own), inside it the standalone
PodCliques and one group per scaling-group replica (carrying the scaling group's constraint),
PodCliques as leaves with their pods in index order."""

from __future__ import annotations

from typing import Any

from toposched.frontends.grove.kai import named_queue
from toposched.frontends.grove.objects import Clique, Constraint, PodCliqueSet
from toposched.model import Gang, Group, PodSpec, Policy, Problem, Semantics, WorkloadSpecError
from toposched.model.errors import SpecError
from toposched.model.podspec import effective_requests, parse_tolerations
from toposched.wire.grove import ClusterTopology
from toposched.wire.kai import kai_queue

KIND = "PodCliqueSet"


def _group(name: str, constraint: Constraint | None, topology: ClusterTopology | None, **rest: Any) -> Group:
    """A group whose domains are translated to label keys; unknown domains are dropped."""
    required = preferred = None
    if constraint is not None and topology is not None:
        required = topology.key_of(constraint.required) if constraint.required else None
        preferred = topology.key_of(constraint.preferred) if constraint.preferred else None
    return Group(name, required=required, preferred=preferred, **rest)


class _Pods:
    """Pod specs per clique template, numbered across the whole gang."""

    def __init__(self, pcs: PodCliqueSet) -> None:
        self.next_index = 0
        self.problems: list[Problem] = []
        self.templates: dict[str, PodSpec] = {}
        for i, clique in enumerate(pcs.cliques):
            where = f"spec.template.cliques[{i}].spec.podSpec"
            try:
                requests = effective_requests(clique.pod_spec, path=where)
                tolerations = parse_tolerations(
                    clique.pod_spec.get("tolerations"), path=f"{where}.tolerations"
                )
            except SpecError as exc:
                self.problems.extend(exc.problems)
                continue
            selector = {str(k): str(v) for k, v in dict(clique.pod_spec.get("nodeSelector") or {}).items()}
            self.templates[clique.name] = PodSpec(
                clique.name, 0, requests, tolerations, selector, template=clique.pod_spec
            )

    def leaf(self, clique: Clique, name: str, topology: ClusterTopology | None) -> Group:
        template = self.templates.get(clique.name, PodSpec(clique.name, 0))
        pods = []
        for i in range(clique.replicas):
            pods.append(
                PodSpec(
                    f"{name}-{i}",
                    self.next_index,
                    template.requests,
                    template.tolerations,
                    template.node_selector,
                    template=template.template,
                )
            )
            self.next_index += 1
        return _group(name, clique.constraint, topology, min_member=clique.min_available, pods=tuple(pods))


def to_gang(pcs: PodCliqueSet, topology: ClusterTopology | None, *, tas_enabled: bool = True) -> Gang:
    """The IR of a PodCliqueSet. ``topology`` is the resolved ClusterTopology; domains it lacks
    (and every domain when TAS is off) leave the group unconstrained, as the PodGang does."""
    used = topology if tas_enabled else None
    pods = _Pods(pcs)
    replicas = []
    for r in range(pcs.replicas):
        prefix = f"{pcs.name}-{r}"
        children: list[Group] = [
            pods.leaf(c, f"{prefix}-{c.name}", used) for c in pcs.cliques if pcs.group_of(c.name) is None
        ]
        for group in pcs.scaling_groups:
            for i in range(group.replicas):
                name = f"{prefix}-{group.name}-{i}"
                members = [
                    pods.leaf(clique, f"{name}-{clique.name}", used)
                    for clique in (pcs.clique(n) for n in group.clique_names)
                    if clique is not None
                ]
                children.append(
                    _group(
                        name,
                        group.constraint,
                        used,
                        min_member=sum(m.min_member or 0 for m in members),
                        children=tuple(members),
                    )
                )
        base = [c for c in children if not _scaled(pcs, c.name, prefix)]
        replicas.append(
            _group(
                prefix,
                pcs.constraint,
                used,
                min_member=sum(c.min_member or 0 for c in base),
                children=tuple(children),
            )
        )
    if pods.problems:
        raise WorkloadSpecError(pods.problems)
    root = Group(pcs.name, min_member=sum(g.min_member or 0 for g in replicas), children=tuple(replicas))
    return Gang(
        name=pcs.name,
        root=root,
        namespace=pcs.namespace,
        topology=used.name if used is not None and pcs.has_constraint else None,
        min_member=root.min_member,
        kind=KIND,
        default_policy=Policy.BINPACK,  # Grove schedules through KAI: its ordering by default ...
        semantics=Semantics.HIERARCHY,  # ... and its group-tree rules
        queue=kai_queue(named_queue(pcs)),
    )


def _scaled(pcs: PodCliqueSet, name: str, prefix: str) -> bool:
    """Scaling-group replicas at or above minAvailable are optional for the gang minimum."""
    for group in pcs.scaling_groups:
        for i in range(group.min_available, group.replicas):
            if name == f"{prefix}-{group.name}-{i}":
                return True
    return False
