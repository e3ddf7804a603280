"""Workflow rules beyond the schema. Every check runs and every problem is reported.

Paths name the workflow's groups, tasks and resources; messages repeat the names so that a
single line says where the problem is.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from toposched.frontends.osmo.pool import Pool
from toposched.frontends.osmo.spec import Document, ResourceSpec, TaskSpec
from toposched.model import Problem, is_label_key

NAME = re.compile(r"^[a-zA-Z]([a-zA-Z0-9_-]*[a-zA-Z0-9])?$")
MAX_LABELS = 16


def check_workflow(doc: Document, pool: Pool) -> list[Problem]:
    """All rule violations of a schema-valid document, for the given pool."""
    wf = doc.workflow
    problems: list[Problem] = []
    if doc.resources is not None and wf.resources is not None:
        problems.append(
            Problem(
                "resources",
                f"workflow {wf.name!r} defines resources both beside and inside workflow",
                "keep one table, preferably workflow.resources",
            )
        )
    if wf.groups is not None and wf.tasks is not None:
        problems.append(
            Problem(
                "workflow", f"workflow {wf.name!r} has both groups and tasks", "use groups or tasks, not both"
            )
        )
    elif wf.groups is None and wf.tasks is None:
        problems.append(
            Problem("workflow", f"workflow {wf.name!r} has no groups and no tasks", "add groups or tasks")
        )
    problems += _names(doc)
    problems += _labels(doc)
    problems += _leads(doc, exactly_one=doc.resources is None)
    resources = doc.resources if doc.resources is not None else wf.resources
    table = dict(resources) if resources is not None else {"default": ResourceSpec()}
    problems += _references(doc, table)
    key_problems = _pool_keys(wf.name, table, pool)
    problems += key_problems
    if not key_problems:
        problems += _key_chains(doc, table, pool)
    return problems


def _groups(doc: Document) -> list[tuple[str, Sequence[TaskSpec], str]]:
    """(group name, tasks, path) for both layouts."""
    wf = doc.workflow
    if wf.groups is not None:
        return [(g.name, g.tasks, f"workflow.groups[{g.name}]") for g in wf.groups]
    return [(f"{t.name}-group", (t,), "workflow") for t in wf.tasks or ()]


def _normal(name: str) -> str:
    return name.lower().replace("_", "-")


def _names(doc: Document) -> list[Problem]:
    wf = doc.workflow
    problems: list[Problem] = []
    named: list[tuple[str, str, str]] = [("workflow", wf.name, "workflow.name")]
    task_seen: dict[str, str] = {}
    group_seen: dict[str, str] = {}
    for group, tasks, path in _groups(doc):
        if wf.groups is not None:
            named.append(("group", group, f"{path}.name"))
            _unique(group_seen, group, f"{path}.name", "group", wf.name, problems)
        for task in tasks:
            where = f"{path}.tasks[{task.name}].name"
            named.append(("task", task.name, where))
            _unique(task_seen, task.name, where, "task", wf.name, problems)
    for kind, name, where in named:
        if not NAME.match(name):
            problems.append(
                Problem(
                    where,
                    f"{kind} name {name!r} in workflow {wf.name!r} is not a valid name",
                    "start with a letter; use letters, digits, '-' and '_'; end with a letter or digit",
                )
            )
    return problems


def _unique(seen: dict[str, str], name: str, where: str, kind: str, wf: str, problems: list[Problem]) -> None:
    first = seen.get(_normal(name))
    if first is None:
        seen[_normal(name)] = name
    else:
        problems.append(
            Problem(
                where,
                f"{kind}s {first!r} and {name!r} in workflow {wf!r} have the same name "
                "(case and '_' versus '-' are not told apart)",
                f"rename one of the {kind}s",
            )
        )


def _labels(doc: Document) -> list[Problem]:
    wf = doc.workflow
    problems = []
    if len(wf.labels) > MAX_LABELS:
        problems.append(
            Problem(
                "workflow.labels", f"{len(wf.labels)} labels, at most {MAX_LABELS} are allowed", "drop some"
            )
        )
    for key in wf.labels:
        if not is_label_key(key):
            problems.append(
                Problem(
                    f"workflow.labels.{key}",
                    f"{key!r} is not a valid label key",
                    "use e.g. team or example.com/team",
                )
            )
    return problems


def _leads(doc: Document, *, exactly_one: bool) -> list[Problem]:
    """OSMO needs exactly one lead per group of several tasks; the design's spelling writes no
    lead (the first task leads), but two leads are still wrong."""
    problems = []
    for group, tasks, path in _groups(doc):
        leads = sum(t.lead for t in tasks)
        if not tasks:
            problems.append(
                Problem(f"{path}.tasks", f"group {group!r} has no tasks", "add at least one task")
            )
        elif exactly_one and len(tasks) > 1 and leads != 1:
            problems.append(
                Problem(
                    f"{path}.tasks",
                    f"group {group!r} of workflow {doc.workflow.name!r} has {leads} leader(s) "
                    "but must have exactly one",
                    "mark exactly one task of the group with lead: true",
                )
            )
        elif leads > 1:
            problems.append(
                Problem(
                    f"{path}.tasks",
                    f"group {group!r} of workflow {doc.workflow.name!r} has {leads} leader(s); "
                    "at most one is allowed",
                    "keep lead: true on one task",
                )
            )
    return problems


def _references(doc: Document, table: dict[str, ResourceSpec]) -> list[Problem]:
    problems = []
    for group, tasks, path in _groups(doc):
        for task in tasks:
            if task.resource in table:
                continue
            where = f"{path}.tasks[{task.name}].resource"
            if task.resource == "default":
                message = (
                    f"task {task.name!r} of group {group!r} uses the default resource, "
                    "but the workflow defines no 'default' resource"
                )
                hint = "add resources.default or set resource: on the task"
            else:
                message = f"task {task.name!r} of group {group!r} uses undefined resource {task.resource!r}"
                hint = f"define it under resources, or use one of: {', '.join(sorted(table))}"
            problems.append(Problem(where, message, hint))
    return problems


def _pool_keys(wf: str, table: dict[str, ResourceSpec], pool: Pool) -> list[Problem]:
    """Every resource entry, used or not, may only name keys the pool offers, each once."""
    problems = []
    offered = pool.keys
    for res_name, res in table.items():
        seen: set[str] = set()
        for req in res.topology:
            where = f"workflow.resources.{res_name}.topology[{req.key}].key"
            if req.key not in offered:
                available = ", ".join(sorted(offered)) if offered else "none: the pool has no topology keys"
                problems.append(
                    Problem(
                        where,
                        f'Topology key "{req.key}" in resource "{res_name}" of workflow {wf!r} '
                        f"is not available in pool {pool.name}",
                        f"available keys: {available}",
                    )
                )
            elif req.key in seen:
                problems.append(
                    Problem(
                        where,
                        f'topology key "{req.key}" is listed twice in resource "{res_name}"',
                        "name each key once per resource",
                    )
                )
            seen.add(req.key)
    return problems


def _key_chains(doc: Document, table: dict[str, ResourceSpec], pool: Pool) -> list[Problem]:
    """Tasks with topology name the same keys, except that a task may leave out finer ones
    (it is then padded with preferred levels). Checked over the whole workflow."""
    chains: dict[tuple[str, ...], str] = {}
    for _, tasks, _ in _groups(doc):
        for task in tasks:
            res = table.get(task.resource)
            if res is None or not res.topology:
                continue
            keys = tuple(sorted((r.key for r in res.topology), key=pool.order_of))
            chains.setdefault(keys, task.name)
    if not chains:
        return []
    longest = max(chains, key=len)
    bad = [keys for keys in chains if keys != longest[: len(keys)]]
    if not bad:
        return []
    found = "; ".join(f"{'/'.join(keys)} (task {task!r})" for keys, task in chains.items())
    return [
        Problem(
            "workflow.resources",
            f"all tasks of workflow {doc.workflow.name!r} must use the same topology keys; found {found}",
            "give every task the same keys (a task may leave out only the finest ones), "
            "or give a task no topology at all",
        )
    ]
