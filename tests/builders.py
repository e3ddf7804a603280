"""Fluent builders for test inputs.

    node("h1").at(block="b1", rack="r1").alloc(cpu="4", gpu="8").build()
    podset("main", 4).requests(cpu="1").required(RACK).slices((HOST, 2)).build()
    gang(podset("a", 2).build(), group("lws", leader, workers, required=RACK))

Short level names (``block``, ``rack``, ``host``) map to the label keys below; ``gpu`` means
``example.com/gpu``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from hypothesis import strategies as st

from toposched.model import (
    HOSTNAME,
    Gang,
    Group,
    Node,
    PodSpec,
    Resources,
    Role,
    RunningPod,
    Semantics,
    SliceLayer,
    Taint,
    TaintEffect,
    Toleration,
    TolerationOperator,
    Topology,
)

ZONE = "example.com/zone"
BLOCK = "example.com/block"
RACK = "example.com/rack"
HOST = HOSTNAME
GPU = "example.com/gpu"
SHORT = {"zone": ZONE, "block": BLOCK, "rack": RACK, "host": HOST, "hostname": HOST}


def _resources(amounts: Mapping[str, str | int]) -> Resources:
    return Resources.parse({GPU if k == "gpu" else k: v for k, v in amounts.items()})


def topology(*levels: str, name: str = "default") -> Topology:
    """A topology from short level names or label keys, coarsest first."""
    return Topology.create(name, [SHORT.get(level, level) for level in levels])


class NodeBuilder:
    def __init__(self, name: str) -> None:
        self._name = name
        self._labels: dict[str, str] = {}
        self._alloc: dict[str, str | int] = {"pods": 110}
        self._taints: list[Taint] = []
        self._ready = True
        self._cordoned = False

    def at(self, **levels: str) -> NodeBuilder:
        """Topology labels by short level name; the hostname label defaults to the node name."""
        for level, value in levels.items():
            self._labels[SHORT[level]] = value
        self._labels.setdefault(HOST, self._name)
        return self

    def labels(self, labels: Mapping[str, str] | None = None, **more: str) -> NodeBuilder:
        self._labels.update(labels or {})
        self._labels.update(more)
        return self

    def alloc(self, **amounts: str | int) -> NodeBuilder:
        self._alloc.update(amounts)
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> NodeBuilder:
        self._taints.append(Taint(key, value, TaintEffect(effect)))
        return self

    def not_ready(self) -> NodeBuilder:
        self._ready = False
        return self

    def cordoned(self) -> NodeBuilder:
        self._cordoned = True
        return self

    def build(self) -> Node:
        return Node.create(
            self._name,
            self._labels,
            _resources(self._alloc),
            tuple(self._taints),
            ready=self._ready,
            unschedulable=self._cordoned,
        )


def node(name: str) -> NodeBuilder:
    return NodeBuilder(name)


def running(name: str, on: str, **requests: str | int) -> RunningPod:
    """A pod of another workload, bound to node ``on``."""
    return RunningPod(name, "other", on, _resources(requests))


def hosts(capacities: Sequence[int], *, resource: str = "gpu", **levels: str) -> list[Node]:
    """One node per capacity, named ``x1, x2, ...``, each with that much of ``resource``."""
    return [
        node(f"x{i}").at(**levels).alloc(**{resource: cap}).build()
        for i, cap in enumerate(capacities, start=1)
    ]


class PodSetBuilder:
    def __init__(self, name: str, count: int) -> None:
        self._name = name
        self._count = count
        self._requests: dict[str, str | int] = {}
        self._required: str | None = None
        self._preferred: str | None = None
        self._slices: list[SliceLayer] = []
        self._tolerations: list[Toleration] = []
        self._selector: dict[str, str] = {}

    def requests(self, **amounts: str | int) -> PodSetBuilder:
        self._requests.update(amounts)
        return self

    def required(self, level: str) -> PodSetBuilder:
        self._required = SHORT.get(level, level)
        return self

    def preferred(self, level: str) -> PodSetBuilder:
        self._preferred = SHORT.get(level, level)
        return self

    def slices(self, *layers: tuple[str, int]) -> PodSetBuilder:
        self._slices += [SliceLayer(SHORT.get(level, level), size) for level, size in layers]
        return self

    def tolerates(self, key: str, value: str | None = None) -> PodSetBuilder:
        operator = TolerationOperator.EXISTS if value is None else TolerationOperator.EQUAL
        self._tolerations.append(Toleration(key, operator, value or ""))
        return self

    def selector(self, **labels: str) -> PodSetBuilder:
        self._selector.update(labels)
        return self

    def build(self) -> Group:
        requests = _resources(self._requests)
        pods = tuple(
            PodSpec(f"{self._name}-{i}", i, requests, tuple(self._tolerations), dict(self._selector))
            for i in range(self._count)
        )
        return Group(self._name, self._required, self._preferred, tuple(self._slices), pods=pods)


def podset(name: str, count: int) -> PodSetBuilder:
    return PodSetBuilder(name, count)


def group(name: str, *members: Group, required: str | None = None, preferred: str | None = None) -> Group:
    """A PodSet group: leader and workers (in that order) co-located in one domain of the group's
    level. A single member is just the PodSet under the group's level."""
    if len(members) == 2:
        members = (replace(members[0], role=Role.LEADER), replace(members[1], role=Role.WORKERS))
    return Group(
        name,
        required=None if required is None else SHORT.get(required, required),
        preferred=None if preferred is None else SHORT.get(preferred, preferred),
        children=members,
    )


