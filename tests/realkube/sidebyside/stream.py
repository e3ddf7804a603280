"""A stream of gangs through the API server, for a scheduler's throughput (bench/vs_kube_scheduler_throughput.py).

One cluster (zones of blocks of racks of alike GPU nodes) and one stream of gangs (PodGroups of
1-256 pods of one GPU each, a third without a constraint, the others requiring a rack, or a
block when a rack cannot hold them), the same for every scheduler measured. Each scheduler gets
a fresh control plane: the nodes and every pod are written first (the pods wait for their
PodGroup), then the PodGroups one after another as fast as the API server takes them; a gang is
complete when its PodGroup is written, and placed when the scheduler has put its last pod.

A scheduler is a ``Contender``: it starts against the control plane, says how it wants the
pods written (kube-scheduler: as they are) and when a pod is placed (kube-scheduler: bound).
toposched's controller (ungater mode: gated pods in, ungated pods with node affinity out) is
another contender, added beside ``KubeSchedulerContender``.
"""

from __future__ import annotations

import json
import math
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import partial
from typing import Any, Protocol

import httpx
from tests.realkube.binaries import Binaries
from tests.realkube.control_plane import ControlPlane
from tests.realkube.scheduler import KubeScheduler, start_kube_scheduler
from tests.realkube.sidebyside.api import AdminApi
from tests.realkube.sidebyside.cluster import BLOCK, CASE_LABEL, GPU, HOST, RACK, ZONE, NodeSpec

NAMESPACE = "stream"
POD_REQUESTS = {"cpu": "2", "memory": "8Gi", GPU: "1"}
WRITERS = 8  # threads writing nodes and pods


@dataclass(frozen=True, slots=True)
class Shape:
    zones: int
    blocks: int  # per zone
    racks: int  # per block
    nodes: int  # per rack
    gpus: int = 8

    @property
    def size(self) -> int:
        return self.zones * self.blocks * self.racks * self.nodes

    @property
    def rack_gpus(self) -> int:
        return self.nodes * self.gpus


@dataclass(frozen=True, slots=True)
class StreamGang:
    name: str
    pods: int
    key: str | None


def stream_nodes(shape: Shape) -> list[NodeSpec]:
    out = []
    for z in range(shape.zones):
        for b in range(shape.blocks):
            for r in range(shape.racks):
                for n in range(shape.nodes):
                    name = f"t-z{z}b{b}r{r}n{n}"
                    labels = {
                        ZONE: f"z{z}",
                        BLOCK: f"z{z}-b{b}",
                        RACK: f"z{z}-b{b}-r{r}",
                        HOST: name,
                        CASE_LABEL: "t",
                    }
                    out.append(NodeSpec(name, labels, 64, 256, shape.gpus))
    return out


def stream_gangs(shape: Shape, count: int, largest: int, seed: int, fill: float = 0.7) -> list[StreamGang]:
    """``count`` gangs of 1 to ``largest`` pods (log-uniform), together at most ``fill`` of the
    cluster's GPUs; a third unconstrained, the rest on a rack, or a block when larger."""
    rng = random.Random(f"toposched-stream/{seed}")
    budget = int(shape.size * shape.gpus * fill)
    gangs: list[StreamGang] = []
    for i in range(count):
        pods = min(largest, max(1, int(math.exp(rng.uniform(0, math.log(largest + 1))))))
        if pods > budget:
            break
        budget -= pods
        key = None if rng.random() < 1 / 3 else (RACK if pods <= shape.rack_gpus else BLOCK)
        gangs.append(StreamGang(f"g{i:04d}", pods, key))
    return gangs


def podgroup(gang: StreamGang) -> dict[str, Any]:
    spec: dict[str, Any] = {"schedulingPolicy": {"gang": {"minCount": gang.pods}}}
    if gang.key:
        spec["schedulingConstraints"] = {"topology": [{"key": gang.key}]}
    return {"metadata": {"name": gang.name, "namespace": NAMESPACE}, "spec": spec}


