"""Request and response bodies (pydantic v2), and the record → JSON views the routes return."""

from __future__ import annotations

from typing import Any, NamedTuple

from pydantic import BaseModel, ConfigDict, Field, field_validator

from toposched.model import Node, Quota, Taint, TaintEffect, Topology, Usage, is_label_key
from toposched.model.quota import MAX_QUOTA
from toposched.scheduler import PodStatus
from toposched.store import PoolRecord, WorkloadRecord

NAME_PATTERN = r"^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


MAX_PRIORITY = 10**9
MAX_TOPOLOGY_NAME = 253
MAX_KIND = 64
MAX_POOL_NAME = 253


class SubmitFields(NamedTuple):
    """What a submission asks for, once its body is valid."""

    spec: str
    priority: int
    topology: str | None
    kind: str | None
    pool: str | None = None


class SubmitBody(_Body):
    """A workload spec as text (YAML or JSON), as the user would ``kubectl apply`` it."""

    spec: str = Field(min_length=1, description="The workload spec (YAML or JSON text).")
    priority: int = Field(0, ge=-MAX_PRIORITY, le=MAX_PRIORITY)
    topology: str | None = Field(
        None, max_length=MAX_TOPOLOGY_NAME, description="Topology name; default: the spec's."
    )
    kind: str | None = Field(None, max_length=MAX_KIND, description="Front end hint, e.g. 'kueue' or 'kai'.")
    pool: str | None = Field(
        None, max_length=MAX_POOL_NAME, description="The stored OSMO pool a workflow runs in."
    )

    def fields(self) -> SubmitFields:
        return SubmitFields(self.spec, self.priority, self.topology, self.kind, self.pool)


_SUBMIT_KEYS = frozenset(SubmitBody.model_fields)


def plain_submit(raw: object) -> SubmitFields | None:
    """``SubmitBody.model_validate(raw).fields()`` for a parsed JSON body that satisfies it without
    any conversion (exact types, bounds kept), in a few plain checks; None for every other body,
    which pydantic must judge (it may convert a value, or refuse the body with its own message)."""
    if type(raw) is not dict or not raw.keys() <= _SUBMIT_KEYS:
        return None
    spec, priority = raw.get("spec"), raw.get("priority", 0)
    topology, kind, pool = raw.get("topology"), raw.get("kind"), raw.get("pool")
    if type(spec) is not str or not spec:
        return None
    if type(priority) is not int or not -MAX_PRIORITY <= priority <= MAX_PRIORITY:
        return None
    if not (topology is None or (type(topology) is str and len(topology) <= MAX_TOPOLOGY_NAME)):
        return None
    if not (kind is None or (type(kind) is str and len(kind) <= MAX_KIND)):
        return None
    if not (pool is None or (type(pool) is str and len(pool) <= MAX_POOL_NAME)):
        return None
    return SubmitFields(spec, priority, topology, kind, pool)


class TaintBody(_Body):
    key: str = Field(min_length=1, max_length=316)
    value: str = Field("", max_length=63)
    effect: TaintEffect = TaintEffect.NO_SCHEDULE

    @field_validator("key")
    @classmethod
    def _key(cls, key: str) -> str:
        if not is_label_key(key):
            raise ValueError(f"{key!r} is not a valid taint key")
        return key

    def to_taint(self) -> Taint:
        return Taint(self.key, self.value, self.effect)


class NodePatch(_Body):
    """Fields of a node an admin may change; omitted fields stay as they are."""

    ready: bool | None = None
    unschedulable: bool | None = None
    taints: list[TaintBody] | None = Field(None, max_length=64)


class TopologyBody(_Body):
    """Topology levels (node label keys), coarsest first, and optional short aliases."""

    levels: list[str] = Field(min_length=1, max_length=8)
    aliases: dict[str, str] = Field(default_factory=dict)

    def to_topology(self, name: str) -> Topology:
        return Topology.create(name, self.levels, self.aliases, path="levels")


class TopologyKey(_Body):
    """One entry of a pool's ``topology_keys``; the rules (unique, valid labels) are OSMO's."""

    key: str = Field(min_length=1, max_length=63)
    label: str = Field(min_length=1, max_length=316)


class PoolBody(_Body):
    """An OSMO pool: its topology keys, coarsest first (``key`` is what specs write, ``label`` the
    node label), the topology it uses, and its backend (default: a KAI backend)."""

    topology: str = Field("", max_length=253)
    description: str = Field("", max_length=1024)
    topology_keys: list[TopologyKey] = Field(default_factory=list, max_length=8)
    backend: dict[str, Any] | None = Field(
        None, description="OSMO backend {name, k8s_namespace, scheduler_settings: {scheduler_type}}."
    )


class QuotaBody(_Body):
    """A user's own quota on pending work: workloads, their pods, bytes of their stored specs."""

    workloads: int = Field(ge=0, le=MAX_QUOTA, description="Pending workloads at most.")
    pods: int = Field(ge=0, le=MAX_QUOTA, description="Pods in pending workloads at most.")
    spec_bytes: int = Field(
        alias="specBytes", ge=0, le=MAX_QUOTA, description="Bytes of pending workloads' stored specs at most."
    )

    def to_quota(self) -> Quota:
        return Quota(self.workloads, self.pods, self.spec_bytes)


class PodStatusBody(_Body):
    """What one pod of an admitted gang is doing."""

    status: PodStatus


def node_json(node: Node) -> dict[str, Any]:
    return {
        "name": node.name,
        "labels": dict(node.labels),
        "allocatable": node.allocatable.pretty(),
        "taints": [{"key": t.key, "value": t.value, "effect": str(t.effect)} for t in node.taints],
        "ready": node.ready,
        "unschedulable": node.unschedulable,
    }


def quota_json(quota: Quota | None) -> dict[str, int] | None:
    if quota is None:
        return None
    return {"workloads": quota.workloads, "pods": quota.pods, "specBytes": quota.spec_bytes}


def usage_json(usage: Usage) -> dict[str, int]:
    return {"workloads": usage.workloads, "pods": usage.pods, "specBytes": usage.spec_bytes}


def topology_json(topology: Topology) -> dict[str, Any]:
    return {"name": topology.name, "levels": list(topology.levels), "aliases": dict(topology.aliases)}


def pool_json(pool: PoolRecord) -> dict[str, Any]:
    config = pool.config if isinstance(pool.config, dict) else {}
    return {
        "name": pool.name,
        "topology": pool.topology,
        "description": config.get("description", ""),
        "topology_keys": config.get("topology_keys", []),
        "backend": config.get("backend"),
    }


def workload_json(
    record: WorkloadRecord, *, with_spec: bool = False, position: int | None = None, queue: str | None = None
) -> dict[str, Any]:
    """A workload as the API answers it; listings only: ``position``, its place in the admission
    order while pending, and ``queue``, the scheduling queue of a pending, admitted or running one."""
    body: dict[str, Any] = {
        "id": record.id,
        "name": record.name,
        "kind": record.kind,
        "owner": record.owner,
        "priority": record.priority,
        "topology": record.topology,
        "ownTopologies": [topology_json(t) for t in record.own_topologies],
        "pods": record.pods,
        "pool": record.pool,
        "state": str(record.state),
        "sequence": record.sequence,
        "submittedAt": record.submitted_at,
        "placement": record.placement,
        "explanation": record.explanation,
    }
    if position is not None:
        body["position"] = position
    if queue is not None:
        body["queue"] = queue
    if with_spec:
        body["spec"] = record.spec
    return body
