"""The fast cycle and its readable twin agree: refusals remembered per gang shape, snapshots kept
between cycles and decisions stored a run at a time change no admission, placement, explanation
or event.

The twin asks the engine for every gang, reads every node and booking afresh every cycle and
looks at every gang holding capacity for failed nodes, while the fast cycle reads only what the
store says changed and looks only at the gangs that may have failed; both run the same random sequence of
submissions, cycles, cancellations and node changes (through the scheduler, or written to the
store directly, as another process would). The kept snapshots also equal snapshots rebuilt from
the store after every cycle, and what the fast loop keeps equals what the store holds.

b1 ── r1 ── x1 x2 x3     (2 GPUs each)
   ├─ r2 ── x4 x5
   └─ r3 ── x6
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any
from unittest import mock

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from builders import BLOCK, HOST, RACK
from toposched.model import Cluster, Resources, Taint, TaintEffect, ToposchedError
from toposched.scheduler import PodStatus
from toposched.scheduler.kept import SnapshotCache, topology_key
from toposched.scheduler.known import HoldingIndex, KnownNodes
from toposched.scheduler.shapes import Refusals
from toposched.scheduler.view import CycleView
from toposched.snapshot import Snapshot
from toposched.store import SqliteStore, Store, WorkloadState

from .conftest import TOPOLOGY, Env, cluster_nodes, job

RACKS = {"x1": "r1", "x2": "r1", "x3": "r1", "x4": "r2", "x5": "r2", "x6": "r3"}

operation = st.one_of(
    st.tuples(
        st.just("submit"),
        st.integers(1, 5),  # pods
        st.integers(1, 2),  # GPUs a pod
        st.sampled_from([RACK, BLOCK, HOST, None]),
        st.integers(0, 2),  # priority
        st.integers(1, 3),  # copies: alike gangs share a shape
    ),
    st.just(("cycle",)),
    st.tuples(st.just("cancel"), st.integers(0, 30)),
    st.tuples(st.just("cordon"), st.sampled_from(sorted(RACKS)), st.booleans()),
    st.tuples(st.just("direct-cordon"), st.sampled_from(sorted(RACKS)), st.booleans()),
    st.tuples(st.just("shrink"), st.sampled_from(sorted(RACKS)), st.integers(0, 2)),
    st.tuples(st.just("delete"), st.sampled_from(sorted(RACKS))),
    st.tuples(st.just("taint"), st.sampled_from(sorted(RACKS)), st.sampled_from([None, *TaintEffect])),
    st.tuples(st.just("pod"), st.integers(0, 30), st.sampled_from(list(PodStatus))),
    st.tuples(st.just("time"), st.sampled_from([1, 10, 60])),
)


def _env(store: Store | None = None) -> Env:
    env = Env(store, seed=False)
    env.store.put_nodes(cluster_nodes(RACKS))
    env.store.put_topology(TOPOLOGY)
    return env


def _run(env: Env, op: tuple[object, ...], counter: list[int]) -> object:
    match op:
        case ("submit", int(pods), int(gpu), level, int(priority), int(copies)):
            for _ in range(copies):
                counter[0] += 1
                env.submit(job(f"j{counter[0]}", pods, gpu=gpu, required=level), priority=priority)
            return None
        case ("cycle",):
            return env.sched.cycle()
        case ("cancel", int(index)):
            live = [w.id for w in env.sched.list() if not w.state.terminal]
            if live:
                env.sched.cancel(live[index % len(live)], actor="alice")
            return None
        case ("cordon", str(name), bool(on)):
            env.sched.cordon(name, on)
            return None
        case ("direct-cordon", str(name), bool(on)):  # written by someone else
            env.store.update_node(name, unschedulable=on)
            return None
        case ("shrink", str(name), int(gpus)):  # re-imported with fewer GPUs (or back to 2)
            env.sched.import_cluster(Cluster.create(cluster_nodes({name: RACKS[name]}, gpus=gpus), [], []))
            return None
        case ("delete", str(name)):
            env.sched.delete_node(name)
            return None
        case ("taint", str(name), effect):
            taints = [] if effect is None else [Taint("maintenance", "", TaintEffect(effect))]
            env.sched.set_node_taints(name, taints)
            return None
        case ("pod", int(index), PodStatus() as status):  # one pod of a gang holding capacity
            pods = [(w.id, p["name"]) for w in env.sched.list() if w.placement for p in w.placement["pods"]]
            if pods:
                workload, pod = pods[index % len(pods)]
                env.sched.set_pod_status(workload, pod, status)
            return None
        case ("time", int(seconds)):
            env.clock.advance(seconds)
            return None
    raise AssertionError(op)


def _twin_step(twin: Env, op: tuple[object, ...], counter: list[int]) -> object:
    """The readable path: every gang placed by the engine, every snapshot built afresh."""
    state = twin.sched._state
    state.snapshots, state.nodes, state.holding = SnapshotCache(), KnownNodes(), HoldingIndex()
    with (
        mock.patch.object(Refusals, "get", return_value=None),
        mock.patch.object(CycleView, "to_check", _every_gang),
    ):
        return _run(twin, op, counter)


def _every_gang(view: CycleView, stopped: object) -> list[int]:
    """Every gang holding capacity, in arrival order: what the twin looks at for failed nodes."""
    order = view.holding.sequence
    return sorted(order, key=lambda w: (order[w], w))


def _log(env: Env) -> list[tuple[str, int | None, str]]:
    return [(e.type, e.workload, e.message) for e in env.store.list_events()]


def _check_kept(env: Env) -> None:
    """What the loop keeps equals what the store holds: its nodes, its bookings, and where the
    pods of each gang holding capacity are."""
    state = env.sched._state
    assert list(state.nodes.members) == env.store.get_nodes()
    holding = env.store.list_workloads(states=[WorkloadState.ADMITTED, WorkloadState.RUNNING])
    reserved = env.store.reservations_by_workload()
    assert dict(state.snapshots.booked) == {w.id: reserved.get(w.id, {}) for w in holding}
    on_node: dict[str, set[int]] = {}
    for record in holding:
        for pod in record.placement["pods"]:
            on_node.setdefault(pod["node"], set()).add(record.id)
    assert {name: set(on) for name, on in state.holding.on_node.items()} == on_node
    assert state.holding.missing == {name for name in on_node if name not in state.nodes.by_name}


def _check_kept_snapshots(env: Env) -> None:
    """Each kept snapshot holds exactly what it says it charged, and once synced with the store
    (what the next cycle does first) it equals a snapshot rebuilt from the store."""
    booked = env.store.reservations_by_workload()
    for kept in env.sched._state.snapshots._kept.values():
        _assert_same_free(kept.snapshot, _rebuilt(kept.tree, kept.external, kept.charged))
        kept.sync(booked)
        _assert_same_free(kept.snapshot, _rebuilt(kept.tree, kept.external, booked))


def _rebuilt(tree: Any, external: Any, booked: Mapping[int, Mapping[str, Resources]]) -> Snapshot:
    snapshot = Snapshot.build(tree, external)
    for workload, usage in booked.items():
        snapshot.add_usage(str(workload), usage)
    return snapshot


def _assert_same_free(kept: Snapshot, rebuilt: Snapshot) -> None:
    for name, column in kept.columns.items():
        expected = rebuilt.free[:, rebuilt.columns[name]] if name in rebuilt.columns else 0
        assert np.array_equal(kept.free[:, column], np.broadcast_to(expected, kept.free[:, column].shape))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(operation, min_size=1, max_size=20))
def test_the_fast_cycle_admits_and_places_like_its_twin(ops: list[tuple[object, ...]]) -> None:
    _compare(_env(), _env(), ops)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(operation, min_size=1, max_size=20))
def test_the_fast_cycle_on_sqlite_admits_and_places_like_its_twin(ops: list[tuple[object, ...]]) -> None:
    """The same over SQLite, whose change reads are its own (generations in the file)."""
    with tempfile.TemporaryDirectory() as folder:
        fast, twin = _env(SqliteStore(Path(folder) / "fast.db")), _env(SqliteStore(Path(folder) / "twin.db"))
        _compare(fast, twin, ops)
        fast.store.close()
        twin.store.close()


def _compare(fast: Env, twin: Env, ops: list[tuple[object, ...]]) -> None:
    fast_names, twin_names = [0], [0]
    for op in [*ops, ("cycle",)]:
        outcomes = []
        for env, step, names in ((fast, _run, fast_names), (twin, _twin_step, twin_names)):
            try:
                outcomes.append(step(env, op, names))
            except ToposchedError as exc:
                outcomes.append(type(exc))
        assert outcomes[0] == outcomes[1], op
        if op == ("cycle",):
            fast_records, twin_records = fast.sched.list(), twin.sched.list()
            assert [(w.state, w.placement, w.explanation) for w in fast_records] == [
                (w.state, w.placement, w.explanation) for w in twin_records
            ]
            assert _log(fast) == _log(twin)
            _check_kept(fast)
            _check_kept_snapshots(fast)


def test_alike_gangs_ask_the_engine_once_per_shape_in_a_cycle() -> None:
    env = _env()
    fits = env.submit(job("fits", 2))
    too_big = [env.submit(job(f"too-big-{i}", 4, gpu=2)) for i in range(5)]  # no rack has 8 GPUs
    calls = []
    real = Refusals.get

    def counting(self: Refusals, *args: object) -> object:
        found = real(self, *args)
        calls.append(found is not None)
        return found

    with mock.patch.object(Refusals, "get", counting):
        report = env.sched.cycle()
    assert report.admitted == (fits,)
    assert report.unschedulable == tuple(too_big)
    assert calls == [False, False, True, True, True, True]  # the first too-big one asked the engine
    for wid in too_big:
        explanation = env.sched.get(wid).explanation
        assert explanation["gang"] == f"too-big-{too_big.index(wid)}"
        assert (
            "doesn't allow to fit" in explanation["reason"] or "allows to fit only" in explanation["reason"]
        )


def test_snapshots_are_kept_between_cycles_until_the_nodes_change() -> None:
    env = _env()
    env.submit(job("a", 2))
    env.sched.cycle()
    cache = env.sched._state.snapshots
    assert cache.builds == 1
    b = env.submit(job("b", 2))
    env.sched.cycle()
    env.sched.cancel(b, actor="alice")
    env.submit(job("c", 3))
    env.sched.cycle()
    assert cache.builds == 1  # bookings changed, the snapshot was only charged and given back
    _check_kept_snapshots(env)
    env.sched.cordon("x6")
    env.submit(job("d", 1))
    env.sched.cycle()
    assert cache.builds == 2  # the node set changed: a new tree, a new snapshot
    assert list(cache._kept) == [topology_key(TOPOLOGY)]
    _check_kept_snapshots(env)
