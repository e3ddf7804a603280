"""The ``Store`` contract, run against ``MemoryStore`` and ``SqliteStore`` alike."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import replace

import pytest

from toposched.model import (
    ConflictError,
    NotFoundError,
    Quota,
    QuotaExceededError,
    Resources,
    Topology,
    Usage,
)
from toposched.store import (
    ACTIVE_STATES,
    Admission,
    EventRecord,
    Note,
    PoolRecord,
    QueueEntry,
    Store,
    WorkloadState,
)

from .conftest import HOSTNAME, RACK, TAINT, TOPOLOGY, event, gpu_node, gpus, workload

S = WorkloadState


# -- nodes -------------------------------------------------------------------------------------------
def test_nodes_round_trip_every_field(store: Store) -> None:
    tainted = replace(gpu_node("n3"), taints=(TAINT,), ready=False, unschedulable=True)
    store.put_nodes([tainted])
    assert store.get_node("n3") == tainted
    assert [n.name for n in store.get_nodes()] == ["n1", "n2", "n3"]


def test_put_nodes_replace_drops_unlisted(store: Store) -> None:
    store.put_nodes([gpu_node("n9")], replace=True)
    assert [n.name for n in store.get_nodes()] == ["n9"]


def test_update_node_changes_only_given_fields(store: Store) -> None:
    updated = store.update_node("n1", ready=False, taints=(TAINT,))
    assert (updated.ready, updated.taints, updated.unschedulable) == (False, (TAINT,), False)
    assert updated.allocatable == gpu_node("n1").allocatable
    assert store.get_node("n1") == updated


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda s: s.get_node("nope"), id="get"),
        pytest.param(lambda s: s.update_node("nope", ready=True), id="update"),
        pytest.param(lambda s: s.delete_node("nope"), id="delete"),
    ],
)
def test_unknown_node_is_not_found(store: Store, call: Callable[[Store], object]) -> None:
    with pytest.raises(NotFoundError, match="node 'nope' not found"):
        call(store)


# -- topologies and pools ------------------------------------------------------------------------------
def test_topologies_round_trip_and_list_sorted(store: Store) -> None:
    other = Topology.create("a-first", [HOSTNAME])
    store.put_topology(other)
    assert store.get_topology("default") == TOPOLOGY
    assert store.get_topology("default").aliases == {"rack": RACK}
    assert [t.name for t in store.list_topologies()] == ["a-first", "default"]
    store.delete_topology("a-first")
    with pytest.raises(NotFoundError, match="known topologies: default"):
        store.get_topology("a-first")


def test_topology_in_use_cannot_be_deleted(store: Store) -> None:
    record = store.submit_workload(workload(topology="default"))
    store.put_pool(PoolRecord("pool-a", topology="default"))
    with pytest.raises(ConflictError, match=rf"workload {record.id}, pool 'pool-a'"):
        store.delete_topology("default")
    store.delete_pool("pool-a")
    store.release(record.id, S.CANCELLED, event("Cancelled"))
    store.delete_topology("default")
    assert store.list_topologies() == []


def test_pools_round_trip(store: Store) -> None:
    store.put_pool(PoolRecord("b", topology="default", config={"gpus": [1, 2], "note": "x"}))
    store.put_pool(PoolRecord("a"))
    assert store.get_pool("b") == PoolRecord("b", "default", {"gpus": [1, 2], "note": "x"})
    assert [p.name for p in store.list_pools()] == ["a", "b"]
    store.delete_pool("a")
    with pytest.raises(NotFoundError, match="known pools: b"):
        store.get_pool("a")


def test_returned_payloads_are_copies(store: Store) -> None:
    config = {"levels": ["rack"]}
    store.put_pool(PoolRecord("p", config=config))
    config["levels"].append("zone")
    store.get_pool("p").config["levels"].append("host")
    assert store.get_pool("p").config == {"levels": ["rack"]}


# -- workloads ---------------------------------------------------------------------------------------
def test_submit_assigns_ids_and_arrival_order(store: Store) -> None:
    sneaky = replace(workload("b"), id=99, sequence=99, state=S.RUNNING, placement={"x": 1})
    a = store.submit_workload(workload("a"))
    b = store.submit_workload(sneaky)
    assert (b.id, b.sequence, b.state, b.placement) == (a.id + 1, a.sequence + 1, S.PENDING, None)
    assert store.get_workload(a.id) == a
    assert (a.name, a.kind, a.owner, a.spec, a.submitted_at) == ("a", "Job", "alice", workload("a").spec, 1.5)


def test_a_workloads_own_topologies_are_kept_with_it_not_among_the_topologies(store: Store) -> None:
    own = Topology.create(
        "kube-rack-0123456789", ["example.com/rack", HOSTNAME], {"rack": "example.com/rack"}
    )
    record = store.submit_workload(replace(workload("a", topology=own.name), own_topologies=(own,)))
    assert record.own_topologies == (own,)
    assert store.get_workload(record.id).own_topologies == (own,)
    assert store.list_workloads()[0].own_topologies == (own,)
    assert store.submit_workload(workload("b")).own_topologies == ()
    assert store.list_topologies() == [TOPOLOGY]


def test_a_kube_constraint_topology_keeps_its_every_node_view(store: Store) -> None:
    # The kube front end's topologies take NotReady and cordoned nodes too; stored with the
    # workload and read back, they must still, or the service would place as before.
    own = Topology.create("kube-rack-0123456789", ["example.com/rack"], every_node=True)
    record = store.submit_workload(replace(workload("a", topology=own.name), own_topologies=(own,)))
    assert store.get_workload(record.id).own_topologies == (own,)
    assert store.get_workload(record.id).own_topologies[0].every_node


def test_list_workloads_filters_by_owner_and_state(store: Store) -> None:
    a = store.submit_workload(workload("a", owner="alice"))
    b = store.submit_workload(workload("b", owner="bob"))
    c = store.submit_workload(workload("c", owner="alice"))
    store.admit(c.id, {}, {"n1": gpus(1)}, event())
    assert [w.name for w in store.list_workloads()] == ["a", "b", "c"]
    assert [w.name for w in store.list_workloads(owner="alice")] == ["a", "c"]
    assert [w.name for w in store.list_workloads(states={S.PENDING})] == ["a", "b"]
    assert [w.id for w in store.list_workloads(owner="alice", states=ACTIVE_STATES)] == [a.id, c.id]
    assert store.list_workloads(states=()) == []
    assert b.owner == "bob"


def test_queue_lists_ids_priorities_and_order_of_some_states(store: Store) -> None:
    a = store.submit_workload(workload("a", priority=3))
    b = store.submit_workload(workload("b"))
    c = store.submit_workload(workload("c", priority=7))
    store.admit(b.id, {}, {"n1": gpus(1)}, event())
    assert store.queue({S.PENDING}) == [
        QueueEntry(a.id, 3, a.sequence, a.submitted_at),
        QueueEntry(c.id, 7, c.sequence, c.submitted_at),
    ]
    assert [e.id for e in store.queue(ACTIVE_STATES)] == [a.id, b.id, c.id]
    assert store.queue(()) == []


def test_a_requeued_workload_is_pending_since_its_requeue(store: Store) -> None:
    # Aging counts from here (``scheduler.aging``): submission, else the last requeue.
    a = store.submit_workload(workload("a"))
    store.admit(a.id, {}, {"n1": gpus(1)}, event(time=10.0))
    store.requeue(a.id, event("Evicted", time=50.0))
    assert [e.since for e in store.queue({S.PENDING})] == [50.0]


def test_unknown_workload_is_not_found(store: Store) -> None:
    with pytest.raises(NotFoundError, match="workload '42' not found"):
        store.get_workload(42)
    with pytest.raises(NotFoundError):
        store.admit(42, {}, {}, event())


def test_admit_books_capacity_and_logs_event(store: Store) -> None:
    record = store.submit_workload(workload())
    store.set_explanation(record.id, {"why": "waiting"})
    placement = {"pods": [{"pod": "p0", "node": "n1"}]}
    admitted = store.admit(record.id, placement, {"n1": gpus(4), "n2": gpus(2)}, event())
    assert (admitted.state, admitted.placement, admitted.explanation) == (S.ADMITTED, placement, None)
    assert store.reservations(record.id) == {"n1": gpus(4), "n2": gpus(2)}
    assert store.reserved_by_node() == {"n1": gpus(4), "n2": gpus(2)}
    [logged] = store.list_events(workload=record.id)
    assert (logged.type, logged.workload, logged.data, logged.time) == (
        "Admitted",
        record.id,
        {"by": "test"},
        10.0,
    )


def test_reserved_by_node_sums_workloads(store: Store) -> None:
    for name in ("a", "b"):
        record = store.submit_workload(workload(name))
        store.admit(record.id, {}, {"n1": gpus(3)}, event())
    assert store.reserved_by_node() == {"n1": gpus(6, pods=2)}


@pytest.mark.parametrize(
    ("booking", "message"),
    [
        pytest.param(
            {"n1": gpus(9)},
            r"node 'n1' would be over-committed \(nvidia.com/gpu 9 > 8\)",
            id="one-node-too-big",
        ),
        pytest.param({"n1": gpus(1), "gone": gpus(1)}, r"node 'gone' is unknown", id="unknown-node"),
        pytest.param(
            {"n2": Resources({"example.com/fpga": 1})}, r"example.com/fpga 1 > 0", id="resource-node-lacks"
        ),
    ],
)
def test_admit_refuses_over_commit(store: Store, booking: dict[str, Resources], message: str) -> None:
    record = store.submit_workload(workload())
    with pytest.raises(ConflictError, match=message):
        store.admit(record.id, {}, booking, event())
    assert store.get_workload(record.id).state is S.PENDING
    assert store.reserved_by_node() == {}
    assert store.list_events() == []


def test_admit_counts_existing_bookings(store: Store) -> None:
    first = store.submit_workload(workload("first"))
    second = store.submit_workload(workload("second"))
    store.admit(first.id, {}, {"n1": gpus(6)}, event())
    with pytest.raises(ConflictError, match=r"nvidia.com/gpu 9 > 8"):
        store.admit(second.id, {}, {"n1": gpus(3), "n2": gpus(3)}, event())
    assert store.reservations(second.id) == {}
    assert store.admit(second.id, {}, {"n1": gpus(2)}, event()).state is S.ADMITTED
    assert store.reserved_by_node() == {"n1": gpus(8, pods=2)}


def test_replayed_admit_is_refused_not_booked_twice(store: Store) -> None:
    record = store.submit_workload(workload())
    store.admit(record.id, {}, {"n1": gpus(2)}, event())
    with pytest.raises(ConflictError, match="is admitted, not pending"):
        store.admit(record.id, {}, {"n1": gpus(2)}, event())
    assert store.reserved_by_node() == {"n1": gpus(2)}
    assert len(store.list_events()) == 1


def test_failing_admit_writes_nothing(store: Store) -> None:
    record = store.submit_workload(workload())
    with pytest.raises(TypeError):
        store.admit(record.id, {"bad": object()}, {"n1": gpus(1)}, event())
    assert store.get_workload(record.id).state is S.PENDING
    assert (store.reserved_by_node(), store.list_events()) == ({}, [])


def test_negative_reservation_is_a_bug(store: Store) -> None:
    record = store.submit_workload(workload())
    with pytest.raises(ValueError, match=r"negative amounts: nvidia\.com/gpu"):
        store.admit(record.id, {}, {"n1": Resources({"nvidia.com/gpu": -1})}, event())


# -- lifecycle ---------------------------------------------------------------------------------------
def test_start_keeps_reservations_and_is_idempotent(store: Store) -> None:
    record = store.submit_workload(workload())
    store.admit(record.id, {}, {"n1": gpus(2)}, event())
    assert store.start(record.id, event("Running")).state is S.RUNNING
    assert store.start(record.id, event("Running")).state is S.RUNNING
    assert store.reserved_by_node() == {"n1": gpus(2)}
    assert [e.type for e in store.list_events()] == ["Admitted", "Running"]


@pytest.mark.parametrize("final", [S.FINISHED, S.CANCELLED])
def test_release_frees_capacity_and_is_idempotent(store: Store, final: WorkloadState) -> None:
    record = store.submit_workload(workload())
    store.admit(record.id, {"p": 1}, {"n1": gpus(2)}, event())
    store.start(record.id, event("Running"))
    first = store.release(record.id, final, event("Done"))
    again = store.release(record.id, final, event("Done"))
    assert first == again
    assert first.state is final
    assert store.reserved_by_node() == {}
    assert [e.type for e in store.list_events()] == ["Admitted", "Running", "Done"]


def test_release_rules(store: Store) -> None:
    record = store.submit_workload(workload())
    assert store.release(record.id, S.CANCELLED, event("Cancelled")).state is S.CANCELLED
    with pytest.raises(ConflictError, match="already cancelled: it cannot become finished"):
        store.release(record.id, S.FINISHED, event())
    with pytest.raises(ValueError, match="not evicted"):
        store.release(record.id, S.EVICTED, event())


def test_evict_then_requeue(store: Store) -> None:
    record = store.submit_workload(workload())
    store.admit(record.id, {"p": 1}, {"n1": gpus(2)}, event())
    evicted = store.evict(record.id, event("Evicted"), {"reason": "node n1 NotReady"})
    assert (evicted.state, evicted.placement, evicted.explanation) == (
        S.EVICTED,
        None,
        {"reason": "node n1 NotReady"},
    )
    assert store.evict(record.id, event("Evicted")) == evicted
    assert store.reserved_by_node() == {}
    requeued = store.requeue(record.id, event("Requeued"))
    assert (requeued.state, requeued.sequence) == (S.PENDING, record.sequence)
    assert store.requeue(record.id, event("Requeued")) == requeued
    assert [e.type for e in store.list_events()] == ["Admitted", "Evicted", "Requeued"]


def test_requeue_to_back_takes_a_new_sequence(store: Store) -> None:
    first = store.submit_workload(workload("first"))
    second = store.submit_workload(workload("second"))
    store.admit(first.id, {}, {"n1": gpus(1)}, event())
    moved = store.requeue(first.id, event("Requeued"), to_back=True)
    assert moved.sequence > second.sequence
    assert store.reserved_by_node() == {}
    assert [w.name for w in store.list_workloads()] == ["second", "first"]


@pytest.mark.parametrize(
    ("setup", "call", "message"),
    [
        pytest.param(
            [], lambda s, i: s.start(i, event()), "is pending: only an admitted", id="start-pending"
        ),
        pytest.param(
            [], lambda s, i: s.evict(i, event()), "is pending: only admitted or running", id="evict-pending"
        ),
        pytest.param(
            ["finish"], lambda s, i: s.requeue(i, event()), "is finished: a finished", id="requeue-finished"
        ),
        pytest.param(
            ["finish"],
            lambda s, i: s.admit(i, {}, {}, event()),
            "is finished, not pending",
            id="admit-finished",
        ),
    ],
)
def test_lifecycle_conflicts(
    store: Store, setup: list[str], call: Callable[[Store, int], object], message: str
) -> None:
    record = store.submit_workload(workload())
    if "finish" in setup:
        store.release(record.id, S.FINISHED, event())
    before = store.list_events()
    with pytest.raises(ConflictError, match=message):
        call(store, record.id)
    assert store.list_events() == before


# -- events ------------------------------------------------------------------------------------------
def test_events_append_and_filter(store: Store) -> None:
    record = store.submit_workload(workload())
    general = store.append_event(EventRecord("NodeNotReady", "n1 is not ready", 1.0, data={"node": "n1"}))
    own = store.append_event(EventRecord("Note", "hello", 2.0, workload=record.id))
    assert own.seq > general.seq > 0
    assert store.list_events() == [general, own]
    assert store.list_events(since=general.seq) == [own]
    assert store.list_events(workload=record.id) == [own]
    assert store.list_events(limit=1) == [general]
    with pytest.raises(NotFoundError):
        store.append_event(EventRecord("Note", "x", 3.0, workload=12345))


# -- batched writes ------------------------------------------------------------------------------------
def test_notes_are_written_only_for_pending_workloads(store: Store) -> None:
    waiting = store.submit_workload(workload("waiting"))
    other = store.submit_workload(workload("other"))
    admitted = store.submit_workload(workload("admitted"))
    store.admit(admitted.id, {"pods": []}, {"n1": gpus(1)}, event())
    before = len(store.list_events())
    refused = store.write_decisions(
        [
            Note(waiting.id, {"reason": "no rack fits"}, event("Unschedulable", "no rack fits")),
            Note(other.id, {"reason": "quiet"}),
            Note(admitted.id, {"reason": "stale"}, event("Unschedulable", "stale")),
            Note(999_999, {"reason": "gone"}),
        ]
    )
    assert refused == {}
    assert store.get_workload(waiting.id).explanation == {"reason": "no rack fits"}
    assert store.get_workload(other.id).explanation == {"reason": "quiet"}
    assert store.get_workload(admitted.id).explanation is None
    new_events = store.list_events()[before:]
    assert [(e.type, e.workload) for e in new_events] == [("Unschedulable", waiting.id)]


def test_a_run_of_decisions_is_written_in_order_and_checked_against_its_own_admissions(
    store: Store,
) -> None:
    first, second, third, cancelled = (store.submit_workload(workload(f"w{i}")) for i in range(4))
    store.release(cancelled.id, S.CANCELLED, event("Cancelled"))
    before = len(store.list_events())
    refused = store.write_decisions(
        [
            Admission(first.id, {"p": 1}, {"n1": gpus(6)}, event("Admitted", "first")),
            Note(third.id, {"reason": "waits"}, event("Unschedulable", "waits")),
            Admission(second.id, {"p": 2}, {"n1": gpus(3)}, event("Admitted", "second")),  # 6 + 3 > 8
            Admission(cancelled.id, {"p": 3}, {"n2": gpus(1)}, event("Admitted", "cancelled")),
            Admission(third.id, {"p": 4}, {"n1": gpus(2)}, event("Admitted", "third")),
        ]
    )
    assert sorted(refused) == [second.id, cancelled.id]
    assert all(isinstance(exc, ConflictError) for exc in refused.values())
    assert "over-committed" in str(refused[second.id])
    states = {w.id: w.state for w in store.list_workloads()}
    assert (states[first.id], states[second.id], states[third.id]) == (S.ADMITTED, S.PENDING, S.ADMITTED)
    assert store.reservations(second.id) == {}
    assert store.reserved_by_node() == {"n1": gpus(8, pods=2)}
    new_events = [(e.type, e.message) for e in store.list_events()[before:]]
    assert new_events == [("Admitted", "first"), ("Unschedulable", "waits"), ("Admitted", "third")]


def test_concurrent_releases_each_free_their_own_capacity(store: Store) -> None:
    ids = []
    for i in range(6):
        record = store.submit_workload(workload(f"w{i}"))
        store.admit(record.id, {"pods": []}, {"n1": gpus(1)}, event())
        ids.append(record.id)
    errors: list[BaseException] = []

    def cancel(workload_id: int) -> None:
        try:
            store.release(workload_id, S.CANCELLED, event("Cancelled"))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=cancel, args=(i,)) for i in ids]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert all(store.get_workload(i).state is S.CANCELLED for i in ids)
    assert store.reserved_by_node() == {}


# -- pages -------------------------------------------------------------------------------------------
def test_pages_of_workloads_and_events_by_owner(store: Store) -> None:
    ids = [
        store.submit_workload(workload(f"w{i}", owner="bob" if i % 2 else "alice"), event()).id
        for i in range(7)
    ]
    bobs = ids[1::2]
    assert [w.id for w in store.page_workloads(owner="bob", limit=2)] == bobs[:2]
    assert [w.id for w in store.page_workloads(owner="bob", after=bobs[1], limit=10)] == bobs[2:]
    store.admit(ids[0], {"pods": []}, {}, event())
    assert [w.id for w in store.page_workloads(states=[S.ADMITTED], limit=5)] == [ids[0]]
    assert [e.workload for e in store.list_events(owner="bob")] == bobs
    first = store.list_events(owner="bob", limit=1)
    assert [e.workload for e in store.list_events(first[0].seq, owner="bob")] == bobs[1:]


# -- version -----------------------------------------------------------------------------------------
WRITES: list[tuple[str, Callable[[Store, int], object]]] = [
    ("put_nodes", lambda s, _: s.put_nodes([gpu_node("n3")])),
    ("update_node", lambda s, _: s.update_node("n1", ready=False)),
    ("delete_node", lambda s, _: s.delete_node("n2")),
    ("put_topology", lambda s, _: s.put_topology(Topology.create("other", [HOSTNAME]))),
    ("put_pool", lambda s, _: s.put_pool(PoolRecord("pool-a", topology="default"))),
    ("submit_workload", lambda s, _: s.submit_workload(workload("w2"), event())),
    ("set_explanation", lambda s, w: s.set_explanation(w, {"reason": "full"})),
    ("admit", lambda s, w: s.admit(w, {"pods": []}, {"n1": gpus(2)}, event())),
    ("release", lambda s, w: s.release(w, S.CANCELLED, event("Cancelled"))),
    ("append_event", lambda s, w: s.append_event(event("Note"))),
]
READS: list[Callable[[Store, int], object]] = [
    lambda s, _: s.get_nodes(),
    lambda s, _: s.list_topologies(),
    lambda s, _: s.list_pools(),
    lambda s, w: s.get_workload(w),
    lambda s, _: s.list_workloads(),
    lambda s, _: s.queue([S.PENDING]),
    lambda s, _: s.reserved_by_node(),
    lambda s, _: s.list_events(),
]


@pytest.mark.parametrize(("name", "write"), WRITES, ids=[name for name, _ in WRITES])
def test_every_change_moves_the_version_and_reads_do_not(
    store: Store, name: str, write: Callable[[Store, int], object]
) -> None:
    pending = store.submit_workload(workload(), event()).id
    before = store.version()
    for read in READS:
        read(store, pending)
    assert store.version() == before, "a read moved the version"
    write(store, pending)
    assert store.version() != before, f"{name} left the version where it was"


# -- per-user quotas on pending work ------------------------------------------------------------
def test_a_submission_past_the_quota_is_refused_and_writes_nothing(store: Store) -> None:
    quota = Quota(workloads=2, pods=10, spec_bytes=10_000)
    first = store.submit_workload(replace(workload("a"), pods=4), quota=quota)
    store.submit_workload(replace(workload("b"), pods=4), quota=quota)
    events = store.list_events()
    with pytest.raises(
        QuotaExceededError, match=r"3 pending workloads; the quota is 2 \(quota\.workloads\)"
    ) as info:
        store.submit_workload(replace(workload("c"), pods=1), event(), quota=quota)
    assert info.value.limit == "quota.workloads" and "PUT /v1/quotas/alice" in str(info.value)
    assert [w.name for w in store.list_workloads()] == ["a", "b"] and store.list_events() == events
    assert store.pending_usage("alice") == Usage(2, 8, 2 * len(workload("a").spec))
    store.submit_workload(replace(workload("other", owner="bob"), pods=1), quota=quota)  # bob's own work
    store.admit(first.id, {"pods": []}, {"n1": gpus(1)}, event())  # admitted work is not pending
    store.submit_workload(replace(workload("c"), pods=2), quota=quota)
    with pytest.raises(QuotaExceededError, match=r"11 pods in pending workloads; the quota is 10"):
        store.submit_workload(
            replace(workload("d"), pods=5), quota=Quota(workloads=9, pods=10, spec_bytes=10**6)
        )
    size = len(workload("e").spec)  # b, c and e pending: three specs of one size
    with pytest.raises(
        QuotaExceededError, match=rf"{3 * size} bytes of pending specs; the quota is {3 * size - 1}"
    ):
        store.submit_workload(workload("e"), quota=Quota(workloads=9, pods=99, spec_bytes=3 * size - 1))


def test_a_users_own_quota_takes_the_defaults_place(store: Store) -> None:
    tight = Quota(workloads=1, pods=100, spec_bytes=10**6)
    store.put_quota("alice", Quota(workloads=3, pods=100, spec_bytes=10**6))
    for name in "abc":
        store.submit_workload(workload(name), quota=tight)
    with pytest.raises(QuotaExceededError, match="quota is 3"):
        store.submit_workload(workload("d"), quota=tight)
    assert store.list_quotas() == {"alice": Quota(workloads=3, pods=100, spec_bytes=10**6)}
    store.delete_quota("alice")
    with pytest.raises(QuotaExceededError, match="quota is 1"):
        store.submit_workload(workload("d"), quota=tight)
    with pytest.raises(NotFoundError):
        store.delete_quota("alice")
    store.put_quota("bob", Quota(workloads=0, pods=0, spec_bytes=0))  # bob may queue nothing
    with pytest.raises(QuotaExceededError):
        store.submit_workload(workload("x", owner="bob"))
