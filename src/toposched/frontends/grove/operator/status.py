"""Controller outputs: the KAI Topology per ClusterTopology with its drift status, and the
PodCliqueSet ``TopologyLevelsUnavailable`` condition."""

from __future__ import annotations

from typing import Any

from toposched.frontends.grove import (
    KAI_SCHEDULER,
    ClusterTopology,
    OperatorConfig,
    PodCliqueSet,
    kai_topology,
    parse_cluster_topology,
)

DRIFT = "SchedulerTopologyDrift"
LEVELS = "TopologyLevelsUnavailable"


def _condition(kind: str, status: str, reason: str, message: str = "") -> dict[str, str]:
    return {"type": kind, "status": status, "reason": reason, "message": message}


def _keys(obj: dict[str, Any] | None) -> list[str] | None:
    if obj is None:
        return None
    return [str(level.get("nodeLabel")) for level in obj.get("spec", {}).get("levels", [])]


def _owner(obj: dict[str, Any]) -> str | None:
    refs = obj.get("metadata", {}).get("ownerReferences") or []
    return next((str(r["name"]) for r in refs if r.get("controller")), None)


def kai_sync(
    ct_obj: dict[str, Any], objects: dict[Any, dict[str, Any]], kind: str, config: OperatorConfig
) -> None:
    """Create or replace the owned KAI Topology (KAI levels are immutable), or compare a bound
    external one; write ``status`` on the ClusterTopology."""
    ct: ClusterTopology = parse_cluster_topology(ct_obj)
    wanted = [level.key for level in ct.levels]
    bound = ct.reference(KAI_SCHEDULER)
    name = bound or ct.name
    current = objects.get((kind, "", name))
    if bound is None:
        if current is not None and _owner(current) != ct.name:
            in_sync, reason = False, "Drift"
            message = f"KAI Topology {name!r} exists but is not owned by ClusterTopology {ct.name!r}"
        else:
            if _keys(current) != wanted:
                objects[(kind, "", name)] = {**kai_topology(name, wanted, ct_obj), "kind": kind}
            in_sync, reason, message = True, "InSync", ""
    else:
        in_sync = _keys(current) == wanted
        reason = "InSync" if in_sync else "Drift"
        message = "" if in_sync else f"KAI Topology {name!r} is missing or its levels differ"
    status = ct_obj.setdefault("status", {})
    status["conditions"] = [_condition(DRIFT, "False" if in_sync else "True", reason, message)]
    status["schedulerTopologyStatuses"] = [
        {"schedulerName": KAI_SCHEDULER, "topologyReference": name, "inSync": in_sync, "message": message}
    ]
    if bound is not None and KAI_SCHEDULER not in config.backends:
        status["conditions"] = [
            _condition(DRIFT, "Unknown", "TopologyNotFound", "kai-scheduler is not enabled")
        ]


def pcs_condition(
    pcs: PodCliqueSet, topology: ClusterTopology | None, tas_enabled: bool
) -> dict[str, str] | None:
    """``TopologyLevelsUnavailable`` for a PodCliqueSet; None removes the condition."""
    if not pcs.has_constraint:
        return _condition(LEVELS, "False", "AllClusterTopologyLevelsAvailable") if tas_enabled else None
    if not tas_enabled:
        return _condition(LEVELS, "Unknown", "TopologyAwareSchedulingDisabled")
    if topology is None:
        return _condition(
            LEVELS, "Unknown", "ClusterTopologyNotFound", f"{pcs.resolved_topology()!r} not found"
        )
    missing = sorted(
        {d for c in pcs.constraints() for d in (c.required, c.preferred) if d and topology.depth(d) is None}
    )
    if missing:
        return _condition(
            LEVELS, "True", "ClusterTopologyLevelsUnavailable", f"missing domains: {', '.join(missing)}"
        )
    return _condition(LEVELS, "False", "AllClusterTopologyLevelsAvailable")
