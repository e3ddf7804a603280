"""The gangs the emitter tests write for every target: each example workload (``examples/``, with
the cluster, pool or topology file it is placed with) and each conformance placement case (Kueue's
and KAI's, the shared ones and the repository's), compiled once.

``EXAMPLES`` is the table of example files; ``Example.cli_options`` gives the ``toposched compile``
options that read one the way ``inputs()`` does."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from conformance import kai_case, kueue_case
from conformance.loader import Case, discover
from toposched.frontends.osmo import parse_pool
from toposched.frontends.registry import CompileContext, PoolEntry, default_registry
from toposched.intake.cluster import load_cluster, topologies_from_documents
from toposched.intake.parse import parse_documents
from toposched.model import Cluster, Gang, Policy, Topology

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SAMPLE_CLUSTER = "../src/toposched/samples/cluster.yaml"  # from examples/


@dataclass(frozen=True)
class Example:
    """An example workload and the files it is read with, all relative to ``examples/``."""

    workload: str
    cluster: str
    pool: str | None = None
    topology: str | None = None  # a file of Topology / ClusterTopology objects

    @property
    def id(self) -> str:
        return f"example-{Path(self.workload).stem}"

    def cli_options(self) -> list[str]:
        """``toposched compile WORKLOAD --cluster ...`` as these files are read here."""
        options = [str(EXAMPLES / self.workload), "--cluster", str(EXAMPLES / self.cluster)]
        for flag, value in (("--pool", self.pool), ("--topology", self.topology)):
            if value is not None:
                options += [flag, str(EXAMPLES / value)]
        return options


def _example_table() -> tuple[Example, ...]:
    table = [Example(f"kueue/{p.name}", SAMPLE_CLUSTER) for p in sorted((EXAMPLES / "kueue").glob("*.yaml"))]
    for workload, cluster in [
        ("tfjob-segments", "tfjob-cluster"),
        ("custom-segments", "tfjob-cluster"),
        ("zone-ab-job", "zone-ab-cluster"),
        ("podgroup-pods", "zone-ab-cluster"),
    ]:
        table.append(Example(f"kai/{workload}.yaml", f"kai/{cluster}.yaml"))
    for path in sorted((EXAMPLES / "osmo").glob("*.workflow.yaml")):
        stem = path.name.removesuffix(".workflow.yaml")
        table.append(Example(f"osmo/{path.name}", f"osmo/{stem}.cluster.yaml", pool=f"osmo/{stem}.pool.yaml"))
    for name in ("llama-70b-h100.yaml", "llama-405b-gb200.yaml"):
        table.append(Example(f"grove/{name}", "grove/cluster.yaml", topology="grove/topologies.yaml"))
    for name in ("job-one-rack.yaml", "leader-workers.yaml", "composite.yaml"):
        table.append(Example(f"kube/{name}", "kube/cluster.yaml"))  # the input brings its topology
    return tuple(table)


EXAMPLE_TABLE = _example_table()


@dataclass(frozen=True)
class Input:
    """A gang with the cluster and topology it is placed on, and the policy it is placed with."""

    id: str
    gang: Gang
    cluster: Cluster
    topology: Topology
    policy: Policy | None = None


def _docs(path: str) -> list[Any]:
    return parse_documents((EXAMPLES / path).read_text(encoding="utf-8"), source=path)


def _read(example: Example) -> tuple[Cluster, CompileContext]:
    """The example's cluster (with the topology file's topologies) and the context it compiles in."""
    cluster = load_cluster((EXAMPLES / example.cluster).read_text(encoding="utf-8"), source=example.cluster)
    if example.topology is not None:
        for found in topologies_from_documents(_docs(example.topology), source=example.topology):
            cluster = cluster.with_topology(found)
    pools = {}
    if example.pool is not None:
        parsed = parse_pool(_docs(example.pool)[0])
        pools = {parsed.name: PoolEntry(parsed)}
    return cluster, CompileContext(topologies=cluster.topologies, pools=pools)


def _example(example: Example) -> Input:
    cluster, context = _read(example)
    default = cluster.topologies[0].name if len(cluster.topologies) == 1 else None
    chosen, compiled = default_registry().compile_for(_docs(example.workload), context, default=default)
    for brought in (chosen, *compiled.topologies):  # kube's: one topology per constraint key
        cluster = cluster.with_topology(brought)
    return Input(example.id, compiled.gang, cluster, chosen)


def own_objects(example: Example) -> tuple[Mapping[str, Any], ...]:
    """What ``toposched compile`` without ``--to`` writes for the example: its front end's objects."""
    _, context = _read(example)
    return tuple(default_registry().compile(_docs(example.workload), context).objects)


def examples() -> Iterator[Input]:
    for example in EXAMPLE_TABLE:
        yield _example(example)


def _conformance() -> Iterator[Input]:
    for case in discover("kueue", {"placement"}):
        nodes, pods = kueue_case.nodes_of(case.data)
        topology = kueue_case.topology_of(case.data)
        cluster = Cluster(tuple(nodes), tuple(pods), (topology,))
        yield Input(
            case.id, kueue_case.gang_of(case.data), cluster, topology, kueue_case.policy_of(case.data)
        )
    for case in discover("kai", {"placement"}):
        yield _kai_input(case)


def _kai_input(case: Case) -> Input:
    nodes, pods = kai_case.nodes_of(case.data)
    topologies = kai_case.topologies_of(case.data)
    main = next(t for t in topologies if t.name == case.data["topology"]["name"])
    cluster = Cluster(tuple(nodes), tuple(pods), tuple(topologies))
    return Input(case.id, kai_case.gang_of(case.data), cluster, main, Policy.BINPACK)


@cache
def inputs() -> tuple[Input, ...]:
    """Every example, then every conformance placement case."""
    return (*examples(), *_conformance())