def pods_of(gang: StreamGang) -> list[dict[str, Any]]:
    return [
        {
            "metadata": {"name": f"{gang.name}-{i}", "namespace": NAMESPACE, "labels": {"gang": gang.name}},
            "spec": {
                "schedulingGroup": {"podGroupName": gang.name},
                "containers": [
                    {
                        "name": "w",
                        "image": "registry.example/trainer:1",
                        "resources": {"requests": POD_REQUESTS, "limits": {GPU: "1"}},
                    }
                ],
            },
        }
        for i in range(gang.pods)
    ]


class Contender(Protocol):
    """A scheduler measured on the stream."""

    name: str

    def start(self, plane: ControlPlane, binaries: Binaries) -> None: ...

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        """The pod as written for this scheduler."""
        ...

    def placed(self, pod: Mapping[str, Any]) -> bool:
        """Whether the scheduler has placed the pod (from a watch event's object)."""
        ...

    def stop(self) -> None: ...


class KubeSchedulerContender:
    name = "kube-scheduler"

    def __init__(self) -> None:
        self._scheduler: KubeScheduler | None = None

    def start(self, plane: ControlPlane, binaries: Binaries) -> None:
        self._scheduler = start_kube_scheduler(plane, binaries)

    def pod(self, pod: dict[str, Any]) -> dict[str, Any]:
        return pod

    def placed(self, pod: Mapping[str, Any]) -> bool:
        return bool(pod.get("spec", {}).get("nodeName"))

    def stop(self) -> None:
        if self._scheduler is not None:
            self._scheduler.stop()


@dataclass
class Measured:
    name: str
    pods: int
    gangs: int
    seconds: float  # from the first PodGroup written to the last pod placed
    latencies: list[float] = field(default_factory=list)  # per gang: complete -> last pod placed
    unplaced: int = 0  # gangs not placed within the timeout
    relists: int = 0  # times the watch on the pods had to list them again (410 Gone)

    def quantile(self, q: float) -> float:
        found = sorted(self.latencies)
        return found[min(len(found) - 1, int(q * len(found)))] if found else math.nan


def write_all(plane: ControlPlane, calls: Sequence[Callable[[AdminApi], None]]) -> None:
    """Runs the writes on ``WRITERS`` threads, each with its own connection."""
    local = threading.local()
    apis: list[AdminApi] = []

    def run(call: Callable[[AdminApi], None]) -> None:
        if not hasattr(local, "api"):
            local.api = AdminApi(plane)
            apis.append(local.api)
        call(local.api)

    try:
        with ThreadPoolExecutor(WRITERS) as pool:
            list(pool.map(run, calls))
    finally:
        for api in apis:
            api.close()


