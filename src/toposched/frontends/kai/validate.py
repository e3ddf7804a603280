"""Admission checks as KAI runs them: the PodGroup validating webhook (subgroup tree and
min-field rules) and the Topology CRD rules plus the alias webhook."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toposched.model import Problem, SpecError, Topology, TopologySpecError
from toposched.model.lenient import mapping
from toposched.wire.crd import custom_resource_problems, installed
from toposched.wire.kai import TOPOLOGY_API, PodGroup, parse_podgroup, parse_topology

TOPOLOGY = installed(TOPOLOGY_API, "Topology")


@dataclass(frozen=True, slots=True)
class ValidationResult:
    """Admission answer: rejected when ``problems`` is non-empty; ``warnings`` never reject."""

    accepted: bool
    problems: tuple[Problem, ...] = ()
    warnings: tuple[Problem, ...] = ()

    @property
    def message(self) -> str:
        return "; ".join(str(p) for p in (*self.problems, *self.warnings))


def validate_podgroup(
    obj: Mapping[str, Any], *, operation: str = "CREATE", old: Mapping[str, Any] | None = None
) -> ValidationResult:
    """Admit or reject a PodGroup as KAI's webhook does. ``old`` is accepted for symmetry with
    updates; KAI's PodGroup rules do not compare with the stored object, only relax one rule."""
    del old  # the rules depend on the operation only
    try:
        group = parse_podgroup(obj)
    except SpecError as error:
        return ValidationResult(False, error.problems)
    structural = _tree_problems(group)
    if structural:
        return ValidationResult(False, tuple(structural))
    problems, warnings = _min_problems(group, update=operation.upper() == "UPDATE")
    return ValidationResult(not problems, tuple(problems), tuple(warnings))


def _tree_problems(group: PodGroup) -> list[Problem]:
    """Duplicates first, then missing parents, then cycles (KAI's order)."""
    seen: set[str] = set()
    for i, sg in enumerate(group.sub_groups):
        if sg.name in seen:
            return [
                Problem(
                    f"spec.subGroups[{i}].name", f"duplicate subgroup name {sg.name}", "names must be unique"
                )
            ]
        seen.add(sg.name)
    problems: list[Problem] = []
    for i, sg in enumerate(group.sub_groups):
        if sg.parent is not None and sg.parent not in seen:
            problems.append(
                Problem(
                    f"spec.subGroups[{i}].parent",
                    f"parent {sg.parent} of {sg.name} was not found",
                    "name a subgroup of the same PodGroup, or leave parent empty",
                )
            )
    if problems:
        return problems
    parent_of = {sg.name: sg.parent for sg in group.sub_groups}
    in_cycle: list[str] = []
    for sg in group.sub_groups:
        visited: set[str] = set()
        current: str | None = sg.name
        while current is not None and current not in visited:
            visited.add(current)
            current = parent_of.get(current)
        if current == sg.name:
            in_cycle.append(sg.name)
    if in_cycle:
        return [
            Problem(
                "spec.subGroups",
                f"cycle detected in subgroups: {', '.join(in_cycle)}",
                "every parent chain must end at a top-level subgroup",
            )
        ]
    return []


def _min_problems(group: PodGroup, *, update: bool) -> tuple[list[Problem], list[Problem]]:
    problems: list[Problem] = []
    warnings: list[Problem] = []
    roots = len(group.children(None))
    if group.min_member is not None and group.min_sub_group is not None:
        problems.append(
            Problem("spec", "minMember and minSubGroup are mutually exclusive", "set only one of them")
        )
    if group.min_sub_group is not None and group.min_sub_group > roots:
        warnings.append(
            Problem(
                "spec.minSubGroup",
                f"minSubGroup ({group.min_sub_group}) exceeds the number of direct child SubGroups ({roots})",
                "the PodGroup can never be satisfied",
            )
        )
    for i, sg in enumerate(group.sub_groups):
        where = f"spec.subGroups[{i}]"
        children = len(group.children(sg.name))
        if sg.min_member is not None and sg.min_sub_group is not None:
            problems.append(
                Problem(
                    where, f"subgroup {sg.name}: minMember and minSubGroup are mutually exclusive", "set one"
                )
            )
        if children == 0:
            if sg.min_sub_group is not None:
                problems.append(
                    Problem(
                        f"{where}.minSubGroup",
                        f"subgroup {sg.name}: minSubGroup cannot be set on a leaf SubGroup",
                        "use minMember on leaves",
                    )
                )
            if sg.min_member is None:
                problems.append(
                    Problem(
                        f"{where}.minMember",
                        f"subgroup {sg.name}: minMember is required",
                        "0 makes it elastic",
                    )
                )
            continue
        if sg.min_member is not None:
            issue = Problem(
                f"{where}.minMember",
                f"subgroup {sg.name}: minMember cannot be set on a mid-level SubGroup",
                "use minSubGroup on subgroups with children",
            )
            (warnings if update else problems).append(issue)
        if sg.min_sub_group is not None and sg.min_sub_group > children:
            warnings.append(
                Problem(
                    f"{where}.minSubGroup",
                    f"subgroup {sg.name}: minSubGroup ({sg.min_sub_group}) exceeds the number of direct "
                    f"child SubGroups ({children})",
                    "the subgroup can never be satisfied",
                )
            )
    return problems, warnings


def validate_topology(
    obj: Mapping[str, Any], *, operation: str = "CREATE", old: Mapping[str, Any] | None = None
) -> ValidationResult:
    """Admit or reject a ``kai.scheduler/v1alpha1`` Topology: the API server's check against the
    installed CRD (``toposched.wire.crd``: strict decoding, metadata, 1..16 levels, label keys,
    and the CEL rules: unique nodeLabels, hostname last, nodeLabels immutable on update) and the
    alias webhook (aliases unique, never equal to a nodeLabel)."""
    update = operation.upper() == "UPDATE" and old is not None
    return ValidationResult(not (found := _topology_problems(obj, old if update else None)), tuple(found))


def topology_from_object(obj: Mapping[str, Any]) -> Topology:
    """A KAI Topology object → the model ``Topology`` (aliases kept). Raises ``TopologySpecError``."""
    problems = _topology_problems(obj, None)
    if problems:
        raise TopologySpecError(problems)
    return parse_topology(obj)


def _topology_problems(obj: Mapping[str, Any], old: Mapping[str, Any] | None) -> list[Problem]:
    if not isinstance(obj, Mapping):
        return [Problem("", "a Topology must be a mapping", "pass the parsed YAML object")]
    problems, _ = custom_resource_problems(obj, TOPOLOGY, old=old)
    return problems or alias_problems(obj)


def alias_problems(obj: Mapping[str, Any]) -> list[Problem]:
    """KAI's Topology webhook on a Topology the CRD admits: aliases unique, none a nodeLabel."""
    levels = [lv for lv in mapping(obj.get("spec")).get("levels") or [] if isinstance(lv, Mapping)]
    labels = [lv.get("nodeLabel") for lv in levels]
    problems: list[Problem] = []
    seen: dict[str, int] = {}
    for i, level in enumerate(levels):
        alias = level.get("alias")
        if not isinstance(alias, str):
            continue
        if alias in seen:
            problems.append(
                Problem(
                    f"spec.levels[{i}].alias",
                    f"alias {alias!r} is used twice; aliases must be unique",
                    "rename one",
                )
            )
            continue
        seen[alias] = i
        if alias in labels:
            problems.append(
                Problem(
                    f"spec.levels[{i}].alias",
                    f"alias {alias!r} must not equal a nodeLabel",
                    "pick a short name that is not a label key of this Topology",
                )
            )
    return problems
