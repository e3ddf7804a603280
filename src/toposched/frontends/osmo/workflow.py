"""Parse and validate an OSMO workflow against its pool; the result is plain typed data.

Top-level ``tasks`` become one group each, named ``<task>-group`` (as OSMO does), so the rest of
the front end only sees groups.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from pydantic import ValidationError

from toposched.frontends.osmo.errors import problems_from
from toposched.frontends.osmo.pool import Pool
from toposched.frontends.osmo.rules import check_workflow
from toposched.frontends.osmo.spec import Document, ResourceSpec, TaskSpec, TopologyRequirement
from toposched.model import MAX_PODS_PER_GANG, PodBudget, Problem, Resources, SpecError, WorkloadSpecError
from toposched.model.names import dns_label

GPU = "nvidia.com/gpu"
_RESOURCE_NAMES = {"cpu": "cpu", "gpu": GPU, "memory": "memory", "storage": "ephemeral-storage"}


@dataclass(frozen=True, slots=True)
class Requirement:
    """One topology requirement, resolved against the pool: ``order`` 0 = coarsest level."""

    key: str
    label: str
    order: int
    group: str
    required: bool


@dataclass(frozen=True, slots=True)
class Task:
    """A task (one pod): its resource entry, requests and requirements sorted coarsest first."""

    name: str
    resource: str
    lead: bool
    requests: Resources
    requirements: tuple[Requirement, ...]
    pod_spec: Mapping[str, Any] | None = None  # the task's container (``PodSpec.template``)


@dataclass(frozen=True, slots=True)
class TaskGroup:
    name: str
    tasks: tuple[Task, ...]


@dataclass(frozen=True, slots=True)
class Workflow:
    """A validated workflow: groups in spec order, tasks in spec order."""

    name: str
    groups: tuple[TaskGroup, ...]
    labels: Mapping[str, str]


def parse_workflow(raw: object, pool: Pool, *, max_pods: int = MAX_PODS_PER_GANG) -> Workflow:
    """Validate a workflow spec (a parsed YAML/JSON mapping) for ``pool``.

    Raises ``WorkloadSpecError`` listing every problem (paths name groups and tasks), also when
    the workflow has more than ``max_pods`` tasks (one pod each).
    """
    if not isinstance(raw, Mapping):
        raise WorkloadSpecError(
            [Problem("", "a workflow spec is a mapping", "start the file with workflow:")]
        )
    try:
        doc = Document.model_validate(raw)
    except ValidationError as exc:
        raise WorkloadSpecError(problems_from(exc, raw)) from None
    wf = doc.workflow
    tasks = sum(len(g.tasks) for g in wf.groups) if wf.groups is not None else len(wf.tasks or ())
    too_many = PodBudget(max_pods).take(
        "workflow.groups" if wf.groups is not None else "workflow.tasks", tasks
    )
    if too_many is not None:
        raise WorkloadSpecError([too_many])
    problems = check_workflow(doc, pool)
    if problems:
        raise WorkloadSpecError(problems)
    return _build(doc, pool)


def _build(doc: Document, pool: Pool) -> Workflow:
    wf = doc.workflow
    resources = resources_of(doc)
    seed_spelling = doc.resources is not None
    problems: list[Problem] = []
    groups = []
    if wf.groups is not None:
        raw_groups = [(g.name, g.tasks) for g in wf.groups]
    else:
        raw_groups = [(f"{t.name}-group", (t,)) for t in wf.tasks or ()]
    for group_name, specs in raw_groups:
        no_lead = seed_spelling and not any(t.lead for t in specs)
        tasks = []
        for i, spec in enumerate(specs):
            res = resources[spec.resource]
            try:
                requests = requests_of(res, path=f"workflow.resources.{spec.resource}")
            except SpecError as exc:
                problems.extend(exc.problems)
                requests = Resources()
            reqs = tuple(sorted((_resolve(r, pool) for r in res.topology), key=lambda r: r.order))
            lead = spec.lead or len(specs) == 1 or (no_lead and i == 0)
            tasks.append(Task(spec.name, spec.resource, lead, requests, reqs, _pod_spec(spec, requests)))
        groups.append(TaskGroup(group_name, tuple(tasks)))
    if problems:
        raise WorkloadSpecError(problems)
    return Workflow(wf.name, tuple(groups), MappingProxyType(dict(wf.labels)))


def _pod_spec(task: TaskSpec, requests: Resources) -> Mapping[str, Any] | None:
    """The task's pod spec as OSMO writes its container: image, command, args, environment and
    the resource entry's requests. None without an image (an emitter then writes a placeholder)."""
    if not task.image:
        return None
    container: dict[str, Any] = {"name": dns_label(task.name, fallback="task"), "image": task.image}
    if task.command:
        container["command"] = list(task.command)
    if task.args:
        container["args"] = list(task.args)
    if task.environment:
        container["env"] = [{"name": k, "value": v} for k, v in task.environment.items()]
    if requests:
        container["resources"] = {"requests": requests.pretty()}
    return MappingProxyType({"containers": [container]})


def resources_of(doc: Document) -> dict[str, ResourceSpec]:
    """The resource table from either spelling; OSMO's default is ``{default: {}}``."""
    table = doc.resources if doc.resources is not None else doc.workflow.resources
    return dict(table) if table is not None else {"default": ResourceSpec()}


def requests_of(res: ResourceSpec, *, path: str) -> Resources:
    """A task's pod requests from its resource entry (``gpu`` counts ``nvidia.com/gpu``)."""
    raw: dict[str, object] = {}
    for field, name in _RESOURCE_NAMES.items():
        value = getattr(res, field)
        if value is not None:
            raw[name] = value
    return Resources.parse(raw, path=path)


def _resolve(req: TopologyRequirement, pool: Pool) -> Requirement:
    return Requirement(req.key, pool.label_of(req.key), pool.order_of(req.key), req.group, req.required)
