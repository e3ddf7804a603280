"""Compile a validated workflow: one PodGroup per group, pod metadata, the pool's Topology.

``compile_osmo`` takes a parsed workflow and pool (intake reads their text), for library users;
the commands and the service go through the front-end registry.
"""

from __future__ import annotations

import re
from typing import Any

from toposched.frontends.osmo.objects import CompiledGroup, Priority, topology_object
from toposched.frontends.osmo.pool import Pool, parse_pool
from toposched.frontends.osmo.tree import build_tree
from toposched.frontends.osmo.workflow import Workflow, parse_workflow
from toposched.model import Problem, WorkloadSpecError

_NOT_DNS = re.compile(r"[^a-z0-9-]+")


def podgroup_name(workflow: str, group: str) -> str:
    """A stable PodGroup name (OSMO uses a random uuid; a name derived from the workflow and the
    group keeps output reproducible). Lower case, ``_`` as ``-``."""
    return _NOT_DNS.sub("-", f"{workflow}-{group}".lower()).strip("-")


def compile_workflow(
    workflow: Workflow, pool: Pool, priority: Priority | str = Priority.NORMAL
) -> list[CompiledGroup]:
    """Run the tree algorithm on every group; groups in spec order."""
    level = _priority(priority)
    return [
        CompiledGroup(
            group=group,
            name=podgroup_name(workflow.name, group.name),
            namespace=pool.backend.k8s_namespace,
            pool=pool,
            priority=level,
            tree=build_tree([(t.name, t.requirements) for t in group.tasks]),
        )
        for group in workflow.groups
    ]


def compile_objects(
    workflow: Workflow,
    pool: Pool,
    priority: Priority | str = Priority.NORMAL,
    compiled: list[CompiledGroup] | None = None,
) -> dict[str, Any]:
    """``{podGroups: {group: PodGroup}, pods: {task: {metadata, spec}}, topology}``; ``compiled``:
    the groups ``compile_workflow`` already made of this workflow for this pool and priority (not
    compiled again)."""
    if compiled is None:
        compiled = compile_workflow(workflow, pool, priority)
    pods: dict[str, Any] = {}
    groups: dict[str, Any] = {}
    for cg in compiled:
        groups[cg.group.name] = cg.to_object(
            {"osmo.workflow_id": workflow.name, "osmo.group_name": cg.group.name}
        )
        for task in cg.group.tasks:
            pods[task.name] = {
                "metadata": cg.pod_metadata(task.name, workflow.labels),
                "spec": {"schedulerName": pool.backend.scheduler_settings.scheduler_name},
            }
    return {"podGroups": groups, "pods": pods, "topology": topology_object(pool)}


def compile_osmo(
    workflow: object, pool: object, priority: Priority | str = Priority.NORMAL
) -> dict[str, Any]:
    """Compile a parsed OSMO workflow document for a parsed pool document.

    The pool document holds the pool with its backend inline, or ``{pool, backend}``. Raises
    ``TopologySpecError`` for a bad pool and ``WorkloadSpecError`` for a bad workflow.
    """
    checked = parse_pool(pool)
    return compile_objects(parse_workflow(workflow, checked), checked, priority)


def _priority(priority: Priority | str) -> Priority:
    try:
        return Priority(str(priority).upper())
    except ValueError:
        raise WorkloadSpecError(
            [Problem("priority", f"unknown priority {priority!r}", "use HIGH, NORMAL or LOW")]
        ) from None
