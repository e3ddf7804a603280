"""Ray (RayCluster, RayJob, RayService): subgroup ``headgroup`` plus one per worker group, each
with the constraint of its own pod template's annotations."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.frontends.kai import keys
from toposched.frontends.kai.common import (
    KaiGrouping,
    base_name,
    constraint_from,
    count,
    dig,
    fail,
    labels,
    namespace,
    notes_of,
    queue,
)
from toposched.model.lenient import mapping
from toposched.wire.kai import NO_CONSTRAINT, PodGroup, SubGroup, TopologyConstraint

# Where each kind keeps its cluster spec.
CLUSTER_SPEC = {
    "RayCluster": ("spec",),
    "RayJob": ("spec", "rayClusterSpec"),
    "RayService": ("spec", "rayClusterConfig"),
}


def group_ray(workload: Mapping[str, Any], pod: Mapping[str, Any], *, max_pods: int) -> KaiGrouping:
    """minMember = 1 head + per worker group (minReplicas, else replicas) x numOfHosts."""
    path = CLUSTER_SPEC.get(str(workload.get("kind")), ("spec",))
    spec = mapping(dig(workload, *path))
    where = ".".join(path)
    head = _constraint(notes_of(dig(spec, "headGroupSpec", "template")), f"{where}.headGroupSpec.template")
    sub_groups = [SubGroup("headgroup", min_member=1, constraint=head)]
    workers = spec.get("workerGroupSpecs")
    for i, raw in enumerate(workers if isinstance(workers, list) else []):
        wg = mapping(raw)
        at = f"{where}.workerGroupSpecs[{i}]"
        if wg.get("suspend") is True:
            continue
        replicas = count(wg.get("replicas"), f"{at}.replicas", 0, limit=max_pods)
        minimum = count(wg.get("minReplicas"), f"{at}.minReplicas", replicas, limit=max_pods)
        hosts = count(wg.get("numOfHosts"), f"{at}.numOfHosts", 1, limit=max_pods)
        if replicas == 0 and minimum == 0:
            continue
        name = str(wg.get("groupName") or f"worker-group-{i}")
        constraint = _constraint(notes_of(wg.get("template")), f"{at}.template")
        sub_groups.append(SubGroup(name, min_member=minimum * hosts, constraint=constraint))
    pod_labels = labels(pod)
    subgroup = None
    if pod_labels.get(keys.RAY_NODE_TYPE) == "head":
        subgroup = "headgroup"
    elif pod_labels.get(keys.RAY_GROUP) in {sg.name for sg in sub_groups}:
        subgroup = str(pod_labels[keys.RAY_GROUP])
    group = PodGroup(
        name=base_name(workload),
        namespace=namespace(workload, pod),
        min_member=sum(sg.min_member or 0 for sg in sub_groups),
        queue=queue(workload, pod),
        constraint=constraint_from(notes_of(workload)),
        sub_groups=tuple(sub_groups),
    )
    return KaiGrouping(group, subgroup)


def _constraint(notes: Mapping[str, Any], where: str) -> TopologyConstraint:
    found = TopologyConstraint(
        str(notes.get(keys.TOPOLOGY) or ""),
        str(notes.get(keys.REQUIRED) or ""),
        str(notes.get(keys.PREFERRED) or ""),
    )
    if (found.required or found.preferred) and not found.topology:
        raise fail(
            f"{where}.metadata.annotations",
            f"topology placement is set but {keys.TOPOLOGY} is missing",
            f"add {keys.TOPOLOGY} naming the Topology",
        )
    return found if found.required or found.preferred else NO_CONSTRAINT
