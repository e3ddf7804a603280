"""Node failures, taints and cordons: replacement inside the assigned domain, or eviction.

    b1 ── r1 ── x1 (2 gpu)  x2 (2 gpu)  x3 (2 gpu)
       └─ r2 ── x4 (2 gpu)

A 4-pod job that requires one rack lands on two nodes of r1; the third node of r1 is the spare.
"""

from __future__ import annotations

import pytest

from builders import BLOCK, RACK
from toposched.model import Taint, TaintEffect, Topology
from toposched.scheduler import PodStatus, SchedulerConfig
from toposched.store import WorkloadState

from .conftest import Env, job

R1 = {"x1", "x2", "x3"}


def admitted_rack_job(env: Env, **kwargs: object) -> tuple[int, str, str]:
    """Admit the 4-pod rack job; return (id, a node it uses, the spare node of r1)."""
    wid = env.submit(job("train", 4, **kwargs))  # type: ignore[arg-type]  # kwargs are job()'s options
    assert env.sched.cycle().admitted == (wid,)
    used = sorted(set(env.nodes_of(wid).values()))
    assert len(used) == 2 and set(used) <= R1
    (spare,) = R1 - set(used)
    return wid, used[0], spare


def evicted_reason(env: Env, wid: int) -> str:
    (event,) = [e for e in env.store.list_events(workload=wid) if e.type == "evicted"]
    return str(event.data["reason"])


@pytest.mark.parametrize(
    ("waited", "failed"), [(29, False), (30, False), (31, True)], ids=["29s", "30s", "31s"]
)
def test_not_ready_grace_period(env: Env, waited: float, failed: bool) -> None:
    wid, victim, spare = admitted_rack_job(env)
    env.sched.set_node_ready(victim, False)
    env.clock.advance(waited)
    report = env.sched.cycle()
    assert report.replaced == ((wid,) if failed else ())
    if failed:
        assert victim not in env.nodes_of(wid).values()
        assert spare in env.nodes_of(wid).values()


def test_ready_again_within_grace_restarts_the_timer(env: Env) -> None:
    _, victim, _ = admitted_rack_job(env)
    env.sched.set_node_ready(victim, False)
    env.clock.advance(20)
    env.sched.set_node_ready(victim, True)
    env.sched.set_node_ready(victim, False)
    env.clock.advance(20)
    assert env.sched.cycle().replaced == ()


def test_replacement_moves_only_the_failed_nodes_pods_and_stays_in_the_rack(env: Env) -> None:
    wid, victim, spare = admitted_rack_job(env)
    before = env.nodes_of(wid)
    env.sched.set_pod_status(wid, next(p for p, n in before.items() if n != victim), PodStatus.RUNNING)
    assert env.sched.get(wid).state is WorkloadState.RUNNING
    env.sched.delete_node(victim)
    report = env.sched.cycle()
    assert report.replaced == (wid,)
    after = env.nodes_of(wid)
    for pod, where in before.items():
        assert after[pod] == (spare if where == victim else where)
    record = env.sched.get(wid)
    assert record.state is WorkloadState.RUNNING
    assert set(env.store.reservations(wid)) == set(after.values())
    assert "node replaced" in env.events(wid)


def test_no_replacement_evicts_then_readmits_when_capacity_returns(env: Env) -> None:
    wid, victim, spare = admitted_rack_job(env)
    spec = env.sched.get(wid).spec
    env.sched.cordon(spare)  # the only spare node of r1 is gone; r2 is too small
    env.sched.delete_node(victim)
    report = env.sched.cycle()
    assert report.evicted == (wid,) and report.replaced == ()
    record = env.sched.get(wid)
    assert record.state is WorkloadState.PENDING and record.spec == spec and record.placement is None
    assert record.explanation["reason"].startswith('topology "default" allows to fit only 2')
    assert evicted_reason(env, wid).startswith(f"node {victim} was deleted; no replacement")
    assert env.store.reservations(wid) == {}
    assert "evicted" in env.events(wid)
    assert wid in report.unschedulable  # requeued and tried again in the same cycle, without room
    env.sched.cordon(spare, False)
    env.clock.advance(60)
    assert env.sched.cycle().admitted == (wid,)
    assert victim not in env.nodes_of(wid).values()


def test_second_failed_node_evicts(env: Env) -> None:
    wid, _, _ = admitted_rack_job(env)
    for name in set(env.nodes_of(wid).values()):
        env.sched.delete_node(name)
    report = env.sched.cycle()
    assert report.evicted == (wid,)
    assert "only a single failed node" in evicted_reason(env, wid)


def test_non_hostname_topology_evicts() -> None:
    env = Env()
    env.store.put_topology(Topology.create("racks", [BLOCK, RACK]))
    wid = env.sched.submit(job("t", 4), owner="alice", topology="racks").id
    env.sched.cycle()
    assert env.sched.get(wid).state is WorkloadState.ADMITTED
    victim = next(n for n in env.nodes_of(wid).values() if n is not None)
    env.sched.delete_node(victim)
    report = env.sched.cycle()
    assert report.evicted == (wid,)
    assert "lowest level is kubernetes.io/hostname" in evicted_reason(env, wid)
    assert env.sched.get(wid).state is WorkloadState.ADMITTED  # placed again at once, elsewhere


