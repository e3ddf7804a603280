"""The API server's checks of one ``scheduling.k8s.io`` object, with its messages and field paths:
the object's metadata (``ValidateObjectMeta``), the declarative rules of its Go type
(``declarative``) and the hand-written rules of k8s.io/kubernetes v1.37.2
``pkg/apis/scheduling/validation/validation.go``: template names unique across the whole
template tree, at most four levels of CompositePodGroup templates, one priority for every
template, a CompositePodGroup template with a child. A Job's ``spec.scheduling`` gets the
declarative rules of its building blocks and the Job's own (``pkg/apis/batch/validation``): a
gang minimum of at most the parallelism, no ``all`` disruption for the basic policy.

Each rule appends a Problem (path, the API server's message, how to fix it), so every problem
of an input is reported at once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from toposched.frontends.kube.declarative import object_problems, served_kinds, value_problems
from toposched.model import Problem
from toposched.model.k8s_content import (
    FieldErrorType,
    field_error,
)
from toposched.model.lenient import text
from toposched.model.object_meta import metadata_decoding, object_meta_problems
from toposched.wire.scheduling import MAX_COMPOSITE_DEPTH, SERVED, V1ALPHA1, WORKLOAD, api_version_of

Problems = list[Problem]

JOB_SCHEDULING = ("batch/v1", "JobSchedulingConfiguration")


def at(path: str, child: str) -> str:
    return f"{path}.{child}" if path else child


def check_metadata(obj: Mapping[str, Any], path: str, problems: Problems) -> None:
    """The metadata as the API server reads it (``toposched.model.object_meta``)."""
    found, _ = object_meta_problems(obj, api_version_of(obj), text(obj.get("kind")) or "Object", path)
    problems += found


REMOVED_HINT = (
    "write apiVersion: scheduling.k8s.io/v1beta1 with spec.podGroupTemplates[] (name, schedulingPolicy: "
    "{gang: {minCount: N}}) instead of spec.podGroups[].policy, a PodGroup per group with "
    "spec.workloadRef: {workloadName, templateName}, and spec.schedulingGroup.podGroupName on the pods"
)


def version_problems(api_version: str, kind: str, path: str) -> Problems:
    """Whether the API server serves ``kind`` in ``api_version``: v1alpha1 is gone, and the kinds
    of each version are its types with a spec (CompositePodGroup: v1alpha3 only)."""
    where = at(path, "apiVersion")
    if api_version == V1ALPHA1:
        return [Problem(where, f"{V1ALPHA1} was removed in Kubernetes 1.36", REMOVED_HINT)]
    if api_version not in SERVED:
        return [Problem(where, f"{api_version!r} is not served", f"use one of {', '.join(SERVED)}")]
    if kind not in served_kinds(api_version):
        serving = [v for v in SERVED if kind in served_kinds(v)] or list(SERVED)
        message = f'no matches for kind "{kind}" in version "{api_version}"'
        return [Problem(where, message, f"write apiVersion: {' or '.join(serving)}")]
    return []


def check_object(obj: Mapping[str, Any], api_version: str, kind: str, path: str, problems: Problems) -> None:
    """Every rule the API server applies to ``obj`` when it is created (the version and kind
    served, then the object)."""
    if found := version_problems(api_version, kind, path):
        problems += found
        return
    found, decoded = object_problems(obj, api_version, kind, path)
    decoding = metadata_decoding(obj, api_version, kind, path)
    if decoding or not decoded:  # the server answers a body that does not decode with that alone
        problems += decoding + ([] if decoded else found)
        return
    check_metadata(obj, path, problems)
    problems += found
    spec = obj.get("spec")
    if kind == WORKLOAD and isinstance(spec, Mapping) and decoded:  # both kinds of rules, as upstream
        problems += workload_spec_problems(spec, at(path, "spec"))


def workload_spec_problems(spec: Mapping[str, Any], path: str) -> Problems:
    """``ValidateWorkloadSpec``: names unique across the tree, depth, priority, children."""
    problems: Problems = []
    _unique_names(spec, path, set(_names(spec.get("podGroupTemplates"))), problems, top=True)
    composites = _mappings(spec.get("compositePodGroupTemplates"))
    for i, template in enumerate(composites):
        if _depth(template) >= MAX_COMPOSITE_DEPTH:
            problems.append(
                Problem(
                    f"{path}.compositePodGroupTemplates[{i}]",
                    field_error(
                        FieldErrorType.INVALID,
                        template.get("compositePodGroupTemplates"),
                        f"maximum template hierarchy depth is {MAX_COMPOSITE_DEPTH}",
                    ),
                    "nest at most four levels of CompositePodGroup templates",
                )
            )
    problems += _priority_problems(spec, path)
    for i, template in enumerate(composites):
        problems += _childless(template, f"{path}.compositePodGroupTemplates[{i}]")
    return problems


def _mappings(value: object) -> list[Mapping[str, Any]]:
    """A decoded list's items; a null item decodes into the zero-valued struct, as Go's does."""
    if not isinstance(value, list):
        return []
    return [v if isinstance(v, Mapping) else {} for v in value if v is None or isinstance(v, Mapping)]


def _names(value: object) -> Iterator[str]:
    return (str(t.get("name", "")) for t in _mappings(value))


def _unique_names(
    owner: Mapping[str, Any], path: str, names: set[str], problems: Problems, *, top: bool = False
) -> None:
    """Each template name once in the whole tree (the first use wins, later ones are reported),
    walked as upstream walks it: a level's pod group templates, then its composite templates,
    then inside each of those."""
    if not top:
        level = list(_names(owner.get("podGroupTemplates")))
        for i, name in enumerate(level):
            if name in names:
                problems.append(_duplicate(f"{path}.podGroupTemplates[{i}].name", name))
        names.update(level)
    composites = _mappings(owner.get("compositePodGroupTemplates"))
    level = [str(t.get("name", "")) for t in composites]
    for i, name in enumerate(level):
        if name in names:
            problems.append(_duplicate(f"{path}.compositePodGroupTemplates[{i}].name", name))
    names.update(level)
    for i, template in enumerate(composites):
        _unique_names(template, f"{path}.compositePodGroupTemplates[{i}]", names, problems)


def _duplicate(path: str, name: str) -> Problem:
    return Problem(
        path,
        field_error(FieldErrorType.DUPLICATE, name),
        "template names must differ across the whole Workload, composite templates included",
    )


def _depth(template: Mapping[str, Any], level: int = 1) -> int:
    """The deepest level of composite templates in a top-level one's subtree (1: none under
    it); upstream refuses level 4, where the tree of four levels has no room for its pod
    group templates."""
    children = _mappings(template.get("compositePodGroupTemplates"))
    if level >= MAX_COMPOSITE_DEPTH:
        return level
    return max((_depth(c, level + 1) for c in children), default=level)


def _priority_problems(spec: Mapping[str, Any], path: str) -> Problems:
    """Every template of the Workload asks for one priority (class name and value)."""
    seen: list[tuple[object, object]] = []

    def same(template: Mapping[str, Any]) -> bool:
        mine = (template.get("priorityClassName") or "", template.get("priority"))
        if not seen:
            seen.append(mine)
        return mine == seen[0]

    if not all(same(t) for t in _mappings(spec.get("podGroupTemplates"))):
        message = field_error(FieldErrorType.INVALID, None, "detected multiple priority configurations")
        return [Problem(path, message, "give every template the same priorityClassName and priority")]

    def tree(template: Mapping[str, Any]) -> bool:
        return (
            same(template)
            and all(tree(c) for c in _mappings(template.get("compositePodGroupTemplates")))
            and all(same(c) for c in _mappings(template.get("podGroupTemplates")))
        )

    if not all(tree(t) for t in _mappings(spec.get("compositePodGroupTemplates"))):
        message = field_error(
            FieldErrorType.INVALID,
            None,
            "all priority and priorityClassName values must be identical, detected multiple values",
        )
        return [Problem(path, message, "give every template the same priorityClassName and priority")]
    return []


def _childless(template: Mapping[str, Any], path: str) -> Problems:
    problems: Problems = []
    children = _mappings(template.get("compositePodGroupTemplates"))
    if not _mappings(template.get("podGroupTemplates")) and not children:
        problems.append(
            Problem(
                path,
                field_error(
                    FieldErrorType.INVALID,
                    template.get("name") or "",  # Go prints the zero value of a name left out
                    "must have at least one child PodGroupTemplate or CompositePodGroupTemplate",
                ),
                "add podGroupTemplates or compositePodGroupTemplates under it",
            )
        )
    for i, child in enumerate(children):
        problems += _childless(child, f"{path}.compositePodGroupTemplates[{i}]")
    return problems


def job_scheduling_problems(
    spec: Mapping[str, Any], path: str, old: Mapping[str, Any] | None = None
) -> Problems:
    """A Job's ``spec.scheduling``: its building blocks' declarative rules, then the Job's. With
    ``old`` (the stored spec) it is an update: ``spec.scheduling`` may be neither set nor
    cleared (batch/v1 JobSpec's ``+k8s:update=NoSet/NoUnset``) and the policy variant stays."""
    scheduling = spec.get("scheduling")
    group_version, type_name = JOB_SCHEDULING
    where = "spec.scheduling"
    stored = old.get("scheduling") if old is not None else None
    if old is not None and (stored is None) != (scheduling is None):
        detail = "field cannot be set once created" if stored is None else "field cannot be cleared once set"
        keep = "keep spec.scheduling as created; recreate the Job to change it"
        return [Problem(at(path, where), field_error(FieldErrorType.INVALID, None, detail), keep)]
    found, decoded = value_problems(
        scheduling, group_version, type_name, kind="Job", base=path, path=where, old=stored
    )
    if not decoded or not isinstance(scheduling, Mapping):
        return found
    found += _variant_problems(scheduling, stored, at(path, f"{where}.schedulingPolicy"))
    policy = scheduling.get("schedulingPolicy") or {}
    gang = policy.get("gang") if isinstance(policy, Mapping) else None
    minimum = gang.get("minCount") if isinstance(gang, Mapping) else None
    parallelism = spec.get("parallelism", 1)
    if isinstance(minimum, int) and isinstance(parallelism, int) and minimum > parallelism:
        found.append(
            Problem(
                at(path, f"{where}.schedulingPolicy.gang.minCount"),
                field_error(
                    FieldErrorType.INVALID, minimum, f"must not be greater than parallelism ({parallelism})"
                ),
                "lower minCount, or raise the parallelism",
            )
        )
    basic = not isinstance(gang, Mapping)  # no policy at all is basic too
    disruption = scheduling.get("disruptionMode")
    if basic and isinstance(disruption, Mapping) and disruption.get("all") is not None:
        found.append(
            Problem(
                at(path, f"{where}.disruptionMode"),
                field_error(
                    FieldErrorType.INVALID,
                    "",
                    "the disruptionMode `all` is not supported with the Basic scheduling policy",
                ),
                "use the gang policy, or disruptionMode single",
            )
        )
    return found


def _variant_problems(scheduling: Mapping[str, Any], stored: object, path: str) -> Problems:
    """The Job's hand-written update rule: basic stays basic, gang stays gang."""
    if not isinstance(stored, Mapping):
        return []
    before, after = stored.get("schedulingPolicy"), scheduling.get("schedulingPolicy")
    if not isinstance(before, Mapping) or not isinstance(after, Mapping):
        return []
    if (before.get("basic") is not None) == (after.get("basic") is not None):
        return []
    detail = (
        "the basic/gang policy variant is immutable after creation; only schedulingPolicy.gang.minCount "
        "may be updated"
    )
    return [Problem(path, field_error(FieldErrorType.INVALID, None, detail), "recreate the Job to switch")]
