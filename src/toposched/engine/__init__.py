"""Place gangs on a snapshot: Kueue's topology-aware semantics for Kueue gangs, KAI's group tree
(``Semantics.HIERARCHY``: subgroups, minimums, several topologies) for KAI, OSMO and Grove, and
kube-scheduler's PodGroup placement (``Semantics.KUBE``) for upstream Kubernetes workloads.

``place_gang`` (on a snapshot, plus ``snapshots`` by topology name for groups naming another
Topology) and ``place`` (on a cluster) return a ``Placement`` or an ``Unschedulable`` value;
``replace_failed_node`` repairs an admitted gang after a node failure; ``usage_of`` gives the
per-node usage to commit with ``Snapshot.add_usage``. ``search=Search.COMPLETE`` adds an exact
search, bounded by a ``SearchBudget``, for gangs the faithful solvers refuse.

Rooms: ``core`` (what every solver shares), one subpackage per solver (``kueue``, ``kai``,
``kube``, ``exact``, independent of each other), ``policies`` (one ordering per module), and at
this level the callers of the solvers (``place``, ``explain``, ``defrag``, ``replace``, the
``session``) with the built-in policy ``profiles``. Other packages import from here only.
"""

from toposched.engine.core.budget import SearchBudget, WorkClock
from toposched.engine.core.options import (
    DEFAULT_ROUND_SECONDS,
    DEFAULT_SECONDS,
    DEFAULT_STEPS,
    PlacementOptions,
)
from toposched.engine.core.policy_registry import PlacementPolicy, PolicyRegistry
from toposched.engine.core.statement import Statement
from toposched.engine.defrag import plan_defrag
from toposched.engine.explain import explain_refusal
from toposched.engine.place import named_topologies, place_gang, usage_of
from toposched.engine.profiles import builtin as builtin_policies
from toposched.engine.replace import replace_failed_node
from toposched.engine.session import PlacementSession, open_session, place

__all__ = [
    "DEFAULT_ROUND_SECONDS",
    "DEFAULT_SECONDS",
    "DEFAULT_STEPS",
    "PlacementOptions",
    "PlacementPolicy",
    "PlacementSession",
    "PolicyRegistry",
    "SearchBudget",
    "Statement",
    "WorkClock",
    "builtin_policies",
    "explain_refusal",
    "named_topologies",
    "open_session",
    "plan_defrag",
    "place",
    "place_gang",
    "replace_failed_node",
    "usage_of",
]
