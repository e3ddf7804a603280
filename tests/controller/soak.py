"""Gangs run through the ungater one round after another against ``FakeKubeApi``, as a cluster
runs them: created gated, placed, recorded and ungated, bound and running, finished, deleted.
The memory soak test and ``bench/controller_memory.py`` both drive it.

The cluster: ``racks`` racks of three 8-GPU nodes; each round runs one two-pod gang per rack.
The double's own history (its event log and call list) is dropped after each round, once the
controller's informers have read it, so what remains is what the controller keeps.

``python -m tests.controller.soak GANGS EVERY [--tracemalloc]`` prints a JSON ``Mark`` every
EVERY gangs: memory is measured in a fresh process, where nothing else moves the figures.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import sys
import time
import tracemalloc
from collections.abc import Iterator
from dataclasses import dataclass

from tests.controller.cluster import bind, cluster, controller, kueue_pod, pod

from toposched.controller.keys import is_gated
from toposched.controller.kubeapi import PODS


class Soak:
    def __init__(self, racks: int = 20) -> None:
        self.api = cluster(3 * racks)
        self.ctl = controller(self.api)
        self.racks = racks
        self.finished = 0  # gangs that ran to the end

    def round(self) -> None:
        """One gang per rack, from creation to deletion; fails if any pod was not ungated."""
        api, ctl = self.api, self.ctl
        names = []
        for rack in range(self.racks):
            group = f"r{self.finished + rack}"
            for i in range(2):
                names.append(f"{group}-{i}")
                api.put(PODS, kueue_pod(names[-1], group, total=2))
        for _ in range(3):  # list, place and record, ungate
            ctl.step()
        still_gated = [n for n in names if is_gated(pod(api, n))]
        if still_gated:
            raise AssertionError(f"pods left gated by the round: {still_gated}")
        for name in names:
            bind(api, name)
        ctl.step()  # running
        for name in names:
            bind(api, name, phase="Succeeded")
            api.remove(PODS, name, "default")
        ctl.step()  # the gangs end
        self.finished += self.racks
        self._drop_history()

    def _drop_history(self) -> None:
        """Forget the events every informer has read, and the calls made."""
        api = self.api
        api.calls.clear()
        for informer in self.ctl.every_informer():
            log = api.events.get(informer.resource.plural)
            if log and informer.resource_version is not None:
                seen = int(informer.resource_version)
                api.events[informer.resource.plural] = [(v, e) for v, e in log if v > seen]


@dataclass(frozen=True, slots=True)
class Mark:
    gangs: int  # finished so far
    rss: int  # bytes resident (Linux /proc), after gc.collect()
    heap: int  # bytes tracemalloc traces (0 unless tracing)
    seconds: float
    workloads: int  # held by the controller's scheduler (0: every ended gang was forgotten)


def rss_bytes() -> int:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * 4096


def marks(gangs: int, every: int, *, trace: bool = False, racks: int = 20) -> Iterator[Mark]:
    """Run ``gangs`` gangs; a ``Mark`` after every ``every`` of them (and at the end)."""
    if trace:
        tracemalloc.start()
    soak = Soak(racks)
    start, next_mark = time.perf_counter(), every
    while soak.finished < gangs:
        soak.round()
        if soak.finished >= next_mark or soak.finished >= gangs:
            next_mark += every
            gc.collect()
            heap = tracemalloc.get_traced_memory()[0] if trace else 0
            held = len(soak.ctl.scheduler.list())
            yield Mark(soak.finished, rss_bytes(), heap, time.perf_counter() - start, held)


if __name__ == "__main__":
    for mark in marks(int(sys.argv[1]), int(sys.argv[2]), trace="--tracemalloc" in sys.argv):
        print(json.dumps(dataclasses.asdict(mark)), flush=True)
