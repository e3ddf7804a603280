"""Shared helpers of the PodGrouper plugins: object access, integer parsing with typed errors,
the PodGroup name and queue, and the result type ``KaiGrouping``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kai import keys
from toposched.model import PodBudget, Problem, WorkloadSpecError
from toposched.model.lenient import mapping
from toposched.wire.kai import NO_CONSTRAINT, PodGroup, TopologyConstraint


@dataclass(frozen=True, slots=True)
class KaiGrouping:
    """What the PodGrouper produces for one pod: the PodGroup, the leaf subgroup the pod joins
    (None = no subgroup label) and warnings about ignored annotations."""

    pod_group: PodGroup
    subgroup: str | None = None
    warnings: tuple[str, ...] = ()

    def pod_labels(self) -> dict[str, str]:
        """Labels the PodGrouper writes on the pod."""
        return {keys.SUBGROUP_NAME: self.subgroup} if self.subgroup is not None else {}

    def pod_annotations(self) -> dict[str, str]:
        """Annotations the PodGrouper writes on the pod."""
        return {keys.POD_GROUP_NAME: self.pod_group.name}


def dig(obj: object, *path: str) -> Any:
    """``obj[path[0]][path[1]]...``; None as soon as a step is missing or not a mapping."""
    current: Any = obj
    for step in path:
        if not isinstance(current, Mapping):
            return None
        current = current.get(step)
    return current


def notes_of(obj: object) -> Mapping[str, Any]:
    return mapping(dig(obj, "metadata", "annotations"))


def labels(obj: object) -> Mapping[str, Any]:
    return mapping(dig(obj, "metadata", "labels"))


def fail(path: str, message: str, hint: str = "") -> WorkloadSpecError:
    return WorkloadSpecError([Problem(path, message, hint)])


def parse_int(value: object, path: str, what: str) -> int:
    """An annotation or label value → int, or ``WorkloadSpecError`` naming key and value."""
    if isinstance(value, bool):
        raise fail(path, f"invalid {what} {value!r}", "use a whole number")
    if isinstance(value, int):
        return value
    try:
        return int(str(value).strip())
    except ValueError:
        raise fail(path, f"invalid {what} {value!r}", "use a whole number") from None


def count(value: object, path: str, default: int, *, limit: int) -> int:
    """A replica-like spec count: absent = ``default``; negative, non-integer or more pods than
    ``limit`` (the pod limit per gang) = error."""
    if value is None:
        return default
    number = parse_int(value, path, "count")
    if number < 0:
        raise fail(path, f"count must be >= 0, got {number}", "")
    too_many = PodBudget(limit).check(path, number)
    if too_many is not None:
        raise WorkloadSpecError([too_many])
    return number


def base_name(workload: Mapping[str, Any]) -> str:
    """KAI's default PodGroup name: ``pg-<top owner name>-<top owner uid>``."""
    meta = mapping(workload.get("metadata"))
    return f"pg-{meta.get('name', '')}-{meta.get('uid', '')}"


def namespace(workload: Mapping[str, Any], pod: Mapping[str, Any]) -> str:
    return str(dig(workload, "metadata", "namespace") or dig(pod, "metadata", "namespace") or "default")


def queue(workload: Mapping[str, Any], pod: Mapping[str, Any]) -> str:
    """Queue label on the top owner, else on the pod, else KAI's ``default-queue``."""
    return str(labels(workload).get(keys.QUEUE) or labels(pod).get(keys.QUEUE) or keys.DEFAULT_QUEUE)


def constraint_from(notes: Mapping[str, Any]) -> TopologyConstraint:
    """The three ``kai.scheduler/topology*`` annotations as a constraint. A topology name
    without any level is no constraint (KAI would hold such a job pending forever)."""
    found = TopologyConstraint(
        str(notes.get(keys.TOPOLOGY) or ""),
        str(notes.get(keys.REQUIRED) or ""),
        str(notes.get(keys.PREFERRED) or ""),
    )
    return found if has_levels(found) else NO_CONSTRAINT


def has_levels(constraint: TopologyConstraint) -> bool:
    return bool(constraint.required or constraint.preferred)
