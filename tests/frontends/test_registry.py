"""The front-end registry: which front end reads an input, the topology it settles on, and what
each front end compiles (Kueue, KAI, OSMO with a pool by name, Grove against known topologies)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from toposched.frontends.osmo import parse_pool, topology_object
from toposched.frontends.registry import CompileContext, Compiled, Documents, PoolEntry, default_registry
from toposched.intake.cluster import load_cluster, parse_topology_object
from toposched.intake.parse import parse_documents
from toposched.model import Gang, Group, NotFoundError, SpecError, Topology, WorkloadSpecError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
RACK = "topology.kubernetes.io/rack"
H100 = Topology.create(
    "h100-topology",
    ["topology.kubernetes.io/zone", "example.com/h100-rack", "kubernetes.io/hostname"],
    {
        "zone": "topology.kubernetes.io/zone",
        "rack": "example.com/h100-rack",
        "host": "kubernetes.io/hostname",
    },
)


def docs(path: str) -> list[Any]:
    return parse_documents((EXAMPLES / path).read_text(encoding="utf-8"), source=path)


@dataclass(frozen=True)
class Widgets:
    """A front end registered by a caller: reads ``Widget`` objects."""

    name: str = "widgets"
    kinds: frozenset[str] = frozenset({"Widget"})
    input_names_topology: bool = False
    membership: None = None  # its pods are not a running cluster's

    def recognises(self, documents: Documents) -> bool:
        return any(d.get("kind") == "Widget" for d in documents)

    def compile(self, documents: Documents, context: CompileContext) -> Compiled:
        return Compiled(self.name, Gang("w", Group("main")))


@pytest.mark.parametrize(
    ("spec", "hint", "chosen"),
    [
        ({"apiVersion": "batch/v1", "kind": "Job"}, None, "kueue"),
        ({"apiVersion": "example.com/v1", "kind": "Widget"}, "kueue", "kueue"),
        ({"apiVersion": "example.com/v1", "kind": "Widget"}, None, "widgets"),
        ({"apiVersion": "batch/v1", "kind": "Job"}, "Widget", "widgets"),
    ],
    ids=["by-kind", "by-front-end-hint", "registered-later", "by-kind-hint"],
)
def test_registry_chooses_front_end(spec: dict[str, str], hint: str | None, chosen: str) -> None:
    registry = default_registry()
    registry.register(Widgets(), first=True)
    assert registry.choose([spec], hint).name == chosen


def test_unknown_kinds_go_to_the_default_front_end_which_names_what_it_reads() -> None:
    registry = default_registry()
    with pytest.raises(WorkloadSpecError) as err:
        registry.compile([{"apiVersion": "example.com/v1", "kind": "Widget"}], CompileContext())
    assert "Widget" in str(err.value) and "Job" in str(err.value)
    with pytest.raises(WorkloadSpecError, match="unknown kind hint"):
        registry.choose([{"kind": "Job"}], "Gadget")


def test_kai_workload_is_read_by_the_kai_front_end_before_kueue() -> None:
    registry = default_registry()
    (topology,) = load_cluster((EXAMPLES / "kai/tfjob-cluster.yaml").read_text()).topologies
    documents = docs("kai/tfjob-segments.yaml")
    assert registry.choose(documents).name == "kai"
    compiled = registry.compile(documents, CompileContext(topology=topology))
    segments = [leaf for leaf in compiled.gang.leaves() if leaf.name.startswith("worker-")]
    assert [(s.name, len(s.pods), s.required) for s in segments] == [
        (f"worker-{i}", 4, RACK) for i in range(4)
    ]
    assert any(o["kind"] == "PodGroup" for o in compiled.objects)


def test_kueue_workload_still_goes_to_kueue() -> None:
    assert default_registry().choose(docs("kueue/job-rack.yaml")).name == "kueue"


def test_osmo_workflow_uses_the_named_pool_and_its_stored_topology() -> None:
    pool = parse_pool(docs("osmo/3-multiple-nvl72-same-zone.pool.yaml")[0])
    obj = topology_object(pool)
    assert obj is not None
    stored = parse_topology_object(obj)
    context = CompileContext(topologies=(stored,), pools={"my-pool": PoolEntry(pool, stored.name)})
    compiled = default_registry().compile(docs("osmo/3-multiple-nvl72-same-zone.workflow.yaml"), context)
    assert compiled.gang.topology == stored.name and compiled.gang.size == 8
    assert compiled.gang.root.required == "topology.kubernetes.io/zone"
    assert compiled.topologies == ()  # the pool uses a stored topology: nothing new is brought


def test_osmo_pool_without_a_stored_topology_brings_its_own() -> None:
    pool = parse_pool(docs("osmo/3-multiple-nvl72-same-zone.pool.yaml")[0])
    context = CompileContext(pools={pool.name: PoolEntry(pool)})
    topology, compiled = default_registry().compile_for(
        docs("osmo/3-multiple-nvl72-same-zone.workflow.yaml"), context
    )
    assert [t.name for t in compiled.topologies] == [pool.topology_name] == [topology.name]


def test_osmo_workflow_without_a_pool_is_rejected() -> None:
    with pytest.raises(WorkloadSpecError) as err:
        default_registry().compile(docs("osmo/1-single-nvl72-rack.workflow.yaml"), CompileContext())
    assert err.value.problems[0].path == "pool" and "is missing" in str(err.value)


def test_grove_podcliqueset_resolves_its_topology_from_the_known_ones() -> None:
    topology, compiled = default_registry().compile_for(
        docs("grove/llama-70b-h100.yaml"), CompileContext(topologies=(H100,))
    )
    assert topology is H100 and compiled.gang.topology == "h100-topology"
    (replica,) = compiled.gang.root.children
    assert replica.required == "example.com/h100-rack"


def test_grove_podcliqueset_naming_an_unknown_topology_is_rejected() -> None:
    with pytest.raises(WorkloadSpecError, match="h100-topology"):
        default_registry().compile(docs("grove/llama-70b-h100.yaml"), CompileContext())


def test_topology_is_the_requested_then_the_named_then_the_default() -> None:
    registry = default_registry()
    job = docs("kueue/job-rack.yaml")
    (sample,) = load_cluster((EXAMPLES.parent / "src/toposched/samples/cluster.yaml").read_text()).topologies
    other = Topology.create("other", list(sample.levels))
    only = CompileContext(topologies=(sample,))
    assert registry.compile_for(job, only, default=sample.name)[0] is sample
    with pytest.raises(SpecError, match="is needed: the cluster defines"):
        registry.compile_for(job, only)  # no implicit choice: a caller names its default
    both = CompileContext(topologies=(sample, other))
    assert registry.compile_for(job, both, topology="other")[0] is other
    assert registry.compile_for(job, both, default=sample.name)[0] is sample
    with pytest.raises(SpecError, match="is needed: the cluster defines"):
        registry.compile_for(job, both)
    with pytest.raises(NotFoundError):
        registry.compile_for(job, both, topology="missing")


@dataclass
class Counting:
    """A front end whose input brings and names its own topology; it counts its compiles."""

    name: str = "counting"
    kinds: frozenset[str] = frozenset({"Brought"})
    input_names_topology: bool = True
    membership: None = None  # its pods are not a running cluster's
    compiles: int = 0

    def recognises(self, documents: Documents) -> bool:
        return any(d.get("kind") == "Brought" for d in documents)

    def compile(self, documents: Documents, context: CompileContext) -> Compiled:
        self.compiles += 1
        own = Topology.create("own", [RACK])
        return Compiled(self.name, Gang("b", Group("main"), topology=own.name), topologies=(own,))


@pytest.mark.parametrize("default", [None, "h100-topology"])
def test_an_input_that_names_its_own_topology_is_compiled_once(default: str | None) -> None:
    counting = Counting()
    registry = default_registry()
    registry.register(counting, first=True)
    context = CompileContext(topologies=(H100,))
    chosen, compiled = registry.compile_for([{"kind": "Brought"}], context, default=default)
    assert (chosen.name, compiled.gang.topology, counting.compiles) == ("own", "own", 1)


def test_an_upstream_job_is_compiled_once_per_submission(monkeypatch: pytest.MonkeyPatch) -> None:
    from toposched.frontends import kube

    calls: list[int] = []
    load = kube.load_kube

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return load(*args, **kwargs)

    monkeypatch.setattr(kube, "load_kube", counted)
    context = CompileContext(topologies=(H100,))
    chosen, _ = default_registry().compile_for(docs("kube/job-one-rack.yaml"), context, default=H100.name)
    assert chosen.name == "kube.all-nodes" and len(calls) == 1


def test_an_osmo_workflow_is_compiled_once_per_submission(monkeypatch: pytest.MonkeyPatch) -> None:
    """The gang and the objects ``compile`` prints come from one run of the tree algorithm per
    group (the objects were built by compiling the workflow a second time)."""
    from toposched.frontends.osmo import compile as osmo_compile

    trees: list[int] = []
    build = osmo_compile.build_tree

    def counted(*args: Any, **kwargs: Any) -> Any:
        trees.append(1)
        return build(*args, **kwargs)

    monkeypatch.setattr(osmo_compile, "build_tree", counted)
    pool = parse_pool(docs("osmo/3-multiple-nvl72-same-zone.pool.yaml")[0])
    context = CompileContext(pools={pool.name: PoolEntry(pool)})
    _, compiled = default_registry().compile_for(
        docs("osmo/3-multiple-nvl72-same-zone.workflow.yaml"), context
    )
    assert len(trees) == len(compiled.objects[0]["podGroups"])


# -- the declared run time (toposched.io/run-seconds) -----------------------------------------

_JOB = """apiVersion: batch/v1
kind: Job
metadata:
  name: timed{annotations}
