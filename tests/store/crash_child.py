"""Child process for the crash-safety test: submits, admits and releases workloads as fast as it
can, printing each id only after the call returned (the write is committed), until it is killed
(or, should the parent die first, for at most ``LIFETIME`` seconds).

Usage: python crash_child.py STORE_FILE SEED
"""

from __future__ import annotations

import random
import sys
import time

from toposched.model import ConflictError, Node, Resources
from toposched.store import EventRecord, SqliteStore, WorkloadRecord, WorkloadState

LIFETIME = 60.0

NODES = [
    Node.create(f"n{i}", {"kubernetes.io/hostname": f"n{i}"}, Resources({"nvidia.com/gpu": 8, "pods": 4}))
    for i in range(4)
]


def main(path: str, seed: int) -> None:
    rng = random.Random(seed)
    store = SqliteStore(path)
    if not store.get_nodes():
        store.put_nodes(NODES)
    print("ready", flush=True)
    deadline = time.monotonic() + LIFETIME
    while time.monotonic() < deadline:
        record = store.submit_workload(
            WorkloadRecord(
                name=f"w{seed}", kind="Job", owner="crash", spec="kind: Job", priority=rng.randint(0, 3)
            )
        )
        print(f"submitted {record.id}", flush=True)
        pending = store.list_workloads(states={WorkloadState.PENDING})
        target = rng.choice(pending)
        # Random bookings, often too big: the store alone must refuse over-commit.
        booking = {
            node.name: Resources({"nvidia.com/gpu": rng.randint(1, 8), "pods": 1})
            for node in rng.sample(NODES, rng.randint(1, 3))
        }
        try:
            store.admit(target.id, {"nodes": sorted(booking)}, booking, EventRecord("Admitted", "", 0.0))
            print(f"admitted {target.id}", flush=True)
        except ConflictError:
            pass
        holding = store.list_workloads(states={WorkloadState.ADMITTED})
        if holding and rng.random() < 0.4:
            done = rng.choice(holding)
            store.release(done.id, WorkloadState.FINISHED, EventRecord("Finished", "", 0.0))
            print(f"released {done.id}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
