"""The workload KAI's PodGrouper builds a gang's PodGroup from, annotated as KAI's docs ask: a
``batch/v1`` Job for a gang of one pod template, a JobSet for a gang of several, instead of a
PodGroup and one Pod per pod.

* Job: the ``kai.scheduler/topology``, ``-required-placement`` and ``-preferred-placement``
  annotations give the PodGroup's constraint, and ``kai.scheduler/batch-min-member`` its
  minMember (a Job's PodGroup needs one pod unless the annotation says more).
* JobSet: the JobSet's annotations give the PodGroup's constraint; each group becomes a
  replicatedJob of one Job, whose template's annotations give its leaf subgroup's constraint
  (and minMember, when the group needs fewer than all its pods); ``batch-min-member`` on the
  JobSet says how many replicatedJobs the gang needs when that is fewer than all.

Every pod template names KAI's scheduler and the workload carries the ``kai.scheduler/queue``
label: the PodGrouper reads both (``docs/batch``, ``docs/topology`` of KAI Scheduler).
A gang of another shape (groups inside groups, pods of several shapes in one group, pods
already running, an input of bare pods) is not one a Job or JobSet makes: ``workload_of`` gives
None and the caller writes the PodGroup and the Pods."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.emit.kai.objects import constraint_of, unique_name
from toposched.model import Gang, Group
from toposched.model.names import dns_label
from toposched.wire.batch import ReplicatedJob, job_object, jobset_object
from toposched.wire.core import pod_spec_object
from toposched.wire.kai import (
    BATCH_MIN_MEMBER_ANNOTATION,
    PODGROUP_KIND,
    QUEUE_LABEL,
    SCHEDULER_NAME,
    TopologyConstraint,
    constraint_annotations,
)

# Inputs whose pods are bare Pods joined to a PodGroup: KAI expects the PodGroup there.
BARE_POD_KINDS = frozenset({"Pod", PODGROUP_KIND})


def workload_of(gang: Gang, root: Group, queue: str) -> dict[str, Any] | None:
    """The annotated Job or JobSet for ``gang`` (its group tree ``root`` as KAI can write it), or
    None when the gang is not one KAI's PodGrouper builds from either."""
    if gang.kind in BARE_POD_KINDS or not _writable(root):
        return None
    name = dns_label(gang.name, fallback="workload")
    labels = {QUEUE_LABEL: queue}
    only = _single_leaf(root)
    if only is not None:
        minimum = only.min_member if only.min_member is not None else gang.min_member
        notes = _annotations(constraint_of(only, gang.topology), minimum, len(only.pods), always=True)
        return job_object(
            name, gang.namespace, len(only.pods), _pod_spec(only), labels=labels, annotations=notes
        )
    taken: set[str] = set()
    jobs = [
        ReplicatedJob(
            unique_name(dns_label(child.name, fallback="job"), taken),
            len(child.pods),
            _pod_spec(child),
            job_annotations=_annotations(
                constraint_of(child, gang.topology), child.min_member, len(child.pods)
            ),
        )
        for child in root.children
    ]
    notes = constraint_annotations(constraint_of(root, gang.topology))
    if root.min_sub_group is not None and root.min_sub_group < len(jobs):
        notes[BATCH_MIN_MEMBER_ANNOTATION] = str(root.min_sub_group)
    return jobset_object(name, gang.namespace, jobs, labels=labels, annotations=notes)


def _writable(root: Group) -> bool:
    """A leaf, or a group of leaves; each with pods of one shape, needing at least one, none
    running yet."""
    leaves = (root,) if root.is_leaf else root.children
    return all(
        leaf.is_leaf
        and leaf.pods
        and leaf.min_member != 0  # KAI takes batch-min-member of 1 or more
        and _one_shape(leaf)
        and all(pod.node is None for pod in leaf.pods)
        for leaf in leaves
    )


def _single_leaf(root: Group) -> Group | None:
    """The gang's one group of pods when a Job says it all: the root is a leaf, or holds one leaf
    and no constraint or minimum of its own."""
    if root.is_leaf:
        return root
    if (
        len(root.children) == 1
        and root.level is None
        and root.topology is None
        and root.min_sub_group is None
    ):
        return root.children[0]
    return None


def _one_shape(leaf: Group) -> bool:
    first = leaf.pods[0]
    return all(
        (p.requests, p.tolerations, p.node_selector, p.template)
        == (first.requests, first.tolerations, first.node_selector, first.template)
        for p in leaf.pods
    )


def _annotations(
    constraint: TopologyConstraint, minimum: int | None, pods: int, *, always: bool = False
) -> dict[str, str]:
    """The constraint's annotations, and ``batch-min-member`` when the group needs fewer than its
    pods (or ``always``: a Job's PodGroup needs one pod without it)."""
    notes = constraint_annotations(constraint)
    needed = pods if minimum is None else minimum
    if always or needed < pods:
        notes[BATCH_MIN_MEMBER_ANNOTATION] = str(needed)
    return notes


def _pod_spec(leaf: Group) -> Mapping[str, Any]:
    return {"schedulerName": SCHEDULER_NAME, **pod_spec_object(leaf.pods[0])}