spec:
  parallelism: 1
  template:
    spec:
      containers:
      - name: main
        image: busybox
"""


def _timed(value: str | None) -> Documents:
    annotations = "" if value is None else f"\n  annotations:\n    toposched.io/run-seconds: {value}"
    return parse_documents(_JOB.format(annotations=annotations), source="job.yaml")


@pytest.mark.parametrize(("value", "seconds"), [(None, None), ('"3600"', 3600.0), ('"90.5"', 90.5)])
def test_run_seconds_annotation_is_read_into_the_gang(value: str | None, seconds: float | None) -> None:
    gang = default_registry().compile(_timed(value), CompileContext(topologies=(H100,))).gang
    assert gang.run_seconds == seconds


@pytest.mark.parametrize("value", ['"0"', '"-5"', '"soon"', '"nan"', '"inf"', '"99999999999"', "[1]"])
def test_bad_run_seconds_is_a_spec_error_naming_the_annotation(value: str) -> None:
    with pytest.raises(WorkloadSpecError) as err:
        default_registry().compile(_timed(value), CompileContext(topologies=(H100,)))
    (problem,) = err.value.problems
    assert problem.path == "documents[0].metadata.annotations[toposched.io/run-seconds]"
    assert "seconds" in problem.hint


def counting_calls(monkeypatch: pytest.MonkeyPatch, owner: object, name: str) -> list[int]:
    """Count the calls of ``owner.name`` (the original still runs)."""
    calls: list[int] = []
    original = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def test_a_grove_podcliqueset_naming_another_topology_than_the_default_is_compiled_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toposched.frontends import grove

    loads = counting_calls(monkeypatch, grove, "load_grove")
    other = Topology.create("other", [RACK])
    context = CompileContext(topologies=(other, H100))
    chosen, compiled = default_registry().compile_for(
        docs("grove/llama-70b-h100.yaml"), context, default="other"
    )
    assert (chosen, compiled.gang.topology, len(loads)) == (H100, H100.name, 1)


def test_a_kai_workload_naming_another_topology_than_the_default_is_compiled_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from toposched.frontends import kai

    loads = counting_calls(monkeypatch, kai, "load_kai")
    (named,) = load_cluster((EXAMPLES / "kai/tfjob-cluster.yaml").read_text()).topologies
    other = Topology.create("other", list(named.levels))
    context = CompileContext(topologies=(other, named))
    chosen, compiled = default_registry().compile_for(
        docs("kai/tfjob-segments.yaml"), context, default="other"
    )
    assert (chosen, compiled.gang.topology, len(loads)) == (named, named.name, 1)
    # The same gang as when the topology is asked for by name.
    _, asked = default_registry().compile_for(docs("kai/tfjob-segments.yaml"), context, topology=named.name)
    assert asked.gang == compiled.gang


@pytest.mark.parametrize(
    ("path", "default"),
    [
        ("kueue/job-rack.yaml", "sample"),
        ("grove/llama-70b-h100.yaml", None),
        ("kube/job-one-rack.yaml", None),
    ],
    ids=["kueue", "grove", "kube"],
)
def test_the_front_end_is_chosen_once_per_submission(
    monkeypatch: pytest.MonkeyPatch, path: str, default: str | None
) -> None:
    registry = default_registry()
    chosen = counting_calls(monkeypatch, registry, "choose")
    sample = Topology.create("sample", [H100.levels[0], "cloud.provider.com/topology-rack"])
    registry.compile_for(docs(path), CompileContext(topologies=(H100, sample)), default=default)
    assert len(chosen) == 1


def test_the_front_ends_with_pods_of_their_own_give_their_membership_in_registration_order() -> None:
    registry = default_registry()
    registry.register(Widgets(), first=True)  # no membership: its pods are not a cluster's
    assert [m.frontend for m in registry.memberships] == ["kai", "kube", "kueue"]
