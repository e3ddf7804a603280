"""The topology registry: named topologies of every kind in one place, and the Grove operator's
lifecycle rules around them (GREP-369).

* Grove ClusterTopologies, KAI Topologies and Kueue Topologies live side by side, keyed by kind.
* The default ``grove-topology`` is made at start-up from the operator configuration and labelled
  ``app.kubernetes.io/managed-by: grove-operator``; a start-up with TAS off releases it.
* Every create/update of a ClusterTopology or PodCliqueSet goes through the front end's ``admit``.
* Deleting a ClusterTopology only marks it while it carries the finalizer; the controller keeps the
  finalizer while a PodCliqueSet references the topology (or it is the default and TAS is on).
* Each ClusterTopology gets a KAI Topology (same name, controller owner reference) unless it binds
  kai-scheduler to an external one, which is only compared (drift status).

The registry keeps the objects and answers requests; the controllers that ``reconcile`` runs
are ``controllers``'.
"""

from __future__ import annotations

import copy
import uuid
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Protocol

from toposched.frontends.grove import (
    DEFAULT_TOPOLOGY,
    MANAGED_BY,
    OPERATOR,
    Admission,
    ClusterTopology,
    OperatorConfig,
    PodCliqueSet,
    admit,
    is_podgang_of,
    parse_cluster_topology,
    parse_operator_config,
    parse_podcliqueset,
    to_gang,
)
from toposched.frontends.grove.operator.controllers import (
    CT,
    KAI_TOPOLOGY,
    KUEUE_TOPOLOGY,
    PCS,
    PODGANG,
    Key,
    as_topology,
    reconcile_topologies,
    reconcile_workloads,
    sync_kai,
)
from toposched.model import Gang, NotFoundError, Problem, Topology, TopologySpecError


class Clock(Protocol):
    """What stamps deletion requests (the scheduler's clocks are such)."""

    def now(self) -> float: ...


class _Epoch:
    def now(self) -> float:
        return 0.0


def kind_of(obj: Mapping[str, Any]) -> str:
    """Store kind of an object; a ``Topology`` is KAI's or Kueue's by its apiVersion."""
    kind = str(obj.get("kind") or "")
    if kind == "Topology":
        return KUEUE_TOPOLOGY if str(obj.get("apiVersion", "")).startswith("kueue") else KAI_TOPOLOGY
    return kind


