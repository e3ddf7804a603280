"""Mutated workloads for the fuzz tests: the bundled examples and sample jobs, each with the
cluster (and pool or topology file) it is placed on, changed the ways real and hostile input
differs from a valid spec. ``kube_seeds`` are the upstream Kubernetes front end's: the
examples/kube inputs and the inputs of the kube conformance cases.

A case applies one to three changes to the parsed documents (delete, rename or duplicate a key,
replace a value by another type, a huge, negative or non-numeric number, odd text, deep
nesting, a repeated object that YAML writes as an alias), renders them as YAML or JSON, then
maybe damages the text (truncation, binary garbage, an alias bomb, thousands of open brackets,
a duplicate key, a byte-order mark or NUL).
"""

from __future__ import annotations

import copy
import json
import math
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from hypothesis import strategies as st

from toposched.frontends.osmo import parse_pool
from toposched.frontends.registry import CompileContext, PoolEntry
from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents
from toposched.model import Topology

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
SAMPLES = REPO / "src" / "toposched" / "samples"


@dataclass(frozen=True)
class Seed:
    """A bundled workload file and what ``toposched place`` needs beside it."""

    job: Path
    cluster: Path
    topology: str | None = None  # the cluster's topology to use, when it has several
    pool: Path | None = None
    topologies: Path | None = None  # a file of Topology / ClusterTopology objects
    documents: tuple[Any, ...] = field(default=(), compare=False, repr=False)

    @property
    def name(self) -> str:
        return str(self.job.relative_to(REPO))

    def place_args(self) -> list[str]:
        args = ["place", "JOB", "--cluster", str(self.cluster)]
        if self.pool is not None:
            args += ["--pool", str(self.pool)]
        if self.topologies is not None or self.topology is not None:
            args += ["--topology", str(self.topologies or self.topology)]
        return args


def _seed(
    job: str,
    cluster: str,
    *,
    topology: str | None = None,
    pool: str | None = None,
    topologies: str | None = None,
) -> Seed:
    path = REPO / job
    documents = parse_documents(path.read_text(encoding="utf-8"), source=job)
    return Seed(
        path,
        REPO / cluster,
        topology=topology,
        pool=REPO / pool if pool else None,
        topologies=REPO / topologies if topologies else None,
        documents=tuple(documents),
    )


@cache
def seeds() -> tuple[Seed, ...]:
    kueue = [
        _seed(f"examples/kueue/{name}", "src/toposched/samples/cluster.yaml")
        for name in ("job-rack.yaml", "job-multilayer.yaml", "jobset-rack-slices.yaml", "pod-group.yaml")
    ]
    kueue += [
        _seed(f"examples/kueue/{name}", "examples/clusters/h100-small.yaml", topology="racks")
        for name in ("pytorchjob.yaml", "mpijob-launcher-as-worker.yaml", "lws-group.yaml")
    ]
    samples = [
        _seed(str(path.relative_to(REPO)), "src/toposched/samples/cluster.yaml")
        for path in sorted((SAMPLES / "jobs").glob("*.yaml"))
    ]
    kai = [
        _seed("examples/kai/tfjob-segments.yaml", "examples/kai/tfjob-cluster.yaml"),
        _seed("examples/kai/custom-segments.yaml", "examples/kai/tfjob-cluster.yaml"),
        _seed("examples/kai/zone-ab-job.yaml", "examples/kai/zone-ab-cluster.yaml"),
        _seed("examples/kai/podgroup-pods.yaml", "examples/kai/zone-ab-cluster.yaml"),
    ]
    osmo = [
        _seed(
            f"examples/osmo/{n}.workflow.yaml",
            f"examples/osmo/{n}.cluster.yaml",
            pool=f"examples/osmo/{n}.pool.yaml",
        )
        for n in (
            "1-single-nvl72-rack",
            "2-multiple-nvl72-racks",
            "3-multiple-nvl72-same-zone",
            "4-best-effort",
        )
    ]
    grove = [
        _seed(
            f"examples/grove/{name}",
            "examples/grove/cluster.yaml",
            topologies="examples/grove/topologies.yaml",
        )
        for name in ("llama-70b-h100.yaml", "llama-405b-gb200.yaml")
    ]
    return (*kueue, *samples, *kai, *osmo, *grove)


