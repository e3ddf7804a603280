"""A compiled OSMO group as the IR: the PodGroup is the root ``Group`` (with the PodGroup's
constraint), subgroups are child groups with their own level and leaf ``min_member``, and each
task is one pod named after the task, in spec order."""

from __future__ import annotations

from toposched.frontends.osmo.objects import CompiledGroup
from toposched.frontends.osmo.tree import SubGroupSpec
from toposched.model import Gang, Group, PodSpec, Policy, Queue, QueueKind, Semantics


def to_gang(compiled: CompiledGroup) -> Gang:
    """The gang of one compiled group, on the pool's topology. Without subgroups the root holds
    every pod and ``min_member`` = the number of tasks."""
    tree = compiled.tree
    pods = [
        PodSpec(name=t.name, index=i, requests=t.requests, template=t.pod_spec)
        for i, t in enumerate(compiled.group.tasks)
    ]
    topology = compiled.pool.topology_name if compiled.pool.topology_keys else None
    by_leaf: dict[str, list[PodSpec]] = {}
    for pod in pods:
        leaf = tree.task_subgroups.get(pod.name)
        if leaf is not None:
            by_leaf.setdefault(leaf, []).append(pod)
    children_of: dict[str | None, list[SubGroupSpec]] = {}
    for sg in tree.subgroups:
        children_of.setdefault(sg.parent, []).append(sg)

    def build(sg: SubGroupSpec) -> Group:
        kids = tuple(build(child) for child in children_of.get(sg.name, ()))
        return Group(
            name=sg.name,
            required=sg.level if sg.required else None,
            preferred=None if sg.required else sg.level,
            min_member=sg.min_member,
            children=kids,
            pods=() if kids else tuple(by_leaf.get(sg.name, ())),
            topology=topology,
        )

    children = tuple(build(sg) for sg in children_of.get(None, ()))
    min_member = None if children else len(pods)
    root = Group(
        name=compiled.name,
        required=tree.required,
        preferred=tree.preferred,
        min_member=min_member,
        children=children,
        pods=() if children else tuple(pods),
        # A PodGroup constraint naming a topology without a level is invalid in KAI: leave it out.
        topology=topology if tree.required or tree.preferred else None,
    )
    return Gang(
        name=compiled.name,
        root=root,
        namespace=compiled.namespace,
        topology=topology,
        priority=compiled.priority.rank,
        min_member=min_member,
        kind="OSMOWorkflowGroup",
        default_policy=Policy.BINPACK,  # KAI's ordering, unless the caller chooses another
        semantics=Semantics.HIERARCHY,  # OSMO schedules through KAI
        queue=Queue(compiled.pool.queue, QueueKind.KAI),  # the KAI queue OSMO keeps for the pool
    )
