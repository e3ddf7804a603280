"""Admission checks as KAI runs them: the PodGroup validating webhook (subgroup tree and
min-field rules) and the Topology CRD rules plus the alias webhook."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toposched.model import HOSTNAME, Problem, SpecError, Topology, TopologySpecError, is_label_key
from toposched.wire.kai import PodGroup, parse_podgroup, parse_topology

MAX_TOPOLOGY_LEVELS = 16


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
    """Admit or reject a ``kai.scheduler/v1alpha1`` Topology: the CRD schema and CEL rules
    (1..16 levels, label keys, unique nodeLabels, hostname last, nodeLabels immutable on
    update) and the alias webhook (aliases unique, never equal to a nodeLabel)."""
    problems = _topology_problems(obj)
    changed = old is not None and _node_labels(old) != _node_labels(obj)
    if operation.upper() == "UPDATE" and changed and not problems:
        problems.append(
            Problem(
                "spec.levels",
                "nodeLabel structure is immutable; only aliases may be edited",
                "create a new Topology to change levels",
            )
        )
    return ValidationResult(not problems, tuple(problems))


def topology_from_object(obj: Mapping[str, Any]) -> Topology:
    """A KAI Topology object → the model ``Topology`` (aliases kept). Raises ``TopologySpecError``."""
    problems = _topology_problems(obj)
    if problems:
        raise TopologySpecError(problems)
    return parse_topology(obj)


def _node_labels(obj: Mapping[str, Any]) -> list[object]:
    spec = obj.get("spec") if isinstance(obj, Mapping) else None
    levels = spec.get("levels") if isinstance(spec, Mapping) else None
    if not isinstance(levels, Sequence):
        return []
    return [lv.get("nodeLabel") if isinstance(lv, Mapping) else None for lv in levels]


def _topology_problems(obj: Mapping[str, Any]) -> list[Problem]:
    problems: list[Problem] = []
    metadata = obj.get("metadata") if isinstance(obj, Mapping) else None
    if not isinstance(metadata, Mapping) or not metadata.get("name"):
        problems.append(Problem("metadata.name", "a Topology needs a name", "set metadata.name"))
    spec = obj.get("spec") if isinstance(obj, Mapping) else None
    levels = spec.get("levels") if isinstance(spec, Mapping) else None
    if not isinstance(levels, list) or not 1 <= len(levels) <= MAX_TOPOLOGY_LEVELS:
        count = len(levels) if isinstance(levels, list) else 0
        problems.append(
            Problem(
                "spec.levels",
                f"a Topology has 1 to {MAX_TOPOLOGY_LEVELS} levels, got {count}",
                "list the node labels, coarsest first",
            )
        )
        return problems
    labels: list[str] = []
    aliases: dict[str, int] = {}
    for i, level in enumerate(levels):
        where = f"spec.levels[{i}]"
        if not isinstance(level, Mapping):
            problems.append(Problem(where, "a level must be a mapping with nodeLabel", ""))
            continue
        label = level.get("nodeLabel")
        if not isinstance(label, str) or not is_label_key(label):
            problems.append(
                Problem(
                    f"{where}.nodeLabel", f"{label!r} is not a valid node label key", "e.g. example.com/rack"
                )
            )
        else:
            labels.append(label)
        alias = level.get("alias")
        if alias is None:
            continue
        if not isinstance(alias, str) or not is_label_key(alias):
            problems.append(Problem(f"{where}.alias", f"{alias!r} is not a valid alias", "use e.g. rack"))
        elif alias in aliases:
            problems.append(
                Problem(
                    f"{where}.alias", f"alias {alias!r} is used twice; aliases must be unique", "rename one"
                )
            )
        else:
            aliases[alias] = i
    for label in dict.fromkeys(labels):
        if labels.count(label) > 1:
            problems.append(
                Problem("spec.levels", f"nodeLabel must be unique: {label!r} is listed twice", "remove one")
            )
    if HOSTNAME in labels and labels[-1] != HOSTNAME:
        problems.append(
            Problem(
                "spec.levels",
                f"the {HOSTNAME} label can only be used at the lowest level of topology",
                "move it to the end",
            )
        )
    for alias, i in aliases.items():
        if alias in labels:
            problems.append(
                Problem(
                    f"spec.levels[{i}].alias",
                    f"alias {alias!r} must not equal a nodeLabel",
                    "pick a short name that is not a label key of this Topology",
                )
            )
    return problems
