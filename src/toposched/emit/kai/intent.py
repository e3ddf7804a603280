"""``toposched compile --to kai``: a gang as KAI Scheduler's objects. The Topology, and the
workload annotated for KAI's PodGrouper (a Job or JobSet, ``emit.kai.workload``) when the gang
is one it builds a PodGroup from; otherwise the PodGroup whose subgroup tree is the gang's group
tree (each subgroup's topologyConstraint with its required and preferred level, minMember on
leaves, minSubGroup on inner subgroups), and the pods joined to it: the ``pod-group-name``
annotation and, under subgroups, the leaf subgroup label.

KAI has no slices, and no minMember on a subgroup with children; every constraint names the one
Topology written here."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from toposched.emit.kai.objects import podgroup_of
from toposched.emit.kai.workload import workload_of
from toposched.emit.queues import target_queue
from toposched.emit.unexpressed import inner_minimum, on_topology, slices
from toposched.model import Gang, Group, QueueKind, Topology, Translation
from toposched.model.names import UniqueNames
from toposched.wire.core import pod_object, pod_spec_object
from toposched.wire.kai import (
    DEFAULT_QUEUE,
    QUEUE_LABEL,
    SCHEDULER_NAME,
    pod_metadata_patch,
    topology_object,
)

TARGET = "kai"
SCHEDULER = "KAI"  # as sentences name it


def compile_to_kai(gang: Gang, topology: Topology) -> Translation:
    """The KAI Topology, PodGroup and pods for ``gang`` placed on ``topology``."""
    notes: list[str] = []
    root = _expressible(
        on_topology(gang.root, topology, SCHEDULER, notes, bare_topology=True), topology, notes
    )
    queue, advice = target_queue(gang, QueueKind.KAI, f"{DEFAULT_QUEUE} written")
    kai_topology = topology_object(topology.name, topology.levels, aliases=topology.aliases)
    workload = workload_of(replace(gang, topology=topology.name), root, queue or DEFAULT_QUEUE)
    if workload is not None:
        return Translation(TARGET, (kai_topology, workload), tuple(notes), advice)
    podgroup = podgroup_of(replace(gang, root=root, topology=topology.name), queue=queue or DEFAULT_QUEUE)
    leaf_subgroups: list[str | None] = (
        [sg.name for sg in podgroup.leaves()] if podgroup.sub_groups else [None]
    )
    pods: list[dict[str, Any]] = []
    names = UniqueNames(fallback="pod")
    for leaf, subgroup in zip(root.leaves(), leaf_subgroups, strict=True):
        metadata = pod_metadata_patch(podgroup.name, subgroup)["metadata"]
        labels = {**metadata.get("labels", {}), QUEUE_LABEL: podgroup.queue}  # as KAI's PodGrouper reads it
        for pod in leaf.pods:
            pods.append(
                pod_object(
                    names.of(pod.name),
                    gang.namespace,
                    labels=labels,
                    annotations=metadata["annotations"],
                    spec={"schedulerName": SCHEDULER_NAME, **pod_spec_object(pod)},
                    node_name=pod.node,
                    phase="Running" if pod.node is not None else None,
                )
            )
    return Translation(TARGET, (kai_topology, podgroup.to_object(), *pods), tuple(notes), advice)


def _expressible(group: Group, topology: Topology, notes: list[str]) -> Group:
    """The group tree as KAI can write it: slices dropped, each dropped or rewritten constraint
    said in ``notes``."""
    notes += slices(group, SCHEDULER, topology)
    notes += inner_minimum(group, SCHEDULER)
    children = tuple(_expressible(child, topology, notes) for child in group.children)
    return replace(group, slices=(), children=children)
