"""The inputs of the differential validation, before mutation: what users and Kubernetes' own
tests write.

- ``kube``: the examples in examples/kube, the objects of the kube conformance cases (each
  ``validate`` create row's object alone, each ``placement`` case's objects together);
- ``kai``: KAI PodGroups with their pods (examples/kai) and alone (the KAI conformance cases'
  PodGroups), KAI Topology objects;
- ``kueue``: Kueue Topology objects (``v1beta1`` and ``v1beta2``) with the levels of the Kueue
  conformance cases and of the example clusters.

Each input is a list of objects as ``kubectl apply -f`` reads a file; ``family`` says which
reader of toposched it goes to (see ``toposched_side``).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from tests.realkube.binaries import REPO

EXAMPLES = REPO / "examples"
KUBE_CASES = REPO / "tests" / "conformance" / "cases" / "kube"
SHARED_CASES = REPO.parent / "shared" / "conformance"
KUEUE_VERSIONS = ("kueue.x-k8s.io/v1beta2", "kueue.x-k8s.io/v1beta1")
FAMILIES = ("kube", "kai", "kueue")


@dataclass(frozen=True, slots=True)
class Input:
    """One input: an id, where it comes from (a file, a case, or a generator seed), the reader
    it goes to and its objects."""

    id: str
    source: str
    family: str
    objects: tuple[dict[str, Any], ...]


def base_inputs() -> list[Input]:
    """Every unmutated input, in a stable order."""
    return [*_kube_inputs(), *_kai_inputs(), *_kueue_inputs()]


def _yaml_objects(path: Path) -> tuple[dict[str, Any], ...]:
    return tuple(d for d in yaml.safe_load_all(path.read_text()) if isinstance(d, dict))


def _cases(folder: Path, prefix: str = "") -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in sorted(folder.glob(f"{prefix}*.json")):
        case = json.loads(path.read_text())
        if isinstance(case, dict):
            yield path, case


def _kube_inputs() -> Iterator[Input]:
    for path in sorted((EXAMPLES / "kube").glob("*.yaml")):
        if path.name != "cluster.yaml":
            yield Input(f"example:kube/{path.name}", str(path.relative_to(REPO)), "kube", _yaml_objects(path))
    for path, case in _cases(KUBE_CASES):
        given = case.get("input", {})
        if case.get("kind") == "validate" and given.get("operation") == "create":
            objects: tuple[dict[str, Any], ...] = (given["object"],)
        elif case.get("kind") == "placement":
            objects = tuple(given.get("objects", ()))
        else:
            continue  # updates need a stored object: the dry runs here are creates
        yield Input(f"case:{case['id']}", str(path.relative_to(REPO)), "kube", objects)


def _kai_inputs() -> Iterator[Input]:
    for name in ("podgroup-pods.yaml",):
        path = EXAMPLES / "kai" / name
        yield Input(f"example:kai/{name}", str(path.relative_to(REPO)), "kai", _yaml_objects(path))
    for path, case in _cases(SHARED_CASES / "kai", "kai-"):
        given = case.get("input", {})
        for key in ("podGroup", "topology"):
            obj = given.get(key)
            if isinstance(obj, dict) and obj.get("apiVersion") and obj.get("kind"):  # objects, not bare specs
                source = f"../shared/conformance/kai/{path.name}"
                yield Input(f"case:{case['id']}:{key}", source, "kai", (obj,))


def _kueue_inputs() -> Iterator[Input]:
    seen: set[tuple[str, ...]] = set()
    for path, case in _cases(SHARED_CASES / "kueue", "kueue-"):
        levels = tuple(case.get("topology", {}).get("levels") or ())
        if not levels or levels in seen:
            continue
        seen.add(levels)
        for i, version in enumerate(KUEUE_VERSIONS):
            topology = {
                "apiVersion": version,
                "kind": "Topology",
                "metadata": {"name": str(case["topology"].get("name") or "default")},
                "spec": {"levels": [{"nodeLabel": level} for level in levels]},
            }
            source = f"../shared/conformance/kueue/{path.name}"
            yield Input(f"case:{case['id']}:topology-{i}", source, "kueue", (topology,))
    for path in (
        EXAMPLES / "clusters" / "h100-small.yaml",
        REPO / "deploy" / "examples" / "kueue-topology.yaml",
    ):
        topologies = [o for o in _yaml_objects(path) if o.get("kind") == "Topology"]
        for i, topology in enumerate(topologies):
            yield Input(f"example:{path.name}:{i}", str(path.relative_to(REPO)), "kueue", (topology,))
