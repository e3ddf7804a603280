"""Plain Pods grouped by ``kueue.x-k8s.io/pod-group-name`` → one workload.

Pods of one shape (requests, tolerations, node selector and ``kueue.x-k8s.io/*`` annotations)
form one PodSet: ``main``, then ``main-1``, ``main-2``... in order of first appearance. Pods keep
their own names and their input order. A single Pod without the group label is a workload of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toposched.frontends.kueue import keys
from toposched.frontends.kueue.fields import Problems, add_new, at, key_at, mapping, text
from toposched.frontends.kueue.podsets import PodSetSource, Workload, read_shape
from toposched.frontends.kueue.request import read_annotations
from toposched.model import Problem
from toposched.model.names import metadata_problems
from toposched.model.object_meta import metadata_unknown_fields

Located = tuple[str, Mapping[str, Any]]  # (field path of the document, the Pod)


def read_pod_group(pods: Sequence[Located], problems: Problems) -> Workload:
    """Check the grouping labels and counts, then split the pods into PodSets by shape."""
    names: list[str] = []
    namespaces: set[str] = set()
    groups: dict[str, list[str]] = {}
    totals: set[int] = set()
    queues: set[str] = set()  # the pods' queue-name labels
    for path, pod in pods:
        metadata = mapping(pod.get("metadata"), at(path, "metadata"), problems, required=True)
        name = text(metadata.get("name"), at(path, "metadata.name"), problems, required=True)
        if name in names:
            problems.append(
                Problem(at(path, "metadata.name"), f"pod {name!r} appears twice", "pod names must differ")
            )
        names.append(name)
        namespaces.add(text(metadata.get("namespace"), at(path, "metadata.namespace"), problems) or "default")
        add_new(problems, metadata_problems(metadata, at(path, "metadata")))
        add_new(problems, metadata_unknown_fields(pod, "v1", "Pod", path))  # refused by strict decoding
        labels = mapping(metadata.get("labels"), at(path, "metadata.labels"), problems)
        group = labels.get(keys.POD_GROUP_NAME)
        if labels.get(keys.QUEUE_NAME):
            queues.add(str(labels[keys.QUEUE_NAME]))
        label_path = key_at(at(path, "metadata.labels"), keys.POD_GROUP_NAME)
        if group is None:
            if len(pods) > 1:
                problems.append(
                    Problem(
                        label_path,
                        f"pod {name!r} has no {keys.POD_GROUP_NAME} label",
                        "label every pod of the group with the same group name",
                    )
                )
            continue
        groups.setdefault(str(group), []).append(path)
        total = _total(metadata, path, problems)
        if total is not None:
            totals.add(total)
    if len(namespaces) > 1:
        problems.append(
            Problem(
                "metadata.namespace",
                "the pods are in different namespaces: " + ", ".join(sorted(namespaces)),
                "a pod group lives in one namespace",
            )
        )
    if len(queues) > 1:
        problems.append(
            Problem(
                "metadata.labels",
                f"the pods name {len(queues)} LocalQueues in {keys.QUEUE_NAME}: {', '.join(sorted(queues))}",
                "a pod group is submitted to one LocalQueue: label every pod with the same one",
            )
        )
    if len(groups) > 1:
        problems.append(
            Problem(
                "metadata.labels",
                f"the pods belong to {len(groups)} groups ({', '.join(sorted(groups))}) via {keys.POD_GROUP_NAME}",
                "put one pod group per file",
            )
        )
    elif groups:
        _check_total(next(iter(groups)), totals, pods, problems)
    group_name = next(iter(groups), None)
    workload_name = group_name or (names[0] if names else "")
    podsets = _podsets(pods, names, problems)
    return Workload(
        workload_name, min(namespaces, default="default"), "Pod", podsets, queue=next(iter(queues), "")
    )


def _check_total(group: str, totals: set[int], pods: Sequence[Located], problems: Problems) -> None:
    """Every pod declares the same total count, and the input holds exactly that many pods."""
    if len(totals) > 1:
        problems.append(
            Problem(
                "metadata.annotations",
                f"{keys.POD_GROUP_TOTAL_COUNT} differs between pods: "
                + ", ".join(str(t) for t in sorted(totals)),
                "give every pod of the group the same total count",
            )
        )
    elif totals and (total := next(iter(totals))) != len(pods):
        problems.append(
            Problem(
                key_at(at(pods[0][0], "metadata.annotations"), keys.POD_GROUP_TOTAL_COUNT),
                f'pod group "{group}" declares {keys.POD_GROUP_TOTAL_COUNT} {total} but the input holds '
                f"{len(pods)} pod(s)",
                "list every pod of the group, or fix the total count",
            )
        )


def _total(metadata: Mapping[str, Any], path: str, problems: Problems) -> int | None:
    annotations = mapping(metadata.get("annotations"), at(path, "metadata.annotations"), problems)
    where = key_at(at(path, "metadata.annotations"), keys.POD_GROUP_TOTAL_COUNT)
    value = annotations.get(keys.POD_GROUP_TOTAL_COUNT)
    if value is None:
        problems.append(
            Problem(
                where,
                f"{keys.POD_GROUP_TOTAL_COUNT} is missing",
                "annotate every pod with the group's pod count",
            )
        )
        return None
    number = value if isinstance(value, int) and not isinstance(value, bool) else None
    if isinstance(value, str) and value.isascii() and value.isdigit():
        number = int(value)
    if number is None or number < 1:
        problems.append(
            Problem(
                where, f'{keys.POD_GROUP_TOTAL_COUNT} "{value}" is not a whole number >= 1', 'write e.g. "8"'
            )
        )
        return None
    return number


def _podsets(pods: Sequence[Located], names: Sequence[str], problems: Problems) -> tuple[PodSetSource, ...]:
    by_shape: dict[object, list[int]] = {}
    for i, (path, pod) in enumerate(pods):
        shape = read_shape(pod, path, problems)
        probe = PodSetSource(name="", path=path, template=pod)
        tas = tuple(
            sorted(
                (k, v)
                for k, v in read_annotations(probe, problems).items()
                if k.startswith(keys.PREFIX) and k != keys.POD_GROUP_TOTAL_COUNT
            )
        )
        key = (shape.requests, shape.tolerations, tuple(sorted(shape.node_selector.items())), tas)
        by_shape.setdefault(key, []).append(i)
    sources: list[PodSetSource] = []
    for n, members in enumerate(by_shape.values()):
        first_path, first_pod = pods[members[0]]
        sources.append(
            PodSetSource(
                name="main" if n == 0 else f"main-{n}",
                path=first_path,
                template=first_pod,
                pod_names=tuple(names[i] for i in members),
                index_values=tuple(range(len(members))),
            )
        )
    return tuple(sources)
