"""``toposched compile --to grove``: a gang as a Grove PodCliqueSet and the ClusterTopology its
constraints name (``topologyConstraint.topologyName``, as Grove's CRD has it; see
``toposched.wire.grove.podcliqueset_object``).

A PodCliqueSet has three levels of groups: the set's template (one replica here), scaling groups
and cliques, each with a ``topologyConstraint`` by domain name. The gang's root is the template
(a root holding a single group, as the Grove front end reads a PodCliqueSet, is unwrapped);
its leaves become cliques, its inner children scaling groups of their leaves. A leaf after a
scaling group gets a scaling group of its own, so pods keep their order.

Grove has no slices, no minimum of subgroups, no group deeper than a scaling group and no
running pods in a template; a clique's minimum is ``minAvailable`` and a scaling group needs its
cliques' minimums."""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from toposched.emit.queues import target_queue
from toposched.emit.unexpressed import (
    effective_min,
    inner_minimum,
    level_name,
    min_sub_group,
    mixed_shapes,
    on_topology,
    running_pods,
    slices,
)
from toposched.model import Gang, Group, PodSpec, QueueKind, Topology, Translation
from toposched.model.names import UniqueNames, dns_label
from toposched.wire.core import pod_spec_object
from toposched.wire.grove import (
    NO_PACK,
    CliqueTemplate,
    Pack,
    ScalingGroupTemplate,
    cluster_topology_object,
    domains_of,
    podcliqueset_object,
)
from toposched.wire.kai import DEFAULT_QUEUE, QUEUE_LABEL

TARGET = "grove"
SCHEDULER = "Grove"  # as sentences name it


@dataclass(slots=True)
class _Writer:
    """The cliques and scaling groups written so far, with names unique in the PodCliqueSet."""

    topology: Topology
    notes: list[str] = field(default_factory=list)
    cliques: list[CliqueTemplate] = field(default_factory=list)
    scaling_groups: list[ScalingGroupTemplate] = field(default_factory=list)
    names: UniqueNames = field(default_factory=lambda: UniqueNames(fallback="group", label=True))
    domains: dict[str, str] = field(init=False)  # label key -> domain name

    def __post_init__(self) -> None:
        self.domains = {level.key: level.domain for level in domains_of(self.topology)}

    def template(self, group: Group) -> Pack:
        """Write the template's cliques and scaling groups; return its own constraint."""
        pack = self.pack(group, NO_PACK)
        if group.is_leaf:  # the template carries the constraint, its one clique none
            self.clique(replace(group, required=None, preferred=None), group, pack)
            return pack
        self.notes += self.common(group)
        scaled = False
        for child in group.children:
            scaled = scaled or not child.is_leaf
            if scaled:
                self.scaling_group(child, group, pack)
            else:
                self.clique(child, group, pack)
        return pack

    def pack(self, group: Group, parent: Pack) -> Pack:
        """The group's levels as domains. A level coarser than the enclosing one is implied by
        it and Grove refuses it, so it is left out."""
        return Pack(
            self._domain(group.required, parent.required), self._domain(group.preferred, parent.preferred)
        )

    def _domain(self, level: str | None, enclosing: str | None) -> str | None:
        if level is None:
            return None
        depth = {domain: self.topology.index(key) for key, domain in self.domains.items()}
        if enclosing is not None and self.topology.index(level) < depth[enclosing]:
            return None
        return self.domains[level]

    def name(self, group: Group, parent: Group) -> str:
        """A DNS label unique among cliques and scaling groups, without the parent's prefix
        (Grove prefixes names itself)."""
        return self.names.of(group.name.removeprefix(f"{parent.name}-"))

    def clique(self, leaf: Group, parent: Group, parent_pack: Pack) -> str:
        self.notes += running_pods(leaf, SCHEDULER) + mixed_shapes(leaf, SCHEDULER) + self.common(leaf)
        first = leaf.pods[0] if leaf.pods else PodSpec(leaf.name, 0)
        name = self.name(leaf, parent)
        pack = self.pack(leaf, parent_pack)
        self.cliques.append(
            CliqueTemplate(name, len(leaf.pods), effective_min(leaf), pod_spec_object(first), pack)
        )
        return name

    def scaling_group(self, group: Group, parent: Group, parent_pack: Pack) -> None:
        """A scaling group of the group's leaves; a leaf alone gets one without a constraint of
        its own (its clique carries it)."""
        name = self.name(group, parent)
        if group.is_leaf:
            self.scaling_groups.append(ScalingGroupTemplate(name, (self.clique(group, group, parent_pack),)))
            return
        self.notes += self.common(group)
        pack = self.pack(group, parent_pack)
        for inner in group.walk():
            if inner is not group and not inner.is_leaf:
                self._deeper(inner)
        members = tuple(self.clique(leaf, group, pack) for leaf in group.leaves())
        self.scaling_groups.append(ScalingGroupTemplate(name, members, pack=pack))

    def _deeper(self, group: Group) -> None:
        self.notes += self.common(group)
        if group.level is not None:
            self.notes.append(
                f"group {group.name}: Grove has no groups below a scaling group; {group.mode} "
                f"{level_name(self.topology, group.level)} over its {group.size} pods left out"
            )

    def common(self, group: Group) -> list[str]:
        """What Grove cannot say of any group."""
        return (
            slices(group, SCHEDULER, self.topology)
            + min_sub_group(group, SCHEDULER)
            + inner_minimum(group, SCHEDULER)
        )


def compile_to_grove(gang: Gang, topology: Topology) -> Translation:
    """The ClusterTopology and the PodCliqueSet for ``gang`` on ``topology``."""
    writer = _Writer(topology)
    pack = writer.template(_template_group(on_topology(gang.root, topology, SCHEDULER, writer.notes)))
    queue, advice = target_queue(gang, QueueKind.KAI, f"{DEFAULT_QUEUE} written")
    pcs = podcliqueset_object(
        dns_label(gang.name, fallback="workload"),
        gang.namespace,
        cluster_topology=topology.name if _constrained(writer, pack) else None,
        cliques=writer.cliques,
        scaling_groups=writer.scaling_groups,
        pack=pack,
        labels={QUEUE_LABEL: queue or DEFAULT_QUEUE},  # Grove schedules through KAI, which needs a queue
    )
    return Translation(TARGET, (cluster_topology_object(topology), pcs), tuple(writer.notes), advice)


def _template_group(root: Group) -> Group:
    """The group the PodCliqueSet template stands for: the root, or its only child when the root
    adds nothing (no constraint, no minimum of its own)."""
    if (
        len(root.children) == 1
        and root.level is None
        and root.min_sub_group is None
        and not root.children[0].is_leaf
        and root.min_member in (None, effective_min(root.children[0]))
    ):
        return root.children[0]
    return root


def _constrained(writer: _Writer, pack: Pack) -> bool:
    """Whether any constraint is written: Grove refuses a topology name without one."""
    packs = [pack, *(c.pack for c in writer.cliques), *(g.pack for g in writer.scaling_groups)]
    return any(p != NO_PACK for p in packs)
