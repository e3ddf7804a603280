"""``toposched compile --to kueue``: a gang as a Kueue-annotated workload and the Kueue Topology.

Kueue's unit is the PodSet: one pod template, one level (required or preferred), slices, and
PodSet groups (a leader pod and its workers sharing a level). The gang's tree becomes PodSets:

* a group whose subtree is uniform (children of equal size and shape, each required on one finer
  level) is one PodSet with slice layers: "8 pods in one zone, every 4 in one gpu-clique";
* otherwise each child of the root is a PodSet, a PodSet group (a constrained group of a single
  pod and one other leaf), or, deeper, its leaves as PodSets, the inner constraints said lost.

One PodSet is written as an Indexed Job, several as a JobSet with one Job per PodSet. Kueue admits
all pods of a workload at once, so minimums below a group's size, minimums of subgroups, running
pods and a constraint over several PodSets are what it cannot say. The workload is labelled with
the LocalQueue the input names (``emit.queues``); the advice says when it names none."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from toposched.emit.queues import NAME_ONE, target_queue
from toposched.emit.unexpressed import level_name, min_sub_group, mixed_shapes, on_topology, running_pods
from toposched.model import Gang, Group, PodSpec, QueueKind, Role, SliceLayer, Topology, Translation
from toposched.model.names import dns_label
from toposched.wire.batch import ReplicatedJob, job_object, jobset_object
from toposched.wire.core import pod_spec_object
from toposched.wire.kueue import MAX_SLICE_LAYERS, QUEUE_NAME, podset_annotations, topology_object

TARGET = "kueue"
NO_QUEUE = (
    f"no LocalQueue named: Kueue manages the workload only with the label {QUEUE_NAME}, unless its "
    f"namespace has a LocalQueue named 'default' or Kueue manages jobs without a queue name ({NAME_ONE})"
)
SCHEDULER = "Kueue"  # as sentences name it


@dataclass(frozen=True, slots=True)
class _Request:
    """One PodSet's topology request."""

    required: str | None = None
    preferred: str | None = None
    slices: tuple[SliceLayer, ...] = ()
    group: str | None = None


@dataclass(frozen=True, slots=True)
class _PodSet:
    name: str
    pods: tuple[PodSpec, ...]
    request: _Request


def compile_to_kueue(gang: Gang, topology: Topology) -> Translation:
    """The Kueue Topology and the Job or JobSet for ``gang`` on ``topology``."""
    notes: list[str] = []
    root = on_topology(gang.root, topology, SCHEDULER, notes)
    for group in root.walk():
        notes += _lost_minimums(group)
        notes += running_pods(group, SCHEDULER)
    podsets = _podsets(root, topology, notes)
    name = dns_label(gang.name, fallback="workload")
    queue, advice = target_queue(gang, QueueKind.KUEUE, "left out")
    labels = {QUEUE_NAME: queue} if queue is not None else None
    if queue is None:
        advice += (NO_QUEUE,)
    if len(podsets) == 1:
        (only,) = podsets
        workload = job_object(
            name,
            gang.namespace,
            len(only.pods),
            _pod_spec(only, notes),
            labels=labels,
            template_annotations=_annotations(only),
        )
    else:
        jobs = [
            ReplicatedJob(podset.name, len(podset.pods), _pod_spec(podset, notes), _annotations(podset))
            for podset in _unique_names(podsets)
        ]
        workload = jobset_object(name, gang.namespace, jobs, labels=labels)
    return Translation(TARGET, (topology_object(topology), workload), tuple(notes), advice)


def _podsets(root: Group, topology: Topology, notes: list[str]) -> list[_PodSet]:
    whole = _uniform(root, topology)
    if whole is not None:
        notes += [note for group in root.walk() for note in _both_levels(group, topology)]
        return [_PodSet("main", tuple(root.all_pods()), whole)]
    if root.level is not None:
        notes.append(
            f"group {root.name}: Kueue cannot constrain several PodSets together; "
            f"{root.mode} {level_name(topology, root.level)} left out"
        )
    notes += min_sub_group(root, SCHEDULER)
    out: list[_PodSet] = []
    for child in root.children:
        request = _uniform(child, topology)
        if request is not None:
            notes += [note for group in child.walk() for note in _both_levels(group, topology)]
            out.append(_PodSet(dns_label(child.name), tuple(child.all_pods()), request))
        elif _is_podset_group(child):
            out += _podset_group(child, topology, notes)
        else:
            out += _flattened(child, topology, notes)
    return out


