"""Every object toposched writes, written to the real API server the way toposched writes it and
then once more: the server accepts each (schema, validation, admission), and the second write
changes nothing (``tests.realkube.writes``).

* ``toposched compile`` of every example (``examples/``): the input's own objects and, with
  ``--to kai|kueue|grove|kube`` and each ``--api-version`` of kube, another scheduler's;
* every target's objects for every conformance placement case's gang (``toposched.emit.targets``,
  what ``compile --to`` runs);
* what is written on a placement of every example and case: a Kueue Workload's admission with
  its TopologyAssignments (``workload_status_patch`` in v1beta2, over the admission Kueue wrote;
  see ``KUEUE_STORED`` for v1beta1), the ungater's patch of each gated pod
  (``node_selector_patches``, a strategic merge patch as the controller sends it) and
  kube-scheduler's conditions on each PodGroup (``status_objects``). toposched writes no KAI
  PodGroup status: KAI's scheduler owns it.

Objects are applied server-side as field manager ``toposched``, on a control plane of this
module's own (thousands of objects stay there until it stops; no other test sees them). Each
source writes in a namespace of its own; cluster-scoped topologies of one name are written one
after the other, deleted in between (their levels are immutable). An object equal to one written
already (but for its namespace) is written once. An object of an API version the server does not
serve (``scheduling.k8s.io/v1alpha2`` left kube-apiserver in 1.37) is skipped, the reason printed."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from itertools import groupby
from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.emit.inputs import EXAMPLE_TABLE, EXAMPLES, Input, inputs
from tests.realkube.control_plane import ControlPlane
from tests.realkube.fixture import control_plane_for_tests
from tests.realkube.writes import Write, Writer
from typer.testing import CliRunner

from toposched.cli.main import app
from toposched.controller.keys import GATE
from toposched.emit.kube import compile_to_kube, status_objects
from toposched.emit.kueue import node_selector_patches, workload_status_patch
from toposched.emit.targets import TARGETS, VERSIONED
from toposched.engine import place
from toposched.model import Placement, PodSpec, Policy, Semantics, ToposchedError, Unschedulable
from toposched.model.names import object_name
from toposched.wire.core import pod_object, pod_spec_object
from toposched.wire.scheduling import DEFAULT_API_VERSION, SERVED

# The Workload version Kueue stores. Its v1beta1 is served through Kueue's conversion webhook,
# which does not run here: v1beta1 written to this server is converted by apiVersion alone and
# loses its TopologyAssignment domains (tests/emit checks that encoding against the schema).
KUEUE_STORED = "v1beta2"
ATTEMPT = 1_780_000_000.0  # when the placements are said to have been made (condition times)
OTHER_KUBE_VERSIONS = tuple(v for v in SERVED if v != DEFAULT_API_VERSION)
# What a target writes: KAI's and Kueue's Topology, KAI's and scheduling.k8s.io's PodGroup...
EVERY_KIND = {
    "Topology",
    "PodGroup",
    "Pod",
    "Job",
    "JobSet",
    "ClusterTopology",
    "PodCliqueSet",
    "Workload",
    "CompositePodGroup",
}
# Files under examples/ that are not workloads: clusters, pools, topologies, the simulator's.
# A cluster, a relaxed cluster, the simulator's settings and the service's scheduling queues.
NOT_WORKLOADS = {
    "clusters/h100-small.yaml",
    "osmo/4-best-effort.relaxed.cluster.yaml",
    "sim/config.yaml",
    "queues.yaml",
}


@pytest.fixture(scope="module")
def real_apiserver() -> Iterator[ControlPlane]:
    """This module's own control plane (in place of the session's; a test asking for it still gets
    the ``real_apiserver`` marker), stopped when the module is done."""
    yield from control_plane_for_tests()


@dataclass(frozen=True)
class Emitted:
    """What one source wrote: ``objects``, or nothing and why (``skipped``). ``pods`` are the
    input's pods by name, for the Pods an object only labels (see ``pod_fragment``)."""

    source: str
    objects: tuple[Mapping[str, Any], ...] = ()
    skipped: str = ""
    pods: Mapping[str, PodSpec] = field(default_factory=dict)