KUBE_CASES = REPO / "tests" / "conformance" / "cases" / "kube"


@cache
def kube_seeds() -> tuple[Seed, ...]:
    """The kube examples on their cluster, and the objects of the kube conformance cases (every
    placement case, every fifth validate case: the rows differ by one field) on the same cluster."""
    cluster = "examples/kube/cluster.yaml"
    examples = [
        _seed(f"examples/kube/{name}", cluster)
        for name in ("job-one-rack.yaml", "leader-workers.yaml", "composite.yaml")
    ]
    cases = []
    for i, path in enumerate(sorted(KUBE_CASES.glob("*.json"))):
        data = json.loads(path.read_text(encoding="utf-8"))
        if data["kind"] == "placement":
            documents = tuple(data["input"]["objects"])
        elif i % 5 == 0:
            documents = (data["input"]["object"],)
        else:
            continue
        cases.append(Seed(path, REPO / cluster, documents=documents))
    return (*examples, *cases)


@cache
def context_of(seed: Seed) -> CompileContext:
    """What ``toposched place`` compiles the seed with: the cluster's topologies (and the
    topology file's), and the pool."""
    topologies: list[Topology] = list(load_cluster(seed.cluster.read_text(encoding="utf-8")).topologies)
    if seed.topologies is not None:
        text = seed.topologies.read_text(encoding="utf-8")
        topologies += [t for t in load_cluster(text).topologies if t.name not in {k.name for k in topologies}]
    pools: dict[str, PoolEntry] = {}
    if seed.pool is not None:
        pool = parse_pool(parse_documents(seed.pool.read_text(encoding="utf-8"), source="pool")[0])
        pools[pool.name] = PoolEntry(pool)
    return CompileContext(topologies=tuple(topologies), pools=pools)


# -- changes to the parsed documents ------------------------------------------------------------

ODD_VALUES: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    -(2**63),
    2**63,
    2**64 + 1,
    10**23,
    10**6,
    1.5,
    -0.0,
    1e308,
    math.inf,
    -math.inf,
    math.nan,
    "",
    " ",
    "1e6",
    "1e30",
    "NaN",
    "-5",
    "0x10",
    "4Gi",
    "1e400",
    "9" * 40,
    "x" * 5000,
    "../../etc",
    "Ünïcödé ☃ 名前",
    "a\u0000b",
    "\u202e\ufeff",
    "kai.scheduler/topology",
    [],
    [1, "two", None],
    {},
    {"a": 1},
    {"containers": "nope"},
)


Place = tuple[Any, ...]  # keys and indexes from a document root to one value


def _locations(node: Any, path: Place = ()) -> list[Place]:
    """Every path to a value (mapping value or list item) inside ``node``, down to 100 levels."""
    found: list[Place] = []
    if len(path) > 100:
        return found
    if isinstance(node, dict):
        for key, value in node.items():
            found.append((*path, key))
            found += _locations(value, (*path, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            found.append((*path, i))
            found += _locations(value, (*path, i))
    return found


def _parent(root: Any, path: Place) -> Any:
    for step in path[:-1]:
        root = root[step]
    return root


def _nested(value: Any, depth: int) -> Any:
    for _ in range(depth):
        value = [value]
    return value


@st.composite
def _change(draw: st.DrawFn, documents: list[Any]) -> list[Any]:
    """One change at one place of ``documents`` (changed in place, and returned)."""
    places = _locations(documents)
    if not places:  # a copy: later changes edit documents in place, never ODD_VALUES
        return [copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))]
    path = places[draw(st.integers(0, len(places) - 1))]
    parent, key = _parent(documents, path), path[-1]
    what = draw(
        st.sampled_from(
            ("delete", "odd", "odd", "odd", "text", "number", "rename", "duplicate", "nest", "alias", "wrap")
        )
    )
    if what == "delete":
        del parent[key]
    elif what == "odd":
        parent[key] = copy.deepcopy(draw(st.sampled_from(ODD_VALUES)))
    elif what == "text":
        parent[key] = draw(st.text(max_size=30))
    elif what == "number":
        parent[key] = draw(st.one_of(st.integers(), st.floats(allow_nan=True, allow_infinity=True)))
    elif what == "rename" and isinstance(parent, dict):
        parent[draw(st.sampled_from(("", "metadata", "spec", "kind", "x", "replicas", str(key).upper())))] = (
            parent.pop(key)
        )
    elif what == "duplicate" and isinstance(parent, list):
        parent.append(copy.deepcopy(parent[key]))
    elif what == "nest":
        parent[key] = _nested(parent[key], draw(st.sampled_from((5, 40, 63, 70, 200))))
    elif what == "alias":
        # the same object twice: YAML writes it once with an anchor, then as an alias
        other = places[draw(st.integers(0, len(places) - 1))]
        if path[: len(other)] != other:  # not an object holding this place: no cycles
            parent[key] = _parent(documents, (*other, None))
    else:
        parent[key] = {"value": parent[key]} if draw(st.booleans()) else [parent[key]] * 3
    return documents


