"""The cycle stores its decisions a run at a time: an admission the store refuses at that point
is explained like any refusal, and one the store cannot take at all is confined to its workload."""

from __future__ import annotations

from collections.abc import Sequence

from toposched.model import ConflictError, Resources
from toposched.store import Admission, Decision, EventRecord, MemoryStore, WorkloadRecord, WorkloadState

from .conftest import Env, job


class RacingStore(MemoryStore):
    """Before the first run of decisions is stored, another scheduler books workload ``rival``
    on every GPU of ``x1``-``x3``."""

    rival = 0

    def write_decisions(self, decisions: Sequence[Decision]) -> dict[int, ConflictError]:
        if self.rival:
            booking = {n: Resources({"example.com/gpu": 2, "pods": 1}) for n in ("x1", "x2", "x3")}
            self.admit(self.rival, {"elsewhere": True}, booking, EventRecord("Admitted", "rival", 0.0))
            self.rival = 0
        return super().write_decisions(decisions)


class FailingStore(MemoryStore):
    """Cannot store the admission of workload ``broken`` (a run holding it fails as a whole)."""

    broken = 0

    def write_decisions(self, decisions: Sequence[Decision]) -> dict[int, ConflictError]:
        if any(isinstance(d, Admission) and d.workload == self.broken for d in decisions):
            raise RuntimeError("disk on fire")
        return super().write_decisions(decisions)


def test_an_admission_refused_when_stored_is_explained_and_waits() -> None:
    store = RacingStore()
    env = Env(store)
    mine = env.submit(job("mine", 3))  # rack r1: x1-x3
    rival = store.submit_workload(WorkloadRecord("rival", "Job", "bob", "{}"))
    store.rival = rival.id
    report = env.sched.cycle()
    assert report.admitted == ()
    assert mine in report.unschedulable
    record = env.sched.get(mine)
    assert record.state is WorkloadState.PENDING
    assert "over-committed" in record.explanation["reason"]
    assert env.store.get_workload(rival.id).state is WorkloadState.ADMITTED
    assert env.store.reservations(mine) == {}


def test_an_admission_the_store_cannot_take_is_confined_to_its_workload() -> None:
    store = FailingStore()
    env = Env(store)
    first = env.submit(job("first", 1))
    broken = env.submit(job("broken", 1))
    last = env.submit(job("last", 1))
    store.broken = broken
    report = env.sched.cycle()
    assert report.admitted == (first, last)
    record = env.sched.get(broken)
    assert record.state is WorkloadState.PENDING
    assert record.explanation["broken"] is True
    assert "disk on fire" in record.explanation["reason"]
    assert list(env.sched.health().broken) == [broken]
    assert env.store.reservations(broken) == {}
    assert set(env.store.reserved_by_node()) == {p for w in (first, last) for p in env.nodes_of(w).values()}
