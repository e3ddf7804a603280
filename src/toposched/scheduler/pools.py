"""OSMO pools as managed objects: validated by the OSMO front end's ``parse_pool``, reached through
the front-end registry (so the service's pool rules and messages are OSMO's), stored as JSON,
guarded like topologies."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.frontends.registry import Pool, parse_pool, pool_keys
from toposched.model import Problem, SpecError, StoreError, TopologySpecError
from toposched.store import PoolRecord

DEFAULT_BACKEND: dict[str, Any] = {
    "name": "default",
    "k8s_namespace": "default",
    "scheduler_settings": {"scheduler_type": "kai"},
}
"""The backend of a pool that names none: KAI, so topology keys are allowed."""


def validate_pool(
    name: str,
    topology_keys: list[Mapping[str, Any]],
    *,
    description: str = "",
    backend: Mapping[str, Any] | None = None,
) -> Pool:
    """OSMO's pool rules: keys and labels unique, labels valid node label keys, keys only on a
    KAI-backed pool. Raises ``TopologySpecError`` with every problem and its field path."""
    raw = {
        "name": name,
        "backend": dict(backend) if backend is not None else DEFAULT_BACKEND,
        "description": description,
        "topology_keys": [dict(k) for k in topology_keys],
    }
    return parse_pool(raw)


def pool_record(pool: Pool, topology: str) -> PoolRecord:
    """The stored form: the OSMO pool config as JSON, plus the topology it uses."""
    config = {
        "description": pool.description,
        "backend": pool.backend.model_dump(mode="json"),
        "topology_keys": [{"key": k.key, "label": k.label} for k in pool.topology_keys],
    }
    return PoolRecord(pool.name, topology, config)


def stored_pool(record: PoolRecord) -> Pool:
    """Parse a stored pool back; a record that no longer parses is a damaged store."""
    config = record.config if isinstance(record.config, Mapping) else {}
    try:
        return validate_pool(
            record.name,
            list(config.get("topology_keys") or []),
            description=str(config.get("description") or ""),
            backend=config.get("backend"),
        )
    except TopologySpecError as exc:
        raise StoreError(f"stored pool {record.name!r} is damaged: {exc}") from exc


def keys_of(record: PoolRecord) -> list[dict[str, object]]:
    """``[{key, label, order}]``, coarsest first (order 0), from OSMO's parse of the pool."""
    return pool_keys(stored_pool(record))


def unknown_topology(name: str, known: list[str]) -> SpecError:
    """The 422 for a pool naming a topology that does not exist."""
    return SpecError(
        [Problem("topology", f"unknown topology {name!r}", f"known topologies: {', '.join(known) or 'none'}")]
    )
