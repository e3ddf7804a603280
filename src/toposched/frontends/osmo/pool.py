"""OSMO pool configuration: the backend it runs on and its ``topology_keys``.

``topology_keys`` lists ``{key, label}`` coarsest first; an empty list turns topology-aware
scheduling off for the pool. Keys are the short names users write in workflow specs, labels the
node labels that become the KAI Topology levels.
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from toposched.frontends.osmo.errors import problems_from
from toposched.model import Problem, TopologySpecError, is_label_key

TOPOLOGY_SCHEDULERS = frozenset({"kai"})


class SchedulerType(StrEnum):
    """Scheduler behind a backend. Only KAI understands topology constraints."""

    KAI = "kai"
    NONE = "none"
    KUBERNETES = "kubernetes"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class SchedulerSettings(_Strict):
    scheduler_type: SchedulerType = SchedulerType.KAI
    scheduler_name: str = "kai-scheduler"


class Backend(_Strict):
    """The cluster side of a pool: its Kubernetes namespace and scheduler."""

    name: str = Field(min_length=1)
    k8s_namespace: str = Field(min_length=1)
    scheduler_settings: SchedulerSettings = SchedulerSettings()
    description: str = ""

    @property
    def supports_topology(self) -> bool:
        return self.scheduler_settings.scheduler_type in TOPOLOGY_SCHEDULERS


class TopologyKey(_Strict):
    key: str = Field(min_length=1)
    label: str = Field(min_length=1)


class Pool(_Strict):
    """A validated pool; ``backend`` is resolved to the full backend object."""

    name: str = Field(min_length=1)
    backend: Backend
    description: str = ""
    topology_keys: tuple[TopologyKey, ...] = ()

    @property
    def queue(self) -> str:
        """The KAI queue OSMO creates for the pool: ``osmo-pool-<namespace>-<pool>``."""
        return f"osmo-pool-{self.backend.k8s_namespace}-{self.name}"

    @property
    def topology_name(self) -> str:
        """The pool's KAI Topology object: ``osmo-pool-<namespace>-<pool>-topology``."""
        return f"{self.queue}-topology"

    @property
    def keys(self) -> tuple[str, ...]:
        return tuple(k.key for k in self.topology_keys)

    def label_of(self, key: str) -> str:
        """Node label of a topology key. Raises KeyError for a key the pool does not offer."""
        for entry in self.topology_keys:
            if entry.key == key:
                return entry.label
        raise KeyError(key)

    def order_of(self, key: str) -> int:
        """Position of a key, 0 = coarsest. Raises ValueError for a key the pool does not offer."""
        return self.keys.index(key)


def parse_pool(raw: object, backend: Mapping[str, Any] | Backend | None = None) -> Pool:
    """Validate a pool config. ``raw`` is the pool mapping, or ``{pool, backend}`` together.

    The pool's ``backend`` is either an inline backend mapping or a backend name, then resolved
    against ``backend``. Raises ``TopologySpecError`` listing every problem.
    """
    if isinstance(raw, Mapping) and "pool" in raw and isinstance(raw["pool"], Mapping):
        backend = backend if backend is not None else raw.get("backend")
        raw = raw["pool"]
    if not isinstance(raw, Mapping):
        raise TopologySpecError(
            [Problem("pool", "a pool config is a mapping", "write name, backend, topology_keys")]
        )
    data = dict(raw)
    problems: list[Problem] = []
    data["backend"] = _resolve_backend(data.get("backend"), backend, problems)
    if problems:
        raise TopologySpecError(problems)
    try:
        pool = Pool.model_validate(data)
    except ValidationError as exc:
        raise TopologySpecError(problems_from(exc, data, "pool")) from None
    problems.extend(pool_problems(pool))
    if problems:
        raise TopologySpecError(problems)
    return pool


def _resolve_backend(
    ref: object, backend: Mapping[str, Any] | Backend | None, problems: list[Problem]
) -> object:
    if isinstance(ref, Mapping | Backend):
        return ref
    if backend is None:
        problems.append(
            Problem(
                "pool.backend",
                f"backend {ref!r} is not described",
                "write the backend inline: {name, k8s_namespace, scheduler_settings: {scheduler_type}}",
            )
        )
        return ref
    given = backend.name if isinstance(backend, Backend) else backend.get("name")
    if ref is not None and given is not None and ref != given:
        problems.append(
            Problem("pool.backend", f"pool names backend {ref!r} but backend {given!r} was given", "")
        )
    return backend


def pool_problems(pool: Pool) -> list[Problem]:
    """Rules beyond the schema: unique keys and labels, valid label keys, a topology-capable
    scheduler when keys are set."""
    problems: list[Problem] = []
    seen_keys: set[str] = set()
    seen_labels: set[str] = set()
    for i, entry in enumerate(pool.topology_keys):
        where = f"pool.topology_keys[{entry.key}]"
        if entry.key in seen_keys:
            problems.append(
                Problem(f"{where}.key", f"key {entry.key!r} is listed twice", "keys must be unique")
            )
        if entry.label in seen_labels:
            problems.append(
                Problem(
                    f"{where}.label",
                    f"label {entry.label!r} is used by two keys",
                    "every key needs its own node label",
                )
            )
        if not is_label_key(entry.label):
            problems.append(
                Problem(
                    f"{where}.label",
                    f"{entry.label!r} (entry {i}) is not a valid node label key",
                    "use e.g. topology.kubernetes.io/zone",
                )
            )
        seen_keys.add(entry.key)
        seen_labels.add(entry.label)
    if pool.topology_keys and not pool.backend.supports_topology:
        scheduler = pool.backend.scheduler_settings.scheduler_type.value
        problems.append(
            Problem(
                "pool.topology_keys",
                f"Topology keys cannot be set for pool {pool.name}: backend {pool.backend.name} "
                f"uses scheduler {scheduler!r}, which does not support topology constraints",
                "move the pool to a backend with the KAI scheduler, or set topology_keys: []",
            )
        )
    return problems


def pool_keys(pool: Pool) -> list[dict[str, object]]:
    """The keys users may write, coarsest first: ``[{key, label, order}]`` (order 0 = coarsest)."""
    return [{"key": k.key, "label": k.label, "order": i} for i, k in enumerate(pool.topology_keys)]
