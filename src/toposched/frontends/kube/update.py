"""The API server's update rules for Workloads and PodGroups: which fields are immutable.

A Workload's controllerRef and templates never change (no template added or removed). A
PodGroup keeps its template reference, constraints, parent, claims, disruption mode, priority and
preemption policy; its policy cannot switch between basic and gang, and only ``gang.minCount``
may change, since v1alpha3 (in v1alpha2 the whole policy is immutable).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.frontends.kube.rules import Problems, at
from toposched.model import Problem, WorkloadSpecError
from toposched.model.lenient import mapping, text
from toposched.wire.scheduling import POD_GROUP, V1ALPHA2, WORKLOAD

POD_GROUP_IMMUTABLE = (
    "workloadRef",
    "podGroupTemplateRef",
    "schedulingConstraints",
    "parentCompositePodGroupName",
    "resourceClaims",
    "disruptionMode",
    "priorityClassName",
    "priority",
    "preemptionPolicy",
)
WORKLOAD_IMMUTABLE = ("controllerRef", "podGroupTemplates", "compositePodGroupTemplates")


def validate_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    """Refuse an update of a Workload or PodGroup that changes an immutable field
    (``WorkloadSpecError`` listing every such field); other kinds have no rules here."""
    problems: Problems = []
    kind = new.get("kind")
    if old.get("kind") != kind or text(mapping(old.get("metadata")).get("name")) != text(
        mapping(new.get("metadata")).get("name")
    ):
        problems.append(
            Problem("metadata.name", "an update keeps the object's kind and name", "create a new object")
        )
    old_spec, new_spec = mapping(old.get("spec")), mapping(new.get("spec"))
    if kind == WORKLOAD:
        _unchanged(old_spec, new_spec, WORKLOAD_IMMUTABLE, problems)
    elif kind == POD_GROUP:
        _unchanged(old_spec, new_spec, POD_GROUP_IMMUTABLE, problems)
        _policy_update(old_spec, new_spec, text(new.get("apiVersion")), problems)
    if problems:
        raise WorkloadSpecError(problems)


def _unchanged(
    old: Mapping[str, Any], new: Mapping[str, Any], fields: tuple[str, ...], problems: Problems
) -> None:
    for field in fields:
        if old.get(field) != new.get(field):
            problems.append(
                Problem(
                    at("spec", field),
                    "is immutable",
                    "keep the value; delete and recreate the object to change it",
                )
            )


def _policy_update(
    old: Mapping[str, Any], new: Mapping[str, Any], api_version: str, problems: Problems
) -> None:
    before, after = mapping(old.get("schedulingPolicy")), mapping(new.get("schedulingPolicy"))
    if before == after:
        return
    where = "spec.schedulingPolicy"
    if ("gang" in before) != ("gang" in after):
        problems.append(Problem(where, "cannot switch between basic and gang", "recreate the PodGroup"))
    elif api_version == V1ALPHA2:
        problems.append(
            Problem(
                where, f"is immutable in {api_version}", "only v1alpha3 and v1beta1 let gang.minCount change"
            )
        )
    elif {k: v for k, v in mapping(before.get("gang")).items() if k != "minCount"} != {
        k: v for k, v in mapping(after.get("gang")).items() if k != "minCount"
    }:
        problems.append(Problem(at(where, "gang"), "only minCount may change", "keep the other fields"))