def _uniform(group: Group, topology: Topology) -> _Request | None:
    """The request of a subtree Kueue can write as one PodSet; None when it cannot."""
    if group.is_leaf:
        return _own_request(group, group.slices)
    if group.min_sub_group is not None and group.min_sub_group < len(group.children):
        return None
    requests = [_uniform(child, topology) for child in group.children]
    found = [r for r in requests if r is not None]
    if len(found) != len(requests):
        return None
    if len(found) == 1:
        (only,) = found
        if group.level is None:
            return only  # a group around one group adds nothing
        if only.required is None and only.preferred is None:
            return _own_request(group, only.slices)
    sizes = {child.size for child in group.children}
    inner = found[0]
    if group.level is None or len(sizes) != 1 or len(set(found)) != 1 or inner.required is None:
        return None
    if len(inner.slices) + 1 > MAX_SLICE_LAYERS or topology.index(inner.required) < topology.index(
        group.level
    ):
        return None  # a slice level sits at or below the PodSet's level, at most 3 layers
    if not Group(group.name, pods=tuple(group.all_pods())).same_shape:
        return None
    return _own_request(group, (SliceLayer(inner.required, sizes.pop()), *inner.slices))


def _own_request(group: Group, layers: tuple[SliceLayer, ...]) -> _Request:
    """The group's level (required wins: a PodSet has one) with these slice layers."""
    return _Request(group.required, group.preferred if group.required is None else None, layers)


def _is_podset_group(group: Group) -> bool:
    """A group of two leaves, one of them a single pod, with a level or leader and worker roles:
    Kueue's PodSet group (one without a level is written as such, and refused as Kueue does)."""
    if len(group.children) != 2 or not all(c.is_leaf for c in group.children):
        return False
    if group.level is None and {c.role for c in group.children} != {Role.LEADER, Role.WORKERS}:
        return False
    return any(len(c.pods) == 1 for c in group.children)


def _podset_group(group: Group, topology: Topology, notes: list[str]) -> list[_PodSet]:
    notes += _both_levels(group, topology)
    request = _Request(
        group.required, group.preferred if group.required is None else None, group=dns_label(group.name)
    )
    out = []
    for member in group.children:
        if member.level is not None:
            notes.append(
                f"group {member.name}: a PodSet group shares one level; its own "
                f"{member.mode} {level_name(topology, member.level)} left out"
            )
        for layer in member.slices:
            notes.append(
                f"group {member.name}: a PodSet group has no slices; every {layer.size} pods in one "
                f"{level_name(topology, layer.level)} left out"
            )
        out.append(_PodSet(dns_label(member.name), member.pods, request))
    return out


def _flattened(group: Group, topology: Topology, notes: list[str]) -> list[_PodSet]:
    """A subtree Kueue cannot nest: its leaves as PodSets, each inner constraint said lost."""
    if group.is_leaf:
        notes += _both_levels(group, topology)
        return [_PodSet(dns_label(group.name), group.pods, _own_request(group, group.slices))]
    if group.level is not None:
        notes.append(
            f"group {group.name}: Kueue has no nested groups; {group.mode} "
            f"{level_name(topology, group.level)} over its {group.size} pods left out"
        )
    notes += min_sub_group(group, SCHEDULER)
    return [podset for child in group.children for podset in _flattened(child, topology, notes)]


def _both_levels(group: Group, topology: Topology) -> list[str]:
    if group.required is None or group.preferred is None:
        return []
    return [
        f"group {group.name}: a PodSet has one level; preferred "
        f"{level_name(topology, group.preferred)} left out, required {level_name(topology, group.required)} kept"
    ]


def _lost_minimums(group: Group) -> list[str]:
    if group.min_member is None or group.min_member >= group.size:
        return []
    return [
        f"group {group.name}: Kueue admits all pods of a workload; "
        f"minMember {group.min_member} written as all {group.size}"
    ]


def _annotations(podset: _PodSet) -> dict[str, str]:
    request = podset.request
    return podset_annotations(
        required=request.required, preferred=request.preferred, slices=request.slices, group=request.group
    )


def _pod_spec(podset: _PodSet, notes: list[str]) -> dict[str, object]:
    notes += mixed_shapes(Group(podset.name, pods=podset.pods), SCHEDULER)
    first = podset.pods[0] if podset.pods else PodSpec(podset.name, 0)
    return pod_spec_object(first)


def _unique_names(podsets: Sequence[_PodSet]) -> list[_PodSet]:
    """replicatedJob names differ within a JobSet: a repeated name gets ``-2``, ``-3``..."""
    taken: set[str] = set()
    out = []
    for podset in podsets:
        name, n = podset.name, 1
        while name in taken:
            n += 1
            name = f"{podset.name[:60]}-{n}"
        taken.add(name)
        out.append(_PodSet(name, podset.pods, podset.request))
    return out