def gang(*children: Group, name: str = "job") -> Gang:
    return Gang(name, Group("workload", children=children))


def podgroup(spec: dict[str, Any]) -> dict[str, Any]:
    """A KAI PodGroup object named ``pg`` with ``spec``."""
    return {
        "apiVersion": "scheduling.run.ai/v2alpha2",
        "kind": "PodGroup",
        "metadata": {"name": "pg"},
        "spec": spec,
    }


def pod_group(
    name: str,
    count: int,
    *,
    required: str | None = None,
    min_count: int = 1,
    gpu: int | Sequence[int] = 1,
    bound: Mapping[int, str] | None = None,
    selector: Mapping[str, str] | None = None,
    cpu: int | Sequence[int] | None = None,
) -> Group:
    """A kube-scheduler PodGroup: ``count`` pods of ``gpu`` GPUs each (or one amount per pod;
    ``cpu`` instead: CPUs, the resource kube-scheduler's scores read), ``min_count`` of them
    needed (1: basic policy), ``required`` the constraint's label key; ``bound`` pods (by
    index) already run on a node."""
    resource, amount = ("gpu", gpu) if cpu is None else ("cpu", cpu)
    amounts = [amount] * count if isinstance(amount, int) else list(amount)
    pods = tuple(
        PodSpec(
            f"{name}-{i}",
            i,
            _resources({resource: amounts[i]}),
            node_selector=dict(selector or {}),
            node=(bound or {}).get(i),
        )
        for i in range(count)
    )
    key = None if required is None else SHORT.get(required, required)
    return Group(name, required=key, min_member=min_count, pods=pods)


def composite(
    name: str, *children: Group, required: str | None = None, min_groups: int | None = None
) -> Group:
    """A kube-scheduler CompositePodGroup: ``min_groups`` children needed (None: basic, one)."""
    key = None if required is None else SHORT.get(required, required)
    return Group(name, required=key, min_sub_group=min_groups, children=children)


def kube_gang(*units: Group, name: str = "job") -> Gang:
    """A Workload's PodGroups and CompositePodGroups, placed as kube-scheduler places them."""
    return Gang(name, Group("workload", children=units), kind="Workload", semantics=Semantics.KUBE)


def zones_of_racks(draw: st.DrawFn) -> tuple[list[Node], list[RunningPod]]:
    """For hypothesis: 1-2 zones of 1-3 racks (named r0, r1, ... in every zone) of 1-3 nodes
    with 0-4 CPUs each; about a quarter of the nodes run another job's 1-CPU pod."""
    nodes: list[Node] = []
    others: list[RunningPod] = []
    for z in range(draw(st.integers(1, 2))):
        for r in range(draw(st.integers(1, 3))):
            for n in range(draw(st.integers(1, 3))):
                name = f"n-{z}-{r}-{n}"
                nodes.append(
                    node(name).at(zone=f"z{z}", rack=f"r{r}").alloc(cpu=draw(st.integers(0, 4))).build()
                )
                if draw(st.integers(0, 3)) == 0:
                    others.append(running(f"used-{name}", name, cpu=1))
    return nodes, others