class Bindings:
    """A watch on the stream's pods, noting when each is first placed.

    A watch ends when the server closes it (its timeout, or a watcher that falls behind the
    watch cache's buffer, which tens of thousands of pod events at once can make it) or answers
    410 Gone: it is opened again from the last version seen, after a listing when 410 says that
    version is gone (the pods found placed by that listing are noted at the listing's time:
    ``relists`` says how often that happened)."""

    def __init__(
        self,
        connect: Callable[[], AdminApi],
        contender: Contender,
        since: str,
        *,
        namespace: str = NAMESPACE,
        watch_seconds: int = 600,
    ) -> None:
        self.placed: dict[str, float] = {}
        self.relists = 0
        self.watches = 0  # watch requests made (each ends when the server closes it)
        self._connect, self._contender, self._version = connect, contender, since
        self._namespace, self._watch_seconds = namespace, watch_seconds
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._watch, daemon=True)
        self._thread.start()

    def _watch(self) -> None:
        api = self._connect()
        try:
            while not self._stop.is_set():
                try:
                    self._watch_once(api)
                except (httpx.HTTPError, json.JSONDecodeError):
                    time.sleep(0.2)  # the connection broke: open it again from the last version
        finally:
            api.close()

    def _watch_once(self, api: AdminApi) -> None:
        params = {
            "watch": "true",
            "resourceVersion": self._version,
            "allowWatchBookmarks": "true",
            "timeoutSeconds": str(self._watch_seconds),
        }
        path = f"/api/v1/namespaces/{self._namespace}/pods"
        self.watches += 1
        with api.stream("GET", path, params) as r:
            if r.status_code == 410:
                self._relist(api)
                return
            for line in r.iter_lines():
                if self._stop.is_set():
                    return
                if not line:
                    continue
                event = json.loads(line)
                obj = event.get("object") or {}
                if event.get("type") == "ERROR":
                    if obj.get("code") == 410:
                        self._relist(api)
                    return
                self._version = obj.get("metadata", {}).get("resourceVersion") or self._version
                if event.get("type") != "BOOKMARK":
                    self._note(obj, time.monotonic())

    def _relist(self, api: AdminApi) -> None:
        self.relists += 1
        listing = api.call("GET", f"/api/v1/namespaces/{self._namespace}/pods")
        now = time.monotonic()
        for pod in listing.get("items") or ():
            self._note(pod, now)
        self._version = listing["metadata"]["resourceVersion"]

    def _note(self, pod: Mapping[str, Any], when: float) -> None:
        name = pod.get("metadata", {}).get("name", "")
        if name and name not in self.placed and self._contender.placed(pod):
            self.placed[name] = when

    def stop(self) -> None:
        self._stop.set()


def measure(
    plane: ControlPlane,
    binaries: Binaries,
    contender: Contender,
    nodes: Sequence[NodeSpec],
    gangs: Sequence[StreamGang],
    *,
    timeout: float,
    idle: float = 120.0,
) -> Measured:
    """The stream through ``contender`` on ``plane`` (fresh: nothing else on it). It ends when
    every pod is placed, ``timeout`` seconds after the first PodGroup, or once no pod has been
    placed for ``idle`` seconds: a gang the cluster cannot take (its racks fragmented by the
    gangs before it) stays pending, and counts as not placed."""
    api = AdminApi(plane)
    try:
        api.create("/api/v1/namespaces", {"metadata": {"name": NAMESPACE}})
        api.create(f"/api/v1/namespaces/{NAMESPACE}/serviceaccounts", {"metadata": {"name": "default"}})
        write_all(plane, [partial(AdminApi.add_node, node=n) for n in nodes])
        contender.start(plane, binaries)
        since = api.call("GET", f"/api/v1/namespaces/{NAMESPACE}/pods", params={"limit": "1"})["metadata"][
            "resourceVersion"
        ]
        watch = Bindings(partial(AdminApi, plane), contender, since)
        pods = [contender.pod(p) for g in gangs for p in pods_of(g)]
        write_all(plane, [lambda a, p=p: a.create(f"/api/v1/namespaces/{NAMESPACE}/pods", p) for p in pods])
        complete: dict[str, float] = {}
        start = time.monotonic()
        for gang in gangs:
            api.create(f"/apis/scheduling.k8s.io/v1beta1/namespaces/{NAMESPACE}/podgroups", podgroup(gang))
            complete[gang.name] = time.monotonic()
        wanted = sum(g.pods for g in gangs)
        deadline = start + timeout
        seen, moved = 0, time.monotonic()
        while len(watch.placed) < wanted and time.monotonic() < deadline:
            time.sleep(0.2)
            if len(watch.placed) > seen:
                seen, moved = len(watch.placed), time.monotonic()
            elif time.monotonic() - moved > idle:
                break
        watch.stop()
        result = Measured(contender.name, 0, 0, 0.0, relists=watch.relists)
        last = start
        for gang in gangs:
            times = [watch.placed.get(f"{gang.name}-{i}") for i in range(gang.pods)]
            if any(t is None for t in times):
                result.unplaced += 1
                continue
            done = max(t for t in times if t is not None)
            last = max(last, done)
            result.latencies.append(done - complete[gang.name])
            result.pods += gang.pods
            result.gangs += 1
        result.seconds = last - start
        return result
    finally:
        contender.stop()
        api.close()