def test_every_example_workload_is_compiled_here() -> None:
    """The examples the tests compile are every workload under examples/ (a new one is added here)."""
    used = {e.workload for e in EXAMPLE_TABLE} | {e.cluster for e in EXAMPLE_TABLE}
    used |= {f for e in EXAMPLE_TABLE for f in (e.pool, e.topology) if f is not None}
    files = {str(p.relative_to(EXAMPLES)) for p in EXAMPLES.rglob("*.yaml")}
    assert files - used == NOT_WORKLOADS


@pytest.mark.slow  # tens of seconds: thousands of writes
def test_compile_of_every_example_is_accepted(real_apiserver: ControlPlane) -> None:
    emitted = [
        Emitted(
            f"{example.id} {' '.join(variant) or '(own objects)'}",
            compiled([*example.cli_options(), *variant]),
            pods={pod.name: pod for pod in source.gang.root.all_pods()},
        )
        for example, source in zip(EXAMPLE_TABLE, inputs(), strict=False)
        for variant in compile_variants()
    ]
    writes = write_and_check(real_apiserver, emitted, "ex")
    # Every kind toposched writes was written, so the test cannot pass by writing nothing.
    assert {w.kind for w in writes} == {*EVERY_KIND, "PodGang"}


@pytest.mark.slow  # tens of seconds: thousands of writes
def test_every_target_writes_every_conformance_case_acceptably(real_apiserver: ControlPlane) -> None:
    cases = inputs()[len(EXAMPLE_TABLE) :]
    emitted = [translated(case, target) for case in cases for target in (*TARGETS, *OTHER_KUBE_VERSIONS)]
    writes = write_and_check(real_apiserver, emitted, "cc")
    assert all(e.objects or e.skipped for e in emitted)
    assert {w.kind for w in writes} == EVERY_KIND


@pytest.mark.slow  # tens of seconds: thousands of writes
def test_what_is_written_on_a_placement_is_accepted(real_apiserver: ControlPlane) -> None:
    writer = Writer(real_apiserver)
    try:
        jobs = [placement_writes(writer, source, f"pl{i}") for i, source in enumerate(inputs())]
        writes = writer.run(jobs)
        report(writes, [])
    finally:
        writer.close()
    kinds = {w.kind for w in writes}
    assert kinds == {"Workload", "Pod", "PodGroup"}, kinds


# -- what is written -----------------------------------------------------------------------------


def compile_variants() -> Iterator[tuple[str, ...]]:
    yield ()  # the input's own objects
    for target in TARGETS:
        yield ("--to", target)
    for version in OTHER_KUBE_VERSIONS:
        yield ("--to", "kube", "--api-version", version)


def compiled(args: Sequence[str | Path]) -> tuple[dict[str, Any], ...]:
    """The Kubernetes objects ``toposched compile`` prints: its documents, and the objects inside
    an OSMO group's document (``podGroups``, ``topology``, and ``pods``: what OSMO sets on each
    task's pod)."""
    result = CliRunner().invoke(app, ["compile", *map(str, args)])
    assert result.exit_code == 0, result.stderr
    return tuple(
        obj for document in yaml.safe_load_all(result.stdout) for obj in kubernetes_objects(document)
    )


def kubernetes_objects(document: object) -> Iterator[dict[str, Any]]:
    if not isinstance(document, dict):
        return
    if "apiVersion" in document and "kind" in document:
        yield document
        return
    for key, value in document.items():
        if key == "pods" and isinstance(value, dict):
            yield from ({"apiVersion": "v1", "kind": "Pod", **pod} for pod in value.values())
        else:
            yield from kubernetes_objects(value)


def translated(source: Input, target: str) -> Emitted:
    """``target``'s objects for the case (a kube API version names the kube target in it)."""
    name = f"{source.id} --to {target}"
    compiler = TARGETS[target] if target in TARGETS else VERSIONED["kube"](target)
    try:
        return Emitted(name, compiler(source.gang, source.topology).objects)
    except ToposchedError as exc:  # the target cannot write this gang at all
        return Emitted(name, skipped=str(exc))


def placement_writes(writer: Writer, source: Input, namespace: str) -> Callable[[], list[Write]]:
    """The writes on a placement of ``source``, in namespaces ``namespace``-*."""
    policy = source.policy or source.gang.policy or Policy.MIXED
    result = place(
        source.gang, source.cluster.with_topology(source.topology), topology=source.topology, policy=policy
    )

    def write() -> list[Write]:
        writer.ensure_namespace(namespace)
        writes = kube_conditions(writer, source, result, DEFAULT_API_VERSION, namespace)
        for version in OTHER_KUBE_VERSIONS:  # the same PodGroups in another version: a namespace apart
            writes += kube_conditions(
                writer, source, result, version, f"{namespace}-{version.rsplit('/', 1)[1]}"
            )
        if isinstance(result, Placement):
            writes += ungated_pods(writer, source, result, namespace)
            if source.gang.semantics is Semantics.KUEUE:  # a TopologyAssignment is a Kueue workload's
                writes.append(kueue_admission(writer, source, result, KUEUE_STORED, namespace))
        return writes

    return write


