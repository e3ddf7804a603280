"""One intent, every scheduler's objects: every example and conformance placement case is compiled
to every target of ``toposched.emit.targets.TARGETS``; where the target expresses the whole gang
(no ``unexpressed`` sentence), the objects are read back through the target's own front end (the
registry, with the topology the translation brings) and placed on the same cluster.

Same placement means: the same nodes for the pods taken in the gang's order (leaves as the tree
lists them, pods in index order), because a target renames pods (a Kueue Job's pods are
``<job>-<index>``, Grove's ``<set>-<replica>-<clique>-<index>``). Both gangs are placed with the
original's domain-ordering policy, and by the group-tree rules when the two front ends' rules
differ (``shared_semantics``), so what is compared is the constraints the objects carry. A gang
that does not fit must not fit after the round trip either, and a gang the engine refuses as
invalid must be refused by the target's front end."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema  # type: ignore[import-untyped]  # no stubs among the test dependencies
import pytest
import yaml
from tests.emit.inputs import EXAMPLE_TABLE, examples, inputs, own_objects
from tests.emit.kube.schemas import check as check_kube_schema

from toposched.emit.targets import QUEUED, TARGETS
from toposched.engine import place
from toposched.frontends.kai import validate_podgroup
from toposched.frontends.registry import CompileContext, default_registry
from toposched.intake.cluster import topologies_from_documents
from toposched.model import (
    Cluster,
    Gang,
    Node,
    Placement,
    Policy,
    Queue,
    Semantics,
    SpecError,
    Topology,
    Translation,
    Unschedulable,
)
from toposched.model.node import level_value

TOPOLOGY_KINDS = {"Topology", "ClusterTopology"}


@cache
def translation(target: str, index: int) -> Translation:
    source = inputs()[index]
    return TARGETS[target](source.gang, source.topology)


def _params() -> list[Any]:
    return [
        pytest.param(target, index, id=f"{target}-{source.id}")
        for target in TARGETS
        for index, source in enumerate(inputs())
    ]


def read_back(
    target: str, objects: Sequence[Mapping[str, Any]], cluster_topology: Topology
) -> tuple[Topology, Gang, tuple[Topology, ...]]:
    """The translation's objects through the registry, as a user would apply them: the topology
    objects registered, the workload objects compiled by the front end the registry picks. A
    target without topology objects (kube-scheduler reads raw node labels) uses the cluster's.
    Also the topologies the read-back input brings (kube's: one per constraint key)."""
    brought = topologies_from_documents([o for o in objects if o["kind"] in TOPOLOGY_KINDS])
    (topology,) = brought or (cluster_topology,)
    workload = [dict(o) for o in objects if o["kind"] not in TOPOLOGY_KINDS]
    context = CompileContext(topologies=(topology,))
    chosen, compiled = default_registry().compile_for(workload, context, default=topology.name)
    assert compiled.frontend == target, f"read back by {compiled.frontend}, not {target}"
    return chosen, compiled.gang, compiled.topologies


def nodes_in_order(gang: Gang, result: Placement | Unschedulable) -> list[str | None] | None:
    """The node of each pod in the gang's order; None when the gang does not fit."""
    if isinstance(result, Unschedulable):
        return None
    node_of = {p.pod: p.node for p in result.pods}
    return [node_of.get(pod.name, pod.node) for pod in gang.root.all_pods()]


def placed(
    gang: Gang, cluster: Cluster, topology: Topology, policy: Policy | None, brought: Sequence[Topology] = ()
) -> list[str | None] | None:
    for other in (topology, *brought):
        cluster = cluster.with_topology(other)
    return nodes_in_order(gang, place(gang, cluster, topology=topology, policy=policy))


@pytest.mark.parametrize(("target", "index"), _params())
def test_round_trip_places_the_same(target: str, index: int) -> None:
    source = inputs()[index]
    result = translation(target, index)
    if result.unexpressed:
        pytest.skip(f"{target} cannot express: {'; '.join(result.unexpressed)}")
    if target == "kube" and not read_alike(source.cluster.nodes, source.topology):
        pytest.skip("kube-scheduler reads a constraint's label alone, not its path in the topology")
    policy = source.policy or source.gang.policy or Policy.MIXED  # the engine's default
    own = placed(source.gang, source.cluster, source.topology, policy)
    try:
        topology, gang, brought = read_back(target, result.objects, source.topology)
    except SpecError as refused:
        # A gang the engine refuses as invalid (a slice of size 0, a PodSet group without a
        # level) is written as it is, and the target's front end refuses it too.
        assert own is None, f"the original places, the target refuses: {refused}"
        return
    if target == "kube":  # kube-scheduler's keys are node labels: the input brings its topologies
        assert topology.name == "kube.all-nodes"
    else:
        assert topology.levels == source.topology.levels
    assert gang.size == source.gang.size
    semantics = shared_semantics(source.gang, gang)
    original = placed(replace(source.gang, semantics=semantics), source.cluster, source.topology, policy)
    again = placed(replace(gang, semantics=semantics), source.cluster, topology, policy, brought)
    if target == "kube":
        # Each key is a topology of its own there, so equal domains are ordered by the key's
        # value alone: the nodes may differ, whether the gang fits may not.
        assert (again is None) == (original is None)
        return
    assert again == original


def read_alike(nodes: Sequence[Node], topology: Topology) -> bool:
    """Whether a level's label alone names the same domains as its path: every node carries
    every level, and no value repeats under two parents (kube-scheduler, reading the label
    alone, takes a rack r2 under two blocks as one placement and a node without the upper
    levels as one of them)."""
    paths: dict[tuple[int, str], set[tuple[str | None, ...]]] = {}
    for node in nodes:
        values = [level_value(node, key) for key in topology.levels]
        if None in values:
            return False
        for depth, value in enumerate(values):
            paths.setdefault((depth, str(value)), set()).add(tuple(values[:depth]))
    return all(len(parents) == 1 for parents in paths.values())


def shared_semantics(original: Gang, back: Gang) -> Semantics:
    """The rules both gangs are placed by: their own when they agree, else the group-tree rules
    every scheduler's objects carry (Kueue's PodSet order and leader rule are Kueue's, not a
    constraint another scheduler's objects can hold)."""
    return original.semantics if original.semantics is back.semantics else Semantics.HIERARCHY


def expressed(target: str) -> list[str]:
    return [s.id for i, s in enumerate(inputs()) if not translation(target, i).unexpressed]


def test_every_target_expresses_a_fair_share_of_the_inputs() -> None:
    for target in TARGETS:
        count = len(expressed(target))
        print(f"{target}: expresses {count} of {len(inputs())} inputs fully")
        assert count >= 10, target


SCHEMAS = Path(__file__).resolve().parents[2].parent / "shared" / "schemas"
SCHEMA_OF = {
    ("kai.scheduler/v1alpha1", "Topology"): "kai/kai.scheduler_topologies.yaml",
    ("scheduling.run.ai/v2alpha2", "PodGroup"): "kai/scheduling.run.ai_podgroups.yaml",
    ("kueue.x-k8s.io/v1beta2", "Topology"): "kai/legacy-kueue.x-k8s.io_topologies.yaml",
    ("grove.io/v1alpha1", "ClusterTopology"): "grove/clustertopologies.grove.io.multi-topology.yaml",
    ("grove.io/v1alpha1", "PodCliqueSet"): "grove/podcliquesets.grove.io.head.yaml",
}


@cache
def crd_validator(file: str) -> Any:
    """A validator for the openAPIV3Schema of the served version of a CRD file, built once: the
    Grove schemas are large, and checking the schema itself on every call would dominate."""
    path = SCHEMAS / file
    if not path.is_file():
        pytest.skip(f"no {path}")
    crd = yaml.safe_load(path.read_text(encoding="utf-8"))
    version = next(v for v in crd["spec"]["versions"] if v.get("served"))
    schema = dict(version["schema"]["openAPIV3Schema"])
    return jsonschema.validators.validator_for(schema)(schema)


@pytest.mark.parametrize(("target", "index"), _params())
def test_objects_match_the_schemas(target: str, index: int) -> None:
    """Every object with a CRD schema validates against it, expressed in full or not; KAI's
    webhook admits the PodGroup."""
    checked = 0
    for obj in translation(target, index).objects:
        file = SCHEMA_OF.get((obj["apiVersion"], obj["kind"]))
        if file is not None:
            crd_validator(file).validate(dict(obj))
            checked += 1
        elif obj["apiVersion"].startswith("scheduling.k8s.io/"):
            check_kube_schema(obj)  # the project's schemas: the shared ones have no kube kinds
            checked += 1
        if obj["apiVersion"].startswith("scheduling.run.ai/") and obj["kind"] == "PodGroup":
            verdict = validate_podgroup(obj)
            assert verdict.accepted, verdict.message
    assert checked >= 1  # a topology or a Workload at least (Pods, Jobs, JobSets have no schema here)


@pytest.mark.parametrize("target", sorted(QUEUED))
@pytest.mark.parametrize("name", ["team-a", None])
def test_the_queue_comes_back(target: str, name: str | None) -> None:
    """A queue written by a target is the queue its front end reads back, and no queue stays none
    (KAI's fallback default-queue included)."""
    queue = Queue(name, QUEUED[target]) if name is not None else None
    checked = 0
    for source in examples():
        queued = replace(source.gang, queue=queue)
        try:
            _, gang, _ = read_back(target, TARGETS[target](queued, source.topology).objects, source.topology)
        except SpecError:
            continue  # refused as the original is (see test_round_trip_places_the_same)
        assert gang.queue == queue, source.id
        checked += 1
    assert checked > 0


def _empty_metadata(obj: object, path: str = "") -> list[str]:
    """Paths of ``labels: {}`` and ``annotations: {}`` anywhere in an object."""
    found: list[str] = []
    if isinstance(obj, Mapping):
        for key, value in obj.items():
            where = f"{path}.{key}"
            if key in ("labels", "annotations") and value == {}:
                found.append(where)
            found += _empty_metadata(value, where)
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            found += _empty_metadata(value, f"{path}[{i}]")
    return found


@pytest.mark.parametrize(("target", "index"), _params())
def test_no_empty_labels_or_annotations(target: str, index: int) -> None:
    """Nothing written is written as an empty map: no ``annotations: {}`` noise."""
    for obj in translation(target, index).objects:
        assert _empty_metadata(obj) == [], f"{obj['kind']} {obj['metadata'].get('name')}"


def test_no_empty_labels_or_annotations_in_a_front_end_s_own_objects() -> None:
    """``toposched compile`` without ``--to``: what each example's own controller would create."""
    checked = 0
    for example in EXAMPLE_TABLE:
        for obj in own_objects(example):
            assert _empty_metadata(obj) == [], f"{example.workload}: {obj['kind']}"
            checked += 1
    assert checked > len(EXAMPLE_TABLE)
