"""The service's managed topologies and OSMO pools, stored under the lifecycle guards of
``guards``: a topology's levels and a pool's keys cannot change while workloads using
them hold capacity."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, TypedDict, Unpack

from toposched.model import NotFoundError, Topology
from toposched.scheduler import pools
from toposched.scheduler.guards import check_pool_update, check_topology_update
from toposched.scheduler.outcome import HOLDING
from toposched.scheduler.state import State
from toposched.store import PoolRecord


def put_topology(state: State, topology: Topology) -> None:
    """Store a topology under the level-change guard (the caller holds the lock)."""
    store = state.store
    try:
        old: Topology | None = store.get_topology(topology.name)
    except NotFoundError:
        old = None
    holding = [w.id for w in store.list_workloads(states=HOLDING) if w.topology == topology.name]
    check_topology_update(old, topology, holding)
    store.put_topology(topology)


class PoolFields(TypedDict, total=False):
    """What a pool may set besides its name (all optional)."""

    topology: str
    topology_keys: Sequence[Mapping[str, Any]]
    description: str
    backend: Mapping[str, Any] | None


def put_pool(state: State, name: str, **fields: Unpack[PoolFields]) -> PoolRecord:
    """Create or replace an OSMO pool, validated by OSMO's rules (``TopologySpecError`` with
    field paths). ``topology`` must exist; the keys cannot change while the pool's workloads
    hold capacity."""
    topology = fields.get("topology", "")
    topology_keys = fields.get("topology_keys", ())
    description, backend = fields.get("description", ""), fields.get("backend")
    pool = pools.validate_pool(name, list(topology_keys), description=description, backend=backend)
    with state.lock:
        own: Topology | None = None
        if not topology and pool.keys:
            # OSMO keeps one Topology per pool (osmo-pool-<namespace>-<pool>-topology); the
            # service manages it with the pool, under the same guards as any topology.
            topology = pool.topology_name
            own = Topology.create(topology, [k.label for k in pool.topology_keys])
        elif topology:
            known = [t.name for t in state.store.list_topologies()]
            if topology not in known:
                raise pools.unknown_topology(topology, known)
        try:
            old = pools.stored_pool(state.store.get_pool(name)).keys
        except NotFoundError:
            old = ()
        holding = [w.id for w in state.store.list_workloads(states=HOLDING) if w.pool == name]
        check_pool_update(name, old, pool.keys, holding)
        if own is not None:
            put_topology(state, own)
        record = pools.pool_record(pool, topology)
        state.store.put_pool(record)
        return record
