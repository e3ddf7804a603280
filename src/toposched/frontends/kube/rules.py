"""The API server's validation of ``scheduling.k8s.io`` objects (the Go types' markers in
reference/kube-workload-tas.md §1): each rule appends a Problem naming the field and the fix,
so every problem of an input is reported at once."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, TypeGuard

from toposched.model import Problem
from toposched.model.k8s_content import is_label_key
from toposched.model.names import metadata_problems, name_problems
from toposched.wire.scheduling import (
    MAX_COMPOSITE_DEPTH,
    MAX_RESOURCE_CLAIMS,
    MAX_TEMPLATES,
    MAX_TOPOLOGY_CONSTRAINTS,
    V1ALPHA2,
    has_composites,
)

Problems = list[Problem]

DNS_LABEL = re.compile(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?")
PREEMPTION_POLICIES = ("PreemptLowerPriority", "Never")
DISRUPTION_V1ALPHA2 = ("Pod", "PodGroup")
DISRUPTION_UNION = ("single", "all")


def at(path: str, child: str) -> str:
    return f"{path}.{child}" if path else child


def check_metadata(obj: Mapping[str, Any], path: str, problems: Problems) -> None:
    """A name is required (a DNS-1123 subdomain); labels and annotations are string maps."""
    metadata = obj.get("metadata")
    problems += metadata_problems(metadata, at(path, "metadata"))
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    if name in (None, ""):
        problems.append(Problem(at(path, "metadata.name"), "is required", "name the object"))


def check_workload_spec(spec: object, api_version: str, path: str, problems: Problems) -> None:
    """A Workload: pod group templates xor CompositePodGroup templates, at most 8 each."""
    if not _is_mapping(spec, path, problems, required=True):
        return
    ref = spec.get("controllerRef")
    if ref is not None and _is_mapping(ref, at(path, "controllerRef"), problems):
        for field in ("kind", "name"):
            if not isinstance(ref.get(field), str) or not ref.get(field):
                problems.append(
                    Problem(at(path, f"controllerRef.{field}"), "is required", "name the controlling object")
                )
    groups, composites = spec.get("podGroupTemplates"), spec.get("compositePodGroupTemplates")
    if groups is not None and composites is not None:
        problems.append(
            Problem(
                path,
                "sets both podGroupTemplates and compositePodGroupTemplates",
                "use one of them: put pod group templates inside the composite templates",
            )
        )
    elif groups is None and composites is None:
        problems.append(
            Problem(at(path, "podGroupTemplates"), "is required", "list the workload's pod group templates")
        )
    if composites is not None and not has_composites(api_version):
        problems.append(
            Problem(
                at(path, "compositePodGroupTemplates"),
                f"is not served in {api_version}",
                "write apiVersion: scheduling.k8s.io/v1alpha3 for CompositePodGroups",
            )
        )
    check_template_lists(spec, api_version, path, problems, depth=1)


def check_template_lists(
    owner: Mapping[str, Any], api_version: str, path: str, problems: Problems, *, depth: int
) -> None:
    """The pod group and composite template lists of a Workload or of a composite template."""
    groups = _list(owner.get("podGroupTemplates"), at(path, "podGroupTemplates"), problems)
    composites = _list(
        owner.get("compositePodGroupTemplates"), at(path, "compositePodGroupTemplates"), problems
    )
    for field, entries in (("podGroupTemplates", groups), ("compositePodGroupTemplates", composites)):
        where = at(path, field)
        if len(entries) > MAX_TEMPLATES:
            problems.append(
                Problem(
                    where,
                    f"has {len(entries)} templates; at most {MAX_TEMPLATES} are allowed",
                    "merge templates",
                )
            )
        _unique_names(entries, where, problems)
    for i, template in enumerate(groups):
        where = f"{path}.podGroupTemplates[{i}]"
        if _is_mapping(template, where, problems):
            _template_name(template, where, problems)
            check_settings(template, api_version, where, problems)
    if composites and depth > MAX_COMPOSITE_DEPTH - 1:
        problems.append(
            Problem(
                at(path, "compositePodGroupTemplates"),
                f"nests CompositePodGroups deeper than {MAX_COMPOSITE_DEPTH} levels",
                "flatten the tree",
            )
        )
        return
    for i, template in enumerate(composites):
        where = f"{path}.compositePodGroupTemplates[{i}]"
        if not _is_mapping(template, where, problems):
            continue
        _template_name(template, where, problems)
        check_policy(
            template.get("schedulingPolicy"), "minGroupCount", at(where, "schedulingPolicy"), problems
        )
        check_constraints(template.get("schedulingConstraints"), at(where, "schedulingConstraints"), problems)
        if template.get("podGroupTemplates") is None and template.get("compositePodGroupTemplates") is None:
            problems.append(
                Problem(
                    where, "has no children", "add podGroupTemplates or compositePodGroupTemplates under it"
                )
            )
        check_template_lists(template, api_version, where, problems, depth=depth + 1)


def check_settings(spec: Mapping[str, Any], api_version: str, path: str, problems: Problems) -> None:
    """The fields a PodGroup copies from its template: policy, constraints, claims, disruption,
    priority and preemption policy."""
    check_policy(spec.get("schedulingPolicy"), "minCount", at(path, "schedulingPolicy"), problems)
    check_constraints(spec.get("schedulingConstraints"), at(path, "schedulingConstraints"), problems)
    claims = _list(spec.get("resourceClaims"), at(path, "resourceClaims"), problems)
    if len(claims) > MAX_RESOURCE_CLAIMS:
        problems.append(
            Problem(
                at(path, "resourceClaims"),
                f"has {len(claims)} claims; at most {MAX_RESOURCE_CLAIMS} are allowed",
                "share fewer claims per group",
            )
        )
    _check_disruption(spec.get("disruptionMode"), api_version, at(path, "disruptionMode"), problems)
    priority = spec.get("priority")
    if priority is not None and (not isinstance(priority, int) or isinstance(priority, bool)):
        problems.append(
            Problem(at(path, "priority"), f"must be an integer, got {priority!r}", "write e.g. 100")
        )
    name = spec.get("priorityClassName")
    if name not in (None, ""):
        problems += name_problems(name, at(path, "priorityClassName"))
    preemption = spec.get("preemptionPolicy")
    if preemption is not None:
        if api_version == V1ALPHA2:
            problems.append(
                Problem(
                    at(path, "preemptionPolicy"), f"is not served in {api_version}", "use v1alpha3 or v1beta1"
                )
            )
        elif preemption not in PREEMPTION_POLICIES:
            problems.append(
                Problem(
                    at(path, "preemptionPolicy"),
                    f"{preemption!r} is not a preemption policy",
                    f"use one of {', '.join(PREEMPTION_POLICIES)}",
                )
            )


def check_policy(policy: object, field: str, path: str, problems: Problems) -> None:
    """``basic: {}`` xor ``gang: {<field>: n}`` with n >= 1."""
    if not _is_mapping(policy, path, problems, required=True):
        return
    basic, gang = policy.get("basic"), policy.get("gang")
    if basic is not None and gang is not None:
        problems.append(Problem(path, "sets both basic and gang", "choose one: basic: {} or gang: {...}"))
        return
    if basic is None and gang is None:
        problems.append(Problem(path, "must set basic or gang", f"write basic: {{}} or gang: {{{field}: N}}"))
        return
    if gang is not None and _is_mapping(gang, at(path, "gang"), problems):
        value = gang.get(field)
        where = at(path, f"gang.{field}")
        if value is None:
            problems.append(Problem(where, "is required", f"write the gang's minimum, e.g. {field}: 4"))
        elif not isinstance(value, int) or isinstance(value, bool) or value < 1:
            problems.append(Problem(where, f"must be an integer >= 1, got {value!r}", "write e.g. 4"))
    if basic is not None:
        _is_mapping(basic, at(path, "basic"), problems)


def check_constraints(constraints: object, path: str, problems: Problems) -> None:
    """At most one topology constraint, whose key is a node label key."""
    if constraints is None or not _is_mapping(constraints, path, problems):
        return
    where = at(path, "topology")
    topology = _list(constraints.get("topology"), where, problems)
    if len(topology) > MAX_TOPOLOGY_CONSTRAINTS:
        problems.append(
            Problem(
                where,
                f"has {len(topology)} constraints; kube-scheduler takes at most {MAX_TOPOLOGY_CONSTRAINTS}",
                "keep one key; nest CompositePodGroups (v1alpha3) for several levels",
            )
        )
    for i, entry in enumerate(topology):
        entry_path = f"{where}[{i}]"
        if not _is_mapping(entry, entry_path, problems):
            continue
        key = entry.get("key")
        if "level" in entry and key is None:
            problems.append(
                Problem(
                    at(entry_path, "level"),
                    "is not a field (the KEP's old name)",
                    "write key: <node label key>",
                )
            )
        elif not isinstance(key, str) or not key:
            problems.append(
                Problem(at(entry_path, "key"), "is required", "write a node label key, e.g. example.com/rack")
            )
        elif not is_label_key(key):
            problems.append(
                Problem(
                    at(entry_path, "key"),
                    f"{key[:80]!r} is not a node label key",
                    "use e.g. example.com/rack",
                )
            )


def check_parent_field(spec: Mapping[str, Any], api_version: str, path: str, problems: Problems) -> None:
    parent = spec.get("parentCompositePodGroupName")
    if parent is None:
        return
    where = at(path, "parentCompositePodGroupName")
    if not has_composites(api_version):
        problems.append(Problem(where, f"is not served in {api_version}", "use scheduling.k8s.io/v1alpha3"))
    else:
        problems += name_problems(parent, where)


def check_template_ref(
    spec: Mapping[str, Any], api_version: str, path: str, problems: Problems, *, required: bool
) -> None:
    """The reference to the Workload template: ``podGroupTemplateRef.workload`` in v1alpha2,
    ``workloadRef`` since v1alpha3."""
    old, new = spec.get("podGroupTemplateRef"), spec.get("workloadRef")
    if api_version == V1ALPHA2:
        if new is not None:
            problems.append(
                Problem(
                    at(path, "workloadRef"),
                    f"is not a field of {api_version}",
                    "write podGroupTemplateRef: {workload: {workloadName, podGroupTemplateName}}",
                )
            )
        if old is not None and _is_mapping(old, at(path, "podGroupTemplateRef"), problems):
            ref = old.get("workload")
            where = at(path, "podGroupTemplateRef.workload")
            if _is_mapping(ref, where, problems, required=True):
                _ref_fields(ref, ("workloadName", "podGroupTemplateName"), where, problems)
        return
    if old is not None:
        problems.append(
            Problem(
                at(path, "podGroupTemplateRef"),
                f"is not a field of {api_version} (1.36's spelling)",
                "write workloadRef: {workloadName, templateName}",
            )
        )
    where = at(path, "workloadRef")
    if new is None:
        if required:
            problems.append(Problem(where, "is required", "name the Workload and its template"))
        return
    if _is_mapping(new, where, problems):
        _ref_fields(new, ("workloadName", "templateName"), where, problems)


def _ref_fields(ref: Mapping[str, Any], fields: Sequence[str], path: str, problems: Problems) -> None:
    for field in fields:
        value = ref.get(field)
        if not isinstance(value, str) or not value:
            problems.append(Problem(at(path, field), "is required", "name the Workload and its template"))
        else:
            problems += name_problems(value, at(path, field))


def _check_disruption(mode: object, api_version: str, path: str, problems: Problems) -> None:
    if mode is None:
        return
    if api_version == V1ALPHA2:
        if mode not in DISRUPTION_V1ALPHA2:
            problems.append(
                Problem(path, f"{mode!r} is not a disruption mode of {api_version}", "write Pod or PodGroup")
            )
        return
    if (
        not isinstance(mode, Mapping)
        or len([k for k in mode if k in DISRUPTION_UNION]) != 1
        or len(mode) != 1
    ):
        problems.append(
            Problem(
                path, f"{mode!r} must set exactly one of single or all", "write {single: {}} or {all: {}}"
            )
        )


def _template_name(template: Mapping[str, Any], path: str, problems: Problems) -> None:
    name = template.get("name")
    where = at(path, "name")
    if not isinstance(name, str) or not name:
        problems.append(Problem(where, "is required", "name the template (a DNS label)"))
    elif len(name) > 63 or not DNS_LABEL.fullmatch(name):
        problems.append(
            Problem(
                where,
                f"{name[:80]!r} is not a DNS label",
                "use at most 63 lower-case letters, digits and '-'",
            )
        )


def _unique_names(entries: Sequence[Any], path: str, problems: Problems) -> None:
    seen: set[str] = set()
    for i, entry in enumerate(entries):
        name = entry.get("name") if isinstance(entry, Mapping) else None
        if isinstance(name, str) and name:
            if name in seen:
                problems.append(
                    Problem(f"{path}[{i}].name", f"{name!r} is used twice", "template names must differ")
                )
            seen.add(name)


def _is_mapping(
    value: object, path: str, problems: Problems, *, required: bool = False
) -> TypeGuard[Mapping[str, Any]]:
    if value is None:
        if required:
            problems.append(Problem(path, "is required", "add this field"))
        return False
    if not isinstance(value, Mapping):
        problems.append(
            Problem(path, f"must be a mapping, got {type(value).__name__}", "check the indentation")
        )
        return False
    return True


def _list(value: object, path: str, problems: Problems) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        problems.append(
            Problem(path, f"must be a list, got {type(value).__name__}", "write it as a YAML list (- item)")
        )
        return []
    return value
