"""OSMO front end: pool configs with ``topology_keys``, workflow specs with topology
requirements, the design's tree algorithm to KAI PodGroups (with subgroups), the per-pool KAI
Topology and its sync, and the compiled groups as the IR."""

from toposched.frontends.osmo.compile import (
    compile_objects,
    compile_osmo,
    compile_workflow,
    podgroup_name,
)
from toposched.frontends.osmo.gang import to_gang
from toposched.frontends.osmo.objects import CompiledGroup, Priority, topology_object
from toposched.frontends.osmo.pool import Backend, Pool, SchedulerType, TopologyKey, parse_pool, pool_keys
from toposched.frontends.osmo.sync import Op, Operation, apply_operations, is_current, sync_topologies
from toposched.frontends.osmo.tree import SubGroupSpec, TopologyTree, build_tree
from toposched.frontends.osmo.workflow import Requirement, Task, TaskGroup, Workflow, parse_workflow

__all__ = [
    "Backend",
    "CompiledGroup",
    "Op",
    "Operation",
    "Pool",
    "Priority",
    "Requirement",
    "SchedulerType",
    "SubGroupSpec",
    "Task",
    "TaskGroup",
    "TopologyKey",
    "TopologyTree",
    "Workflow",
    "apply_operations",
    "build_tree",
    "compile_objects",
    "compile_osmo",
    "compile_workflow",
    "is_current",
    "parse_pool",
    "parse_workflow",
    "podgroup_name",
    "pool_keys",
    "sync_topologies",
    "to_gang",
    "topology_object",
]
