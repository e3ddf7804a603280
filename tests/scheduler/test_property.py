"""Randomised: after any sequence of intake, node events and cycles, no node is over-booked,
and only admitted or running workloads hold reservations."""

from __future__ import annotations

import random

import pytest

from builders import HOST, RACK
from toposched.model import Taint, TaintEffect, ToposchedError
from toposched.scheduler import PodStatus
from toposched.store import WorkloadState

from .conftest import Env, cluster_nodes, job

TAINTS = [
    Taint("maintenance", "", TaintEffect.NO_EXECUTE),
    Taint("maintenance", "", TaintEffect.NO_SCHEDULE),
    Taint("soon", "", TaintEffect.PREFER_NO_SCHEDULE),
]
NAMES = [n.name for n in cluster_nodes()]


def step(env: Env, rng: random.Random, n: int) -> None:
    live = [w for w in env.sched.list() if not w.state.terminal]
    action = rng.choice(["submit", "submit", "cycle", "cycle", "finish", "cancel", "node", "pod", "time"])
    if action == "submit":
        level = rng.choice([RACK, HOST, None])
        env.submit(job(f"j{n}", rng.randint(1, 5), required=level), priority=rng.randint(0, 2))
    elif action == "cycle":
        env.sched.cycle()
    elif action in ("finish", "cancel") and live:
        target = rng.choice(live).id
        if action == "finish":
            env.sched.finish(target)
        else:
            env.sched.cancel(target, actor="alice")
    elif action == "node":
        name = rng.choice(NAMES)
        known = {node.name for node in env.store.get_nodes()}
        if name not in known:
            env.store.put_nodes([n for n in cluster_nodes() if n.name == name])
            return
        change = rng.choice(["ready", "notready", "taint", "untaint", "cordon", "uncordon", "delete"])
        if change in ("ready", "notready"):
            env.sched.set_node_ready(name, change == "ready")
        elif change in ("taint", "untaint"):
            env.sched.set_node_taints(name, [rng.choice(TAINTS)] if change == "taint" else [])
        elif change in ("cordon", "uncordon"):
            env.sched.cordon(name, change == "cordon")
        else:
            env.sched.delete_node(name)
    elif action == "pod":
        holders = [w for w in live if w.state.holds_capacity]
        if holders:
            holder = rng.choice(holders)
            pod = rng.choice([p["name"] for p in holder.placement["pods"]])
            env.sched.set_pod_status(holder.id, pod, rng.choice(list(PodStatus)))
    else:
        env.clock.advance(rng.choice([1, 10, 31, 60]))


def check(env: Env) -> None:
    allocatable = {node.name: node.allocatable for node in env.store.get_nodes()}
    for name, booked in env.store.reserved_by_node().items():
        if name in allocatable:
            over = {r: v for r, v in booked.items() if v > allocatable[name][r]}
            assert not over, f"node {name} over-booked: {over}"
    for record in env.sched.list():
        if record.state not in (WorkloadState.ADMITTED, WorkloadState.RUNNING):
            assert env.store.reservations(record.id) == {}, (
                f"{record.state} workload {record.id} holds capacity"
            )


@pytest.mark.parametrize("seed", range(6))
def test_reservations_never_exceed_allocatable(seed: int) -> None:
    rng = random.Random(seed)
    env = Env()
    for n in range(250):
        try:
            step(env, rng, n)
        except ToposchedError as exc:  # user-facing refusals are fine; the invariant must hold anyway
            assert "over-committed" not in str(exc)
        check(env)
    env.sched.cycle()
    check(env)