class TopologyRegistry:
    """Stored topologies and workloads with Grove's operator rules. Not thread-safe; the scheduler
    loop owns one instance. ``clock`` stamps deletion requests."""

    def __init__(
        self, operator_config: Mapping[str, Any] | None = None, *, clock: Clock | None = None
    ) -> None:
        self.config: OperatorConfig = parse_operator_config(operator_config)
        self._clock = clock if clock is not None else _Epoch()  # at the epoch unless told
        self._objects: dict[Key, dict[str, Any]] = {}
        self._scheduled: dict[str, int] = {}

    # ---- reading -------------------------------------------------------------------------
    def get(self, kind: str, name: str, namespace: str = "") -> dict[str, Any] | None:
        """A copy of a stored object, or None."""
        found = self._objects.get(self._key(kind, name, namespace))
        return copy.deepcopy(found) if found is not None else None

    def objects(self, kind: str) -> list[dict[str, Any]]:
        return [copy.deepcopy(o) for (k, _, _), o in sorted(self._objects.items()) if k == kind]

    def cluster_topology(self, name: str) -> ClusterTopology | None:
        obj = self._objects.get((CT, "", name))
        return parse_cluster_topology(obj) if obj is not None else None

    def podcliquesets(self) -> list[PodCliqueSet]:
        return [parse_podcliqueset(o) for (k, _, _), o in sorted(self._objects.items()) if k == PCS]

    def scheduled_pods(self, pcs: str) -> int:
        return self._scheduled.get(pcs, 0)

    def resolve(self, pcs: PodCliqueSet) -> str | None:
        """GREP-369 resolution: explicit name, else the default when constrained, else none."""
        return pcs.resolved_topology()

    def topologies(self) -> list[Topology]:
        """Every named topology as the engine sees it: ClusterTopologies first, then KAI and Kueue
        Topologies whose names are not taken yet (a ClusterTopology's own KAI copy is skipped)."""
        found: dict[str, Topology] = {}
        for kind in (CT, KAI_TOPOLOGY, KUEUE_TOPOLOGY):
            for (k, _, name), obj in sorted(self._objects.items()):
                if k == kind and name not in found:
                    found[name] = as_topology(kind, obj)
        return list(found.values())

    def topology(self, name: str) -> Topology:
        for topology in self.topologies():
            if topology.name == name:
                return topology
        known = ", ".join(t.name for t in self.topologies()) or "none"
        raise NotFoundError("topology", name, f"known topologies: {known}")

    def gang(self, namespace: str, name: str) -> Gang:
        """The IR of a stored PodCliqueSet against its resolved topology."""
        obj = self._objects.get((PCS, namespace, name))
        if obj is None:
            raise NotFoundError("PodCliqueSet", f"{namespace}/{name}")
        pcs = parse_podcliqueset(obj)
        resolved = pcs.resolved_topology()
        topology = self.cluster_topology(resolved) if resolved else None
        return to_gang(pcs, topology, tas_enabled=self.config.tas_enabled)

    # ---- requests ------------------------------------------------------------------------
    def store(self, obj: Mapping[str, Any]) -> None:
        """Store an object as already admitted (state loaded from elsewhere)."""
        stored = copy.deepcopy(dict(obj))
        kind = kind_of(stored)
        stored["kind"] = kind
        meta = _created(stored)
        self._objects[self._key(kind, meta.get("name", ""), meta.get("namespace", ""))] = stored

    def create(self, obj: Mapping[str, Any]) -> Admission:
        kind = kind_of(obj)
        meta = obj.get("metadata") or {}
        if self._key(kind, meta.get("name", ""), meta.get("namespace", "")) in self._objects:
            problem = Problem(
                "metadata.name", f"{kind} {meta.get('name')!r} already exists", "update it instead"
            )
            return Admission(False, (problem,))
        answer = self._admit("create", obj, None)
        if answer.accepted:
            self.store(obj)
        return answer

    def update(self, obj: Mapping[str, Any]) -> Admission:
        """Replace spec, labels and annotations; finalizers and status stay as stored."""
        kind = kind_of(obj)
        meta = dict(obj.get("metadata") or {})
        key = self._key(kind, meta.get("name", ""), meta.get("namespace", ""))
        old = self._objects.get(key)
        if old is None:
            return Admission(
                False, (Problem("metadata.name", f"{kind} {meta.get('name')!r} not found", "create it"),)
            )
        answer = self._admit("update", obj, old)
        if answer.accepted:
            new = copy.deepcopy(old)
            new["spec"] = copy.deepcopy(obj.get("spec") or {})
            for field in ("labels", "annotations"):
                new["metadata"][field] = dict(meta.get(field) or {})
            self._objects[key] = new
        return answer

    def delete(self, kind: str, name: str, namespace: str = "") -> Admission:
        """Remove an object; one with finalizers is only marked for deletion."""
        key = self._key(kind_of({"kind": kind}), name, namespace)
        obj = self._objects.get(key)
        if obj is None:
            return Admission(False, (Problem("metadata.name", f"{kind} {name!r} not found", ""),))
        if obj["metadata"].get("finalizers"):
            obj["metadata"].setdefault(
                "deletionTimestamp", datetime.fromtimestamp(self._clock.now(), UTC).isoformat()
            )
        else:
            self._remove(key)
        return Admission(True)

    def schedule_pods(self, pcs: str, count: int) -> None:
        """Record ``count`` more bound pods of a PodCliqueSet (``namespace/name``)."""
        self._scheduled[pcs] = self._scheduled.get(pcs, 0) + count

    def start(self, operator_config: Mapping[str, Any] | None) -> None:
        """Operator (re)start: sync the default topology from the configuration, then create the
        missing KAI Topologies. Nothing else runs."""
        self.config = parse_operator_config(operator_config)
        key = (CT, "", DEFAULT_TOPOLOGY)
        if self.config.tas_enabled and self.config.levels:
            levels = [{"domain": lv.domain, "key": lv.key} for lv in self.config.default_levels]
            obj = self._objects.setdefault(
                key, {"kind": CT, "metadata": {"name": DEFAULT_TOPOLOGY}, "spec": {}}
            )
            _created(obj)
            obj["metadata"].setdefault("labels", {})[MANAGED_BY] = OPERATOR
            obj["spec"]["levels"] = levels  # manual edits are overwritten
        elif not self.config.tas_enabled and self._managed(key):
            self.delete(CT, DEFAULT_TOPOLOGY)
        sync_kai(self._objects, self.config)

    def reconcile(self) -> None:
        """Run every controller until nothing changes."""
        for _ in range(10):
            before = copy.deepcopy(self._objects)
            reconcile_topologies(self._objects, self._referenced, self._remove)
            sync_kai(self._objects, self.config)
            reconcile_workloads(self._objects, self.config)
            if before == self._objects:
                return

    # ---- internals -----------------------------------------------------------------------
    def _key(self, kind: str, name: str, namespace: str) -> Key:
        return (kind, namespace if kind in (PCS, PODGANG) else "", name)

    def _admit(self, operation: str, obj: Mapping[str, Any], old: Mapping[str, Any] | None) -> Admission:
        kind = kind_of(obj)
        if kind in (CT, PCS):
            existing = [o for (k, _, _), o in self._objects.items() if k in (CT, PCS)]
            return admit(kind, operation, obj, old, existing, self.config, self._scheduled)
        if kind in (KAI_TOPOLOGY, KUEUE_TOPOLOGY):
            try:
                as_topology(kind, obj)
            except TopologySpecError as exc:
                return Admission(False, exc.problems)
            return Admission(True)
        return Admission(
            False,
            (Problem("kind", f"unsupported kind {kind!r}", "use ClusterTopology, PodCliqueSet or Topology"),),
        )

    def _remove(self, key: Key) -> None:
        self._objects.pop(key, None)
        kind, namespace, name = key
        if kind == CT:  # cascade: the KAI Topology it owns
            kai = self._objects.get((KAI_TOPOLOGY, "", name))
            if kai is not None and _owner(kai) == name:
                self._objects.pop((KAI_TOPOLOGY, "", name))
        if kind == PCS:
            self._scheduled.pop(f"{namespace}/{name}", None)
            for gang in [
                k for k, o in self._objects.items() if k[0] == PODGANG and is_podgang_of(o, namespace, name)
            ]:
                self._objects.pop(gang)

    def _managed(self, key: Key) -> bool:
        obj = self._objects.get(key)
        return obj is not None and obj["metadata"].get("labels", {}).get(MANAGED_BY) == OPERATOR

    def _referenced(self, name: str) -> bool:
        if self.config.tas_enabled and name == DEFAULT_TOPOLOGY:
            return True  # the operator's default is protected while TAS is on
        return any(p.resolved_topology() == name for p in self.podcliquesets())


def _owner(obj: Mapping[str, Any]) -> str | None:
    refs = obj.get("metadata", {}).get("ownerReferences") or []
    return next((str(r["name"]) for r in refs if r.get("controller")), None)


def _created(obj: dict[str, Any]) -> dict[str, Any]:
    """The object's metadata, with the uid an API server gives a new object (owner references
    to it need one) when it has none yet."""
    meta: dict[str, Any] = obj.setdefault("metadata", {})
    meta.setdefault("uid", str(uuid.uuid4()))
    return meta
