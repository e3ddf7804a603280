"""Group commit: concurrent callers share transactions, yet each gets its own result or error."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path

import pytest

from polling import wait_until
from toposched.store import SqliteStore, WorkloadRecord
from toposched.store.batching import GroupCommit


class Recorder:
    """A commit function that records its batches; it blocks the first batch until released, so
    the callers arriving meanwhile must queue."""

    def __init__(self) -> None:
        self.batches: list[list[int]] = []
        self.release = threading.Event()

    def __call__(self, items: Sequence[int]) -> list[int]:
        if not self.batches:
            self.release.wait(timeout=10)
        if any(item < 0 for item in items):
            raise ValueError(f"negative item in {list(items)}")
        self.batches.append(list(items))
        return [item * 10 for item in items]


def run_callers(group: GroupCommit[int, int], items: list[int], recorder: Recorder) -> dict[int, object]:
    outcomes: dict[int, object] = {}

    def call(item: int) -> None:
        try:
            outcomes[item] = group(item)
        except ValueError as exc:
            outcomes[item] = exc

    first = threading.Thread(target=call, args=(items[0],))
    first.start()
    wait_until(lambda: not group._queue and group._committing, what="the first caller commits")
    rest = [threading.Thread(target=call, args=(item,)) for item in items[1:]]
    for thread in rest:
        thread.start()
    wait_until(
        lambda: len(group._queue) >= len(rest), what="every later caller queues behind the first batch"
    )
    recorder.release.set()
    for thread in [first, *rest]:
        thread.join(timeout=10)
    return outcomes


def test_callers_queued_during_a_commit_share_the_next_one() -> None:
    recorder = Recorder()
    group: GroupCommit[int, int] = GroupCommit(recorder)
    outcomes = run_callers(group, [1, 2, 3, 4], recorder)
    assert outcomes == {1: 10, 2: 20, 3: 30, 4: 40}
    assert recorder.batches[0] == [1]
    assert sorted(recorder.batches[1]) == [2, 3, 4]  # one transaction for the three queued


def test_a_failing_item_fails_alone() -> None:
    recorder = Recorder()
    group: GroupCommit[int, int] = GroupCommit(recorder)
    outcomes = run_callers(group, [1, 2, -3, 4], recorder)
    assert (outcomes[1], outcomes[2], outcomes[4]) == (10, 20, 40)
    assert isinstance(outcomes[-3], ValueError)
    assert [-3] not in recorder.batches and all(-3 not in batch for batch in recorder.batches)


def test_concurrent_submissions_all_stored_with_distinct_ids(tmp_path: Path) -> None:
    store = SqliteStore(tmp_path / "state.db")
    ids: list[int] = []
    lock = threading.Lock()

    def submit(n: int) -> None:
        for i in range(10):
            record = store.submit_workload(WorkloadRecord(f"w-{n}-{i}", "Job", "alice", "kind: Job\n"))
            with lock:
                ids.append(record.id)

    threads = [threading.Thread(target=submit, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    stored = store.list_workloads()
    store.close()
    assert sorted(ids) == sorted(w.id for w in stored) and len(set(ids)) == 80
    assert sorted(w.sequence for w in stored) == list(range(1, 81))


@pytest.mark.parametrize("threads", [1, 4], ids=["one-thread", "four-threads"])
def test_reads_from_many_threads_see_the_last_commit(tmp_path: Path, threads: int) -> None:
    store = SqliteStore(tmp_path / "state.db")
    record = store.submit_workload(WorkloadRecord("w", "Job", "alice", "kind: Job\n"))
    seen: list[str] = []

    def read() -> None:
        seen.append(store.get_workload(record.id).name)

    workers = [threading.Thread(target=read) for _ in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=10)
    store.close()
    assert seen == ["w"] * threads