NO_EXECUTE = Taint("maintenance", "", TaintEffect.NO_EXECUTE)
NO_SCHEDULE = Taint("maintenance", "", TaintEffect.NO_SCHEDULE)


@pytest.mark.parametrize(
    ("tolerations", "after", "failed"),
    [
        ((), 0, True),
        (("{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}",), 59, False),
        (("{key: maintenance, operator: Exists, effect: NoExecute, tolerationSeconds: 60}",), 60, True),
        (("{key: maintenance, operator: Exists, effect: NoExecute}",), 3600, False),
    ],
    ids=["untolerated", "tolerated-59-of-60s", "tolerated-60-of-60s", "tolerated-forever"],
)
def test_no_execute_taint(env: Env, tolerations: tuple[str, ...], after: float, failed: bool) -> None:
    wid, victim, _ = admitted_rack_job(env, tolerations=tolerations)
    env.sched.set_node_taints(victim, [NO_EXECUTE])
    env.clock.advance(after)
    assert env.sched.cycle().replaced == ((wid,) if failed else ())


@pytest.mark.parametrize(
    ("statuses", "failed"),
    [
        ((), False),  # pods bound: running
        ((PodStatus.FAILED,), False),  # one still running
        ((PodStatus.FAILED, PodStatus.TERMINATING), True),
        ((PodStatus.PENDING, PodStatus.PENDING), True),
    ],
    ids=["running", "one-failed", "failed-and-terminating", "unscheduled"],
)
@pytest.mark.parametrize("how", ["taint", "cordon"])
def test_no_schedule_and_cordon_need_idle_pods(
    env: Env, statuses: tuple[PodStatus, ...], failed: bool, how: str
) -> None:
    wid, victim, _ = admitted_rack_job(env)
    if how == "taint":
        env.sched.set_node_taints(victim, [NO_SCHEDULE])
    else:
        env.sched.cordon(victim)
    pods = sorted(p for p, n in env.nodes_of(wid).items() if n == victim)
    for pod, status in zip(pods, statuses, strict=False):
        env.sched.set_pod_status(wid, pod, status)
    assert env.sched.cycle().replaced == ((wid,) if failed else ())


def test_tolerated_no_schedule_taint_is_healthy(env: Env) -> None:
    wid, victim, _ = admitted_rack_job(env, tolerations=("{key: maintenance, operator: Exists}",))
    env.sched.set_node_taints(victim, [NO_SCHEDULE])
    for pod in (p for p, n in env.nodes_of(wid).items() if n == victim):
        env.sched.set_pod_status(wid, pod, PodStatus.FAILED)
    assert env.sched.cycle().replaced == ()


@pytest.mark.parametrize(
    ("option", "statuses", "failed"),
    [
        (False, (PodStatus.TERMINATING, PodStatus.FAILED), False),
        (True, (PodStatus.TERMINATING, PodStatus.FAILED), True),
        (True, (PodStatus.TERMINATING,), False),
    ],
    ids=["option-off", "all-terminated", "one-still-running"],
)
def test_pod_termination_trigger(option: bool, statuses: tuple[PodStatus, ...], failed: bool) -> None:
    env = Env(config=SchedulerConfig(replace_on_pod_termination=option))
    wid, victim, _ = admitted_rack_job(env)
    env.sched.set_node_ready(victim, False)
    env.clock.advance(5)
    pods = sorted(p for p, n in env.nodes_of(wid).items() if n == victim)
    for pod, status in zip(pods, statuses, strict=False):
        env.sched.set_pod_status(wid, pod, status)
    assert env.sched.cycle().replaced == ((wid,) if failed else ())


def test_moved_pods_start_fresh_after_replacement(env: Env) -> None:
    wid, victim, _ = admitted_rack_job(env)
    moved = sorted(p for p, n in env.nodes_of(wid).items() if n == victim)
    for pod in moved:
        env.sched.set_pod_status(wid, pod, PodStatus.FAILED)
    env.sched.delete_node(victim)
    env.sched.cycle()
    assert all(env.sched.pod_statuses(wid)[pod] is PodStatus.RUNNING for pod in moved)


def test_replacement_is_one_reassignment_that_never_passes_through_pending(env: Env) -> None:
    wid, victim, spare = admitted_rack_job(env)
    env.sched.set_pod_status(wid, next(iter(env.nodes_of(wid))), PodStatus.RUNNING)
    before = [e.type for e in env.store.list_events(workload=wid)]
    env.sched.delete_node(victim)
    assert env.sched.cycle().replaced == (wid,)
    added = [e.type for e in env.store.list_events(workload=wid)][len(before) :]
    assert added == ["node replaced"]  # no requeue, no second admission, no restart
    record = env.sched.get(wid)
    assert (record.state, record.sequence) == (WorkloadState.RUNNING, env.store.get_workload(wid).sequence)
    assert spare in env.store.reservations(wid) and victim not in env.store.reservations(wid)