def _render(documents: list[Any], as_json: bool) -> str:
    if as_json and len(documents) == 1:
        try:
            return json.dumps(documents[0], allow_nan=True)
        except (ValueError, RecursionError):
            pass
    try:
        return yaml.safe_dump_all(documents, allow_unicode=True, sort_keys=False)
    except (yaml.YAMLError, RecursionError):  # a cycle made by "alias": keep the seed's text
        return ""


ALIAS_BOMB = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 9)}]\n" for i in range(8)
)


@st.composite
def _damage(draw: st.DrawFn, text: str) -> str | bytes:
    """The rendered text, maybe damaged."""
    what = draw(
        st.sampled_from(
            ("none", "none", "none", "truncate", "garbage", "bomb", "brackets", "duplicate", "bom", "binary")
        )
    )
    at = draw(st.integers(0, len(text)))
    if what == "truncate":
        return text[:at]
    if what == "garbage":
        return (
            text.encode("utf-8")[:at] + draw(st.binary(min_size=1, max_size=16)) + text.encode("utf-8")[at:]
        )
    if what == "bomb":
        return ALIAS_BOMB + "---\n" + text if draw(st.booleans()) else ALIAS_BOMB
    if what == "brackets":
        return text[:at] + "[" * draw(st.sampled_from((70, 999, 5000, 100_000))) + text[at:]
    if what == "duplicate":
        return text + draw(st.sampled_from(("metadata: {name: again}\n", "kind: Job\n", "spec: {}\n")))
    if what == "bom":
        return (
            "\ufeff"
            + text[:at]
            + draw(st.sampled_from(("\u0000", "\t", "\r\n", "\x85", "\ud800")))
            + text[at:]
        )
    if what == "binary":
        return draw(st.binary(max_size=200))
    return text


@dataclass(frozen=True)
class Case:
    seed: Seed
    text: str | bytes

    def __repr__(self) -> str:  # what a failure report shows
        shown = self.text if len(self.text) < 3000 else self.text[:3000]
        return f"Case(seed={self.seed.name!r}, text={shown!r})"


@st.composite
def cases(draw: st.DrawFn, kube: bool = False) -> Case:
    """A seed and a mutated input text (str, or bytes when garbage went in); ``kube``: of the
    upstream Kubernetes front end's seeds."""
    seed = draw(st.sampled_from(kube_seeds() if kube else seeds()))
    documents = copy.deepcopy(list(seed.documents))
    for _ in range(draw(st.integers(1, 3))):
        documents = draw(_change(documents))
    fallback = seed.job.read_text(encoding="utf-8") if seed.job.suffix == ".yaml" else ""
    text = _render(documents, draw(st.booleans())) or fallback or _render(list(seed.documents), False)
    return Case(seed, draw(_damage(text)))


def default_topology(context: CompileContext) -> str | None:
    """The default ``toposched place`` gives the registry: the cluster's only topology."""
    return context.topologies[0].name if len(context.topologies) == 1 else None
