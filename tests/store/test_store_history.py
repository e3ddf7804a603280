"""``MemoryStore(history=False)``: what a running scheduler reads is kept, what ended is not."""

from __future__ import annotations

import pytest

from toposched.model import NotFoundError
from toposched.store import MemoryStore, WorkloadState

from .conftest import TOPOLOGY, event, gpu_node, gpus, workload


def store_without_history() -> MemoryStore:
    store = MemoryStore(history=False)
    store.put_nodes([gpu_node("n1"), gpu_node("n2", rack="r2")])
    store.put_topology(TOPOLOGY)
    return store


@pytest.mark.parametrize("end", [WorkloadState.FINISHED, WorkloadState.CANCELLED])
def test_an_ended_workload_is_forgotten_with_its_reservations(end: WorkloadState) -> None:
    store = store_without_history()
    ended = store.submit_workload(workload("ended"), event("Submitted"))
    live = store.submit_workload(workload("live"), event("Submitted"))
    store.admit(ended.id, {"pods": []}, {"n1": gpus(8)}, event())
    store.admit(live.id, {"pods": []}, {"n2": gpus(8)}, event())

    released = store.release(ended.id, end, event(str(end)))

    assert released.state is end
    with pytest.raises(NotFoundError):
        store.get_workload(ended.id)
    assert [w.id for w in store.list_workloads()] == [live.id]
    assert store.reserved_by_node() == {"n2": gpus(8)}
    assert store.get_workload(live.id).state is WorkloadState.ADMITTED


def test_events_are_numbered_but_not_kept() -> None:
    store = store_without_history()
    record = store.submit_workload(workload(), event("Submitted"))
    first = store.append_event(event("Note"))
    store.admit(record.id, {"pods": []}, {"n1": gpus(8)}, event())
    second = store.append_event(event("Note"))
    assert second.seq > first.seq > 0
    assert store.list_events() == []


def test_with_history_an_ended_workload_and_its_events_stay() -> None:
    store = MemoryStore()
    store.put_nodes([gpu_node("n1")])
    record = store.submit_workload(workload(), event("Submitted"))
    store.admit(record.id, {"pods": []}, {"n1": gpus(8)}, event())
    store.release(record.id, WorkloadState.FINISHED, event("Finished"))
    assert store.get_workload(record.id).state is WorkloadState.FINISHED
    assert [e.type for e in store.list_events(workload=record.id)] == ["Submitted", "Admitted", "Finished"]
