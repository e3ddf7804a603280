"""A front end with pods of its own joins the controller through the registry alone: registered
with its membership rules (how a pod names its gang, when the gang is whole) beside its compile
entry, its gangs are grouped, placed and ungated by the ungater, whose modules know no front end.

The front end here exists only in this test: "crews" of pods labelled ``example.com/crew``, whole
once as many pods exist as their ``example.com/crew-size`` annotation says, each crew in one rack.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.controller.cluster import HOST, RACK, cluster, pod, trainer
from tests.controller.fake_kube import FakeKubeApi

from toposched.controller.keys import GATE, is_gated
from toposched.controller.kubeapi import PODS
from toposched.controller.ungater_controller import UngaterController
from toposched.frontends.membership import (
    Completion,
    GangKey,
    GroupCaches,
    Object,
    metadata_of,
    name_of,
    namespace_of,
)
from toposched.frontends.registry import CompileContext, Compiled, Documents, default_registry
from toposched.model import Gang, Group, PodSpec, Resources
from toposched.scheduler import ManualClock, Scheduler
from toposched.store import MemoryStore
from toposched.wire.core import pod_object

CREW, SIZE = "example.com/crew", "example.com/crew-size"


@dataclass(frozen=True)
class Crews:
    """The membership rules: the label names the gang, the annotation its size."""

    frontend: str = "crews"
    keys: frozenset[str] = frozenset({"crew"})

    def over(self, caches: GroupCaches) -> Crews:
        return self

    def gang_of(self, pod: Object) -> GangKey | None:
        name = metadata_of(pod, "labels").get(CREW)
        return GangKey("crew", namespace_of(pod), str(name)) if name else None

    def complete(self, key: GangKey, pods: Sequence[Object]) -> Completion:
        size = int(metadata_of(pods[0], "annotations")[SIZE])
        return Completion(missing=None if len(pods) >= size else f"{len(pods)} of {size} pods exist")


@dataclass(frozen=True)
class CrewFrontend:
    """The compile entry: a crew's pods, each asking for 8 GPUs, required in one rack."""

    name: str = "crews"
    kinds: frozenset[str] = frozenset({"Pod"})
    input_names_topology: bool = False
    membership: Crews = field(default_factory=Crews)

    def recognises(self, documents: Documents) -> bool:
        return any(CREW in metadata_of(d, "labels") for d in documents)

    def compile(self, documents: Documents, context: CompileContext) -> Compiled:
        gpus = Resources.parse({"nvidia.com/gpu": "8"})
        pods = tuple(PodSpec(name_of(d), i, gpus) for i, d in enumerate(documents))
        crew = str(metadata_of(documents[0], "labels")[CREW])
        topology = context.topology.name if context.topology is not None else None
        root = Group(crew, required=RACK, pods=pods, topology=topology)
        return Compiled(self.name, Gang(crew, root, namespace="default", topology=topology))


def crew_pod(name: str, crew: str = "c", size: int = 3) -> dict[str, Any]:
    return pod_object(
        name,
        "default",
        labels={CREW: crew},
        annotations={SIZE: str(size)},
        spec={"schedulingGates": [{"name": GATE}], "containers": [trainer(8)]},
        phase="Pending",
    )


def crew_controller(api: FakeKubeApi) -> UngaterController:
    registry = default_registry()
    registry.register(CrewFrontend(), first=True)  # the one line a new front end adds
    clock = ManualClock(1000.0)
    scheduler = Scheduler(MemoryStore(history=False), clock, registry=registry)
    return UngaterController(api, scheduler, clock, topology="default")


def test_a_front_end_registered_with_its_membership_is_grouped_and_ungated_by_the_controller() -> None:
    api = cluster()
    for name in ("a0", "a1"):
        api.put(PODS, crew_pod(name))
    ctl = crew_controller(api)
    for _ in range(2):
        ctl.step()
    assert all(is_gated(pod(api, n)) for n in ("a0", "a1"))  # 2 of 3 pods: not whole yet
    api.put(PODS, crew_pod("a2"))
    for _ in range(3):
        ctl.step()
    pods = [pod(api, n) for n in ("a0", "a1", "a2")]
    assert not any(is_gated(p) for p in pods)
    nodes = {p["spec"]["nodeSelector"][HOST] for p in pods}  # n0-n2 are rack r0, n3-n5 rack r1
    assert len(nodes) == 3 and len({int(n[1:]) // 3 for n in nodes}) == 1  # its front end's rule: one rack


def test_pods_of_a_front_end_not_registered_are_left_alone() -> None:
    api = cluster()
    for name in ("a0", "a1", "a2"):
        api.put(PODS, crew_pod(name))
    registry = default_registry()
    clock = ManualClock(1000.0)
    ctl = UngaterController(api, Scheduler(MemoryStore(history=False), clock, registry=registry), clock)
    for _ in range(3):
        ctl.step()
    assert all(is_gated(pod(api, n)) for n in ("a0", "a1", "a2"))
