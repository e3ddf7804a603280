"""The API server's admission of one object, as ``kubectl apply`` meets it: ``validate_create``
for a new Workload, PodGroup, CompositePodGroup or Job (its metadata, ``spec.scheduling`` and
what toposched reads of its pod template), ``validate_update`` for a changed one. Each raises ``WorkloadSpecError`` with every problem at
its field path and the API server's message.

On an update, the object's kind, name and namespace stay (``ValidateObjectMetaUpdate``); the new object passes
every create rule on what changed (declarative validation ratchets: a stored value that is
unchanged is not checked again); and each changed field follows its type's transition markers
(``+k8s:immutable``, ``+k8s:update=NoSet/NoUnset/NoAddItem/NoRemoveItem``). So, in ``v1beta1``, a
Workload's templates can be neither added nor removed, a PodGroup's constraints and parent never
change, and its policy cannot switch between basic and gang while ``gang.minCount`` may change;
in ``v1alpha2`` the whole policy is immutable.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.frontends.kube.declarative import object_problems, served_kinds
from toposched.frontends.kube.load import LinkedPod, pod_shape
from toposched.frontends.kube.rules import (
    Problems,
    check_metadata,
    check_object,
    job_scheduling_problems,
    workload_spec_problems,
)
from toposched.model import Problem, WorkloadSpecError
from toposched.model.k8s_content import FieldErrorType, field_error
from toposched.model.lenient import mapping, text
from toposched.wire.batch import API_VERSION as BATCH_API
from toposched.wire.batch import job_name_problems
from toposched.wire.scheduling import WORKLOAD, api_version_of, is_scheduling_object


def validate_create(obj: Mapping[str, Any]) -> None:
    """Refuse an object the API server would not create; kinds other than the
    ``scheduling.k8s.io`` ones and a batch/v1 Job have no rules here."""
    problems: Problems = []
    kind = text(obj.get("kind"))
    if is_scheduling_object(obj):
        check_object(obj, api_version_of(obj), kind, "", problems)
    elif kind == "Job" and api_version_of(obj) == BATCH_API:
        check_metadata(obj, "", problems)
        problems += job_name_problems(obj, "")
        problems += job_scheduling_problems(mapping(obj.get("spec")), "")
        problems += _template_problems(obj)
    if problems:
        raise WorkloadSpecError(problems)


def _template_problems(job: Mapping[str, Any]) -> Problems:
    """What toposched reads of a Job's pod template (requests, tolerations), checked as the API
    server checks them; the rest of the template is the Job API's own."""
    template = mapping(mapping(job.get("spec")).get("template"))
    problems: Problems = []
    pod_shape(LinkedPod("spec.template", {"spec": mapping(template.get("spec"))}, ""), problems)
    return problems


def validate_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> None:
    """Refuse an update the API server would refuse (``WorkloadSpecError`` listing every
    problem with its field path); kinds other than the ``scheduling.k8s.io`` ones have no rules
    here."""
    problems: Problems = []
    kind, api_version = text(new.get("kind")), api_version_of(new)
    if old.get("kind") != kind:
        problems.append(
            Problem("kind", f"an update keeps the object's kind ({old.get('kind')!r})", "create a new object")
        )
    for field in ("name", "namespace"):
        before, after = mapping(old.get("metadata")).get(field), mapping(new.get("metadata")).get(field)
        if before != after:
            problems.append(
                Problem(
                    f"metadata.{field}",
                    field_error(FieldErrorType.INVALID, after, "field is immutable"),
                    "create a new object",
                )
            )
    if kind == "Job" and api_version == BATCH_API:
        check_metadata(new, "", problems)
        problems += job_scheduling_problems(mapping(new.get("spec")), "", mapping(old.get("spec")))
    elif kind in served_kinds(api_version):
        check_metadata(new, "", problems)
        found, decoded = object_problems(new, api_version, kind, "", old=old)
        problems += found
        spec = new.get("spec")
        if kind == WORKLOAD and isinstance(spec, Mapping) and decoded:
            problems += workload_spec_problems(spec, "spec")
    if problems:
        raise WorkloadSpecError(problems)
