"""The entry point: parsed documents (intake reads the text) → a validated ``Gang``.

Every problem in the input is collected (field path, what is wrong, how to fix it) and raised
together as one ``WorkloadSpecError``; nothing is compiled while any problem remains.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from toposched.frontends.kueue import keys
from toposched.frontends.kueue.build import build_gang
from toposched.frontends.kueue.fields import Problems, at, key_at, mapping, text, type_name
from toposched.frontends.kueue.kinds import READERS, read_workload
from toposched.frontends.kueue.pods import Located, read_pod_group
from toposched.frontends.kueue.podsets import Shape, Workload, read_shape
from toposched.frontends.kueue.request import parse_request
from toposched.frontends.kueue.rules import Entry, check_groups, check_levels_everywhere
from toposched.model import (
    MAX_PODS_PER_GANG,
    Gang,
    PodBudget,
    Problem,
    Topology,
    WorkloadSpecError,
)

SUPPORTED = ", ".join(f"{api} {kind}" for kind, (api, _) in READERS.items()) + ", v1 Pod (a pod group)"


def compile_workload(
    documents: Sequence[Mapping[str, Any]],
    topology: Topology | None = None,
    *,
    max_pods: int = MAX_PODS_PER_GANG,
) -> Gang:
    """Validate parsed Kubernetes objects (one document; or several documents / a ``v1 List`` of
    Pods of one pod group) against ``topology`` when given, and compile them to a ``Gang``; a
    workload of more than ``max_pods`` pods is refused before its pods are built. Raises
    ``WorkloadSpecError`` listing every problem found."""
    problems: Problems = []
    located = _flatten(documents, problems)
    workload = _read(located, problems, PodBudget(max_pods))
    entries: list[Entry] = []
    shapes: list[Shape] = []
    if workload is not None:
        if workload.kind != "Pod":
            _check_metadata_annotations(located[0], workload, problems)
        for source in workload.podsets:
            # A missing template is already reported; do not pile "spec is missing" on top.
            known_missing = not source.template and any(p.path == source.path for p in problems)
            shapes.append(Shape() if known_missing else read_shape(source.template, source.path, problems))
            entries.append((source, parse_request(source, topology, problems)))
        check_levels_everywhere(entries, problems)
        check_groups(entries, problems)
        if not any(source.count for source, _ in entries) and all(source.count_ok for source, _ in entries):
            problems.append(
                Problem(
                    at(located[0][0], "spec"),
                    "the workload has no pods",
                    "set parallelism / replicas / size to at least 1",
                )
            )
    if problems or workload is None:
        raise WorkloadSpecError(list(dict.fromkeys(problems)) or [Problem("", "no workload found", "")])
    # Kueue skips PodSets without pods (an LWS of size 1 has no workers).
    kept = [(entry, shape) for entry, shape in zip(entries, shapes, strict=True) if entry[0].count]
    return build_gang(workload, [entry for entry, _ in kept], [shape for _, shape in kept])


def _flatten(documents: Sequence[Mapping[str, Any]], problems: Problems) -> list[Located]:
    """Documents and the items of ``v1 List`` documents, each with its field path."""
    located: list[Located] = []
    many = len(documents) > 1
    for i, doc in enumerate(documents):
        base = f"documents[{i}]" if many else ""
        if not isinstance(doc, Mapping):
            problems.append(
                Problem(
                    base or "document",
                    f"expected a Kubernetes object, got {type_name(doc)}",
                    "check the YAML",
                )
            )
            continue
        if doc.get("kind") == "List":
            items = doc.get("items") or []
            if not isinstance(items, list):
                where = at(base, "items")
                problems.append(Problem(where, f"expected a list of objects, got {type_name(items)}", ""))
                continue
            for j, item in enumerate(items):
                where = at(base, f"items[{j}]")
                if isinstance(item, Mapping):
                    located.append((where, item))
                else:
                    problems.append(
                        Problem(where, f"expected a Kubernetes object, got {type_name(item)}", "")
                    )
            continue
        located.append((base, doc))
    return located


def _read(located: Sequence[Located], problems: Problems, budget: PodBudget) -> Workload | None:
    if not located:
        if not problems:
            problems.append(Problem("", "the input holds no Kubernetes object", f"write one of: {SUPPORTED}"))
        return None
    kinds = [doc.get("kind") for _, doc in located]
    if all(kind == "Pod" for kind in kinds):
        for path, doc in located:
            if doc.get("apiVersion") != "v1":
                problems.append(
                    Problem(
                        at(path, "apiVersion"),
                        f'a Pod has apiVersion "v1", got {doc.get("apiVersion")!r}',
                        "",
                    )
                )
        too_many = budget.take("", len(located))
        if too_many is not None:
            problems.append(too_many)
            return None
        return read_pod_group(located, problems)
    if len(located) > 1:
        problems.append(
            Problem(
                "",
                f"the input holds {len(located)} objects ({_kind_counts(kinds)})",
                "put one workload per file; only the Pods of one pod group may share a file",
            )
        )
        return None
    path, doc = located[0]
    kind = text(doc.get("kind"), at(path, "kind"), problems, required=True, hint=f"write one of: {SUPPORTED}")
    if kind not in READERS:
        if kind:
            problems.append(
                Problem(
                    at(path, "kind"),
                    f'unknown kind "{kind}" (apiVersion {doc.get("apiVersion")!r})',
                    f"use {SUPPORTED}",
                )
            )
        return None
    api_version, reader = READERS[kind]
    if doc.get("apiVersion") != api_version:
        problems.append(
            Problem(
                at(path, "apiVersion"),
                f'kind {kind} needs apiVersion "{api_version}", got {doc.get("apiVersion")!r}',
                f"write apiVersion: {api_version}",
            )
        )
        return None
    return read_workload(doc, path, reader, kind, problems, budget)


def _kind_counts(kinds: Sequence[object]) -> str:
    """``2 Job, 1 Service``: each kind once, however many objects there are."""
    return ", ".join(f"{count} {kind}" for kind, count in Counter(str(k) for k in kinds).most_common())


def _check_metadata_annotations(located: Located, workload: Workload, problems: Problems) -> None:
    """TAS annotations on the workload object itself (not its pod template) are silently ignored
    by Kueue; reject them so the mistake is visible."""
    base, doc = located
    metadata = mapping(doc.get("metadata"), at(base, "metadata"), [])
    annotations = mapping(metadata.get("annotations"), at(base, "metadata.annotations"), problems)
    for key in annotations:
        if str(key).startswith(keys.PODSET_PREFIX):
            targets = sorted({source.annotations_path for source in workload.podsets})
            problems.append(
                Problem(
                    key_at(at(base, "metadata.annotations"), str(key)),
                    f"{key} is set on the {workload.kind} itself, where Kueue ignores it",
                    "move it to the pod template: "
                    + ", ".join(targets or ["the pod template's annotations"]),
                )
            )