def kueue_admission(
    writer: Writer, source: Input, placement: Placement, version: str, namespace: str
) -> Write:
    """toposched's TopologyAssignments over the admission Kueue wrote (its cluster queue, which
    v1beta1 requires) on the Workload Kueue made for the job."""
    patch = workload_status_patch(f"workload-{version}", placement.assignments, version, namespace=namespace)
    assigned = patch["status"]["admission"]["podSetAssignments"]
    workload = {
        **patch,
        "spec": {
            "queueName": "team-queue",
            "podSets": [
                {"name": a["name"], "count": a["count"], "template": pause_template()} for a in assigned
            ],
        },
    }
    del workload["status"]
    kueues = [{"name": a["name"], "count": a["count"]} for a in assigned]
    admitted = {
        **patch,
        "status": {"admission": {"clusterQueue": "cluster-queue", "podSetAssignments": kueues}},
    }
    for obj, subresource in ((workload, None), (admitted, "status")):
        made = writer.apply_once(f"{source.id} (Kueue)", obj, manager="kueue", subresource=subresource)
        if made.refused:
            return made
    return writer.apply_twice(f"{source.id} workload_status_patch({version})", patch, subresource="status")


def ungated_pods(writer: Writer, source: Input, placement: Placement, namespace: str) -> list[Write]:
    """The ungater's patch of each of the gang's pods, created gated as it finds them."""
    pods = {pod.name: pod for pod in source.gang.root.all_pods()}
    writes = []
    for name, patch in node_selector_patches(placement, source.topology, gate=GATE).items():
        spec = {**pod_spec_object(pods[name]), "schedulingGates": [{"name": GATE}]}
        pod = pod_object(object_name(name, fallback="pod"), namespace, spec=spec)
        created = writer.apply_once(f"{source.id} gated pod", pod, manager="creator")
        writes.append(
            created
            if created.refused
            else writer.patch_twice(f"{source.id} node_selector_patches", pod, patch)
        )
    return writes


def kube_conditions(
    writer: Writer, source: Input, result: Placement | Unschedulable, version: str, namespace: str
) -> list[Write]:
    """kube-scheduler's conditions on the gang's PodGroups, as ``toposched place`` reports them."""
    if not writer.serves(version, "PodGroup"):
        return []
    writer.ensure_namespace(namespace, pods=False)
    gang, topology = source.gang, source.topology
    objects = compile_to_kube(gang, topology, api_version=version).objects
    for obj in objects:
        if obj["kind"] != "Pod":
            created = writer.apply_once(
                f"{source.id} --to kube", in_namespace(obj, namespace), manager="toposched"
            )
            if created.refused:
                return [created]
    groups = [obj for obj in objects if obj["kind"] == "PodGroup"]
    statuses = status_objects(groups, gang, result, source.cluster.nodes, at=ATTEMPT)
    return [
        writer.apply_twice(
            f"{source.id} status_objects({version})", in_namespace(obj, namespace), subresource="status"
        )
        for obj in statuses
    ]


def pause_template() -> dict[str, Any]:
    return {"spec": {"containers": [{"name": "main", "image": "registry.k8s.io/pause:3.10"}]}}


# -- writing and checking --------------------------------------------------------------------------


def in_namespace(obj: Mapping[str, Any], namespace: str) -> dict[str, Any]:
    """``obj`` moved to ``namespace`` (each source has its own, so equal names never meet)."""
    if "namespace" not in obj["metadata"]:
        return dict(obj)
    return {**obj, "metadata": {**obj["metadata"], "namespace": namespace}}


