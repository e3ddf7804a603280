"""The Grove operator's controllers over the topology registry's objects (``operator``), one
function each, and the kinds they are stored by: ClusterTopology finalizers, the KAI Topology of
each ClusterTopology, and each PodCliqueSet's PodGangs and topology condition."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from toposched.frontends.grove import (
    KAI_SCHEDULER,
    OperatorConfig,
    build_podgangs,
    is_podgang_of,
    parse_cluster_topology,
    parse_podcliqueset,
)
from toposched.frontends.grove.operator.status import kai_sync, pcs_condition
from toposched.model import Topology

FINALIZER = "grove.io/clustertopology"
CT = "ClusterTopology"
PCS = "PodCliqueSet"
PODGANG = "PodGang"
KAI_TOPOLOGY = "KAITopology"
KUEUE_TOPOLOGY = "KueueTopology"
Key = tuple[str, str, str]  # kind, namespace, name


def as_topology(kind: str, obj: Mapping[str, Any]) -> Topology:
    """A stored ClusterTopology, KAI or Kueue Topology as the engine sees it."""
    name = str((obj.get("metadata") or {}).get("name") or "")
    if kind == CT:
        return parse_cluster_topology(obj).to_topology()
    levels = [dict(lv) for lv in (obj.get("spec") or {}).get("levels") or []]
    keys = [str(lv.get("nodeLabel", "")) for lv in levels]
    aliases = {str(lv["alias"]): str(lv.get("nodeLabel", "")) for lv in levels if lv.get("alias")}
    return Topology.create(name, keys, aliases)


def reconcile_topologies(
    objects: dict[Key, dict[str, Any]], referenced: Callable[[str], bool], remove: Callable[[Key], None]
) -> None:
    """The ClusterTopology controller: keep the finalizer on each live topology; of one marked for
    deletion, drop it once nothing ``referenced`` it, and ``remove`` it when no finalizer is left."""
    for key, obj in list(objects.items()):
        if key[0] != CT:
            continue
        meta = obj["metadata"]
        finalizers: list[str] = meta.setdefault("finalizers", [])
        if "deletionTimestamp" not in meta:
            if FINALIZER not in finalizers:
                finalizers.append(FINALIZER)
        elif not referenced(key[2]):
            if FINALIZER in finalizers:
                finalizers.remove(FINALIZER)
            if not finalizers:
                remove(key)


def sync_kai(objects: dict[Key, dict[str, Any]], config: OperatorConfig) -> None:
    """The KAI Topology of each live ClusterTopology, when kai-scheduler is a backend."""
    if KAI_SCHEDULER not in config.backends:
        return
    for key, obj in list(objects.items()):
        if key[0] == CT and "deletionTimestamp" not in obj["metadata"]:
            kai_sync(obj, objects, KAI_TOPOLOGY, config)


def reconcile_workloads(objects: dict[Key, dict[str, Any]], config: OperatorConfig) -> None:
    """The PodCliqueSet controller: each one's PodGangs built anew against its resolved topology,
    and its ``TopologyLevelsUnavailable`` condition."""
    for (kind, namespace, name), obj in list(objects.items()):
        if kind != PCS:
            continue
        pcs = parse_podcliqueset(obj)
        resolved = pcs.resolved_topology()
        found = objects.get((CT, "", resolved)) if resolved else None
        topology = parse_cluster_topology(found) if found is not None else None
        for gang in [k for k, o in objects.items() if k[0] == PODGANG and is_podgang_of(o, namespace, name)]:
            objects.pop(gang)
        for built in build_podgangs(pcs, topology, tas_enabled=config.tas_enabled):
            objects[(PODGANG, namespace, built.name)] = built.object
        conditions = [
            c
            for c in obj.setdefault("status", {}).get("conditions", [])
            if c["type"] != "TopologyLevelsUnavailable"
        ]
        condition = pcs_condition(pcs, topology, config.tas_enabled)
        obj["status"]["conditions"] = conditions + ([condition] if condition else [])
