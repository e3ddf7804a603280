"""More of the ``Store`` contract (both stores): ``reassign``, submit with its event, bulk
reservation reads and the pool deletion guard."""

from __future__ import annotations

from dataclasses import replace

import pytest

from toposched.model import ConflictError, Resources
from toposched.store import PoolRecord, Store, WorkloadRecord, WorkloadState

from .conftest import event, gpus, workload

S = WorkloadState
OLD = {"pods": [{"name": "p0", "node": "n1"}]}
NEW = {"pods": [{"name": "p0", "node": "n2"}]}


def admitted(
    store: Store, name: str, booking: dict[str, Resources], *, running: bool = False
) -> WorkloadRecord:
    record = store.submit_workload(workload(name))
    record = store.admit(record.id, OLD, booking, event())
    return store.start(record.id, event("Running")) if running else record


@pytest.mark.parametrize("running", [False, True], ids=["admitted", "running"])
def test_reassign_swaps_placement_and_reservations_keeping_state(store: Store, running: bool) -> None:
    record = admitted(store, "a", {"n1": gpus(4)}, running=running)
    moved = store.reassign(record.id, NEW, {"n2": gpus(4)}, event("NodeReplaced", "moved"))
    assert (moved.state, moved.placement, moved.sequence) == (record.state, NEW, record.sequence)
    assert store.reservations(record.id) == {"n2": gpus(4)}
    assert store.reserved_by_node() == {"n2": gpus(4)}
    assert store.list_events(workload=record.id)[-1].type == "NodeReplaced"


def test_reassign_may_reuse_its_own_capacity(store: Store) -> None:
    # 6 GPUs on n1 stay booked by the same workload: its old booking is not counted twice.
    record = admitted(store, "a", {"n1": gpus(6), "n2": gpus(2)})
    store.reassign(record.id, NEW, {"n1": gpus(8)}, event())
    assert store.reservations(record.id) == {"n1": gpus(8)}


def test_reassign_refuses_over_commit_and_writes_nothing(store: Store) -> None:
    other = admitted(store, "other", {"n2": gpus(6)})
    record = admitted(store, "a", {"n1": gpus(4)})
    before = store.list_events()
    with pytest.raises(ConflictError, match=r"cannot be reassigned: node 'n2' would be over-committed"):
        store.reassign(record.id, NEW, {"n2": gpus(4)}, event())
    assert store.get_workload(record.id).placement == OLD
    assert store.reservations(record.id) == {"n1": gpus(4)}
    assert store.reservations(other.id) == {"n2": gpus(6)}
    assert store.list_events() == before


@pytest.mark.parametrize("state", [S.PENDING, S.CANCELLED], ids=["pending", "cancelled"])
def test_reassign_needs_a_workload_holding_capacity(store: Store, state: WorkloadState) -> None:
    record = store.submit_workload(workload())
    if state is S.CANCELLED:
        store.release(record.id, S.CANCELLED, event())
    with pytest.raises(ConflictError, match=f"is {state}: only an admitted or running"):
        store.reassign(record.id, NEW, {"n2": gpus(1)}, event())
    assert store.reservations(record.id) == {}


def test_submit_with_event_logs_it_for_the_new_workload(store: Store) -> None:
    record = store.submit_workload(workload(), event("Submitted", "by alice"))
    [logged] = store.list_events()
    assert (logged.type, logged.workload, logged.message) == ("Submitted", record.id, "by alice")
    assert store.submit_workload(workload("quiet")).id == record.id + 1
    assert len(store.list_events()) == 1


def test_reservations_by_workload_reads_every_booking(store: Store) -> None:
    a = admitted(store, "a", {"n1": gpus(2), "n2": gpus(1)})
    b = admitted(store, "b", {"n1": gpus(3)})
    store.submit_workload(workload("waiting"))
    assert store.reservations_by_workload() == {a.id: {"n1": gpus(2), "n2": gpus(1)}, b.id: {"n1": gpus(3)}}
    store.release(a.id, S.FINISHED, event())
    assert store.reservations_by_workload() == {b.id: {"n1": gpus(3)}}


def test_pool_in_use_cannot_be_deleted(store: Store) -> None:
    store.put_pool(PoolRecord("gpu-pool", "default"))
    record = store.submit_workload(replace(workload(), pool="gpu-pool"))
    with pytest.raises(ConflictError, match=rf"pool 'gpu-pool' is still used by workloads {record.id}"):
        store.delete_pool("gpu-pool")
    assert store.get_pool("gpu-pool").name == "gpu-pool"
    store.release(record.id, S.FINISHED, event())
    store.delete_pool("gpu-pool")
    assert store.list_pools() == []