def write_and_check(plane: ControlPlane, emitted: Sequence[Emitted], prefix: str) -> list[Write]:
    """Writes every source's objects, each twice; fails listing every refusal and change. An object
    equal to one written already (but for its namespace: kube-scheduler's pods are the same in
    every scheduling.k8s.io version) is the same request to the server and is written once."""
    writer = Writer(plane)
    skipped = [f"{e.source}: {e.skipped}" for e in emitted if e.skipped]
    served = {
        key: writer.serves(*key) for key in {(o["apiVersion"], o["kind"]) for e in emitted for o in e.objects}
    }
    skipped += [
        f"{kind} {version}: the API server does not serve it"
        for (version, kind), ok in served.items()
        if not ok
    ]
    seen: set[str] = set()
    sources = []
    for e in emitted:
        kept = [o for o in e.objects if served[(o["apiVersion"], o["kind"])] and first_time(o, seen)]
        sources.append(replace(e, objects=tuple(kept)))
    total = sum(len(e.objects) for e in emitted)
    print(f"{total} objects from {len(emitted)} sources, {len(seen)} distinct")
    try:
        jobs = [namespaced_writes(writer, e, f"{prefix}{i}") for i, e in enumerate(sources)]
        jobs += cluster_scoped_writes(writer, sources)
        writes = writer.run(jobs)
        report(writes, skipped)
    finally:
        writer.close()
    return writes


def first_time(obj: Mapping[str, Any], seen: set[str]) -> bool:
    """Whether no object equal to ``obj`` but for its namespace is in ``seen`` (it is then)."""
    metadata = {k: v for k, v in obj["metadata"].items() if k != "namespace"}
    key = json.dumps({**obj, "metadata": metadata}, sort_keys=True)
    if key in seen:
        return False
    seen.add(key)
    return True


def namespaced_writes(writer: Writer, emitted: Emitted, namespace: str) -> Callable[[], list[Write]]:
    def write() -> list[Write]:
        objects = [in_namespace(o, namespace) for o in emitted.objects if "namespace" in o["metadata"]]
        if objects:
            writer.ensure_namespace(namespace, pods=any(o["kind"] == "Pod" for o in objects))
        made = [
            writer.apply_once(emitted.source, created_pod(f, emitted.pods), manager="creator")
            for f in objects
            if pod_fragment(f)
        ]
        return [m for m in made if m.refused] + [writer.apply_twice(emitted.source, obj) for obj in objects]

    return write


def pod_fragment(obj: Mapping[str, Any]) -> bool:
    """A Pod without containers: what a controller sets on a pod that someone else creates (KAI's
    PodGrouper labels pods; OSMO creates them with these fields). It is written over the pod as
    created from the input (``created_pod``)."""
    return obj["kind"] == "Pod" and not obj.get("spec", {}).get("containers")


def created_pod(fragment: Mapping[str, Any], pods: Mapping[str, PodSpec]) -> dict[str, Any]:
    """The input's pod the fragment is written over, with the fragment's spec fields (a scheduler
    name is only set when a pod is created), without its labels and annotations."""
    metadata = fragment["metadata"]
    pod = pods.get(str(metadata["name"]))
    spec = pod_spec_object(pod) if pod is not None else pause_template()["spec"]
    return pod_object(metadata["name"], metadata["namespace"], spec={**spec, **fragment.get("spec", {})})


def cluster_scoped_writes(writer: Writer, emitted: Sequence[Emitted]) -> list[Callable[[], list[Write]]]:
    """One job per object path: each object of that path (distinct ones: see ``first_time``)
    written in turn, after deleting the one before (a topology's levels are immutable)."""
    found = [
        (writer.path(o), e.source, o) for e in emitted for o in e.objects if "namespace" not in o["metadata"]
    ]
    return [
        partial(_one_after_another, writer, path, [(source, obj) for _, source, obj in group])
        for path, group in groupby(sorted(found, key=lambda f: f[0]), key=lambda f: f[0])
    ]


def _one_after_another(
    writer: Writer, path: str, objects: list[tuple[str, Mapping[str, Any]]]
) -> list[Write]:
    writes = []
    for source, obj in objects:
        writer.delete(path)
        writes.append(writer.apply_twice(source, obj))
    return writes


def report(writes: Sequence[Write], skipped: Sequence[str]) -> None:
    """Prints what was written and skipped; fails listing each object refused or changed."""
    bad = [w for w in writes if w.refused or w.changed]
    kinds = sorted({w.kind for w in writes})
    print(f"{len(writes)} objects written twice ({', '.join(kinds)}); {len(bad)} refused or changed")
    for line in skipped:
        print(f"skipped: {line}")
    shown = "\n".join(str(w) for w in bad[:40])
    assert not bad, f"{len(bad)} of {len(writes)} writes refused or changed:\n{shown}"
