"""Generated TAS cases in the conformance format (../shared/conformance/FORMAT.md §6): a small
labelled cluster (some nodes tainted, cordoned, NotReady or partly used) and one Kueue workload of
one to two PodSets or a PodSet group, with one of Kueue's profiles.

Case ``i`` of seed ``s`` depends on nothing else, so any case is rebuilt from its (seed, index)."""

from __future__ import annotations

import random
from typing import Any

ZONE = "topology.example.com/zone"
BLOCK = "topology.example.com/block"
RACK = "topology.example.com/rack"
HOST = "kubernetes.io/hostname"
GPU = "example.com/gpu"
TAINT_KEY = "vs-kueue/dedicated"

# Level lists, coarsest first, with how often each is drawn. Racks as leaves (no hostname level)
# merge their nodes into one leaf and make Kueue ignore taints and selectors.
SHAPES: tuple[tuple[tuple[str, ...], int], ...] = (
    ((BLOCK, RACK, HOST), 40),
    ((ZONE, BLOCK, RACK, HOST), 20),
    ((RACK, HOST), 20),
    ((BLOCK, RACK), 10),
    ((ZONE, BLOCK, RACK), 10),
)
FANOUT = {ZONE: (1, 2), BLOCK: (1, 3), RACK: (1, 3), HOST: (1, 3)}
LEAF_NODES = (1, 2)  # nodes behind one rack leaf when there is no hostname level
PROFILES = ("Mixed", "BestFit", "BalancedPlacement")
REQUEST_KINDS = (
    "required",
    "preferred",
    "unconstrained",
    "implied",
    "slices",
    "required-slices",
    "preferred-slices",
    "multilayer",
    "group",
    "two-podsets",
)
CPU_REQUESTS = ("500m", "1", "1500m", "2")


def generate(seed: int, index: int, profile: str | None = None) -> dict[str, Any]:
    """Case ``index`` of ``seed``; ``profile`` overrides the drawn profile."""
    rng = random.Random(f"vs-kueue/{seed}/{index}")
    levels = _choice_weighted(rng, SHAPES)
    chosen_profile = profile or rng.choice(PROFILES)
    use_gpu = rng.random() < 0.3
    nodes = _nodes(rng, levels, use_gpu)
    kind = rng.choice(REQUEST_KINDS)
    if chosen_profile == "BalancedPlacement" and rng.random() < 0.5:
        kind = rng.choice(("preferred", "preferred-slices", "group"))
    podsets = _podsets(rng, kind, levels, use_gpu, hostname_leaves=levels[-1] == HOST)
    case_id = f"kueue-generated-s{seed}-c{index}"
    return {
        "id": case_id,
        "source": f"vs-kueue generator: seed {seed}, case {index}"
        + (f", profile {profile}" if profile else "")
        + " (tests/vs_kueue/cases.py)",
        "kind": "placement",
        "description": f"generated {kind} case under {chosen_profile}",
        "topology": {"name": "default", "levels": list(levels)},
        "nodes": nodes,
        "profile": chosen_profile,
        "podSets": podsets,
        "requestKind": kind,
    }


def _choice_weighted(rng: random.Random, options: tuple[tuple[tuple[str, ...], int], ...]) -> tuple[str, ...]:
    values = [value for value, _ in options]
    weights = [weight for _, weight in options]
    return rng.choices(values, weights)[0]


def _paths(rng: random.Random, levels: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Level values of every leaf: ``b1, r2, ...``. Racks of different blocks share names, so a
    domain is known only by its whole path, as in Kueue."""
    paths: list[tuple[str, ...]] = [()]
    for level in levels:
        if level == HOST:
            break
        low, high = FANOUT[level]
        prefix = level.rsplit("/", 1)[-1][0]
        paths = [(*path, f"{prefix}{i + 1}") for path in paths for i in range(rng.randint(low, high))]
    return paths


def _nodes(rng: random.Random, levels: tuple[str, ...], use_gpu: bool) -> list[dict[str, Any]]:
    nodes: list[dict[str, Any]] = []
    per_leaf = FANOUT[HOST] if levels[-1] == HOST else LEAF_NODES
    for path in _paths(rng, levels):
        for _ in range(rng.randint(*per_leaf)):
            name = f"n{len(nodes) + 1}"
            labels = dict(zip(levels, path, strict=False))
            if levels[-1] == HOST:
                labels[HOST] = name
            nodes.append(_node(rng, name, labels, use_gpu))
    return nodes


def _node(rng: random.Random, name: str, labels: dict[str, str], use_gpu: bool) -> dict[str, Any]:
    cpu = rng.choice((2, 4, 4, 8))
    allocatable: dict[str, str] = {"cpu": str(cpu), "memory": "32Gi", "pods": rng.choice(("110", "110", "4"))}
    if use_gpu:
        allocatable[GPU] = str(rng.choice((0, 2, 4, 8)))
    node: dict[str, Any] = {"name": name, "labels": labels, "allocatable": allocatable}
    if rng.random() < 0.25:
        used_cpu = rng.randint(1, cpu * 2 - 1) * 500
        used: dict[str, str] = {"cpu": f"{used_cpu}m", "pods": str(rng.randint(1, 2))}
        if use_gpu and allocatable[GPU] != "0" and rng.random() < 0.5:
            used[GPU] = str(rng.randint(1, int(allocatable[GPU])))
        node["used"] = used
    if rng.random() < 0.1:
        node["taints"] = [{"key": TAINT_KEY, "value": "x", "effect": "NoSchedule"}]
    draw = rng.random()
    node["ready"] = draw >= 0.05
    if 0.05 <= draw < 0.12:
        node["unschedulable"] = True
    return node


def _podset(
    rng: random.Random, name: str, count: int, use_gpu: bool, hostname_leaves: bool
) -> dict[str, Any]:
    requests = {"cpu": rng.choice(CPU_REQUESTS)}
    if use_gpu and rng.random() < 0.7:
        requests[GPU] = str(rng.choice((1, 1, 2)))
    podset: dict[str, Any] = {"name": name, "count": count, "requests": requests}
    if rng.random() < 0.3:
        podset["tolerations"] = [{"key": TAINT_KEY, "operator": "Exists", "effect": "NoSchedule"}]
    if hostname_leaves and rng.random() < 0.08:
        podset["nodeSelector"] = {"topology.example.com/rack": "r1"}
    return podset


def _podsets(
    rng: random.Random, kind: str, levels: tuple[str, ...], use_gpu: bool, *, hostname_leaves: bool
) -> list[dict[str, Any]]:
    if kind == "two-podsets":
        first = _podset(rng, "main", rng.randint(1, 6), use_gpu, hostname_leaves)
        second = _podset(rng, "second", rng.randint(1, 6), use_gpu, hostname_leaves)
        first["topologyRequest"] = _simple_request(rng, rng.choice(("required", "preferred")), levels)
        second["topologyRequest"] = _simple_request(
            rng, rng.choice(("required", "preferred", "implied")), levels
        )
        return [first, second] if second["topologyRequest"] else [first, _without_request(second)]
    if kind == "group":
        return _group(rng, levels, use_gpu, hostname_leaves)
    if kind in ("slices", "required-slices", "preferred-slices", "multilayer"):
        return [_sliced(rng, kind, levels, use_gpu, hostname_leaves)]
    podset = _podset(rng, "main", rng.randint(1, 12), use_gpu, hostname_leaves)
    request = _simple_request(rng, kind, levels)
    return [podset | {"topologyRequest": request}] if request else [podset]


def _without_request(podset: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in podset.items() if k != "topologyRequest"}


def _simple_request(rng: random.Random, kind: str, levels: tuple[str, ...]) -> dict[str, Any]:
    if kind in ("required", "preferred"):
        return {kind: rng.choice(levels)}
    if kind == "unconstrained":
        return {"unconstrained": True}
    return {}  # implied: unconstrained at the lowest level


def _sliced(
    rng: random.Random, kind: str, levels: tuple[str, ...], use_gpu: bool, hostname_leaves: bool
) -> dict[str, Any]:
    main_index = rng.randrange(len(levels))
    request: dict[str, Any] = {}
    if kind == "required-slices":
        request["required"] = levels[main_index]
    elif kind == "preferred-slices":
        request["preferred"] = levels[main_index]
    elif kind == "slices":
        main_index = 0  # slice-only: the PodSet's level is the top
        if rng.random() < 0.5:
            request["unconstrained"] = True
    else:  # multilayer: outer layer under the main level (if any), inner layer deeper still
        if len(levels) < 2:
            kind = "slices"
        choice = rng.choice(("required", "preferred", "none"))
        if choice != "none":
            main_index = rng.randrange(len(levels) - 1)
            request[choice] = levels[main_index]
        else:
            main_index = 0
    if kind == "multilayer":
        outer = rng.randrange(main_index, len(levels) - 1)
        inner = rng.randrange(outer + 1, len(levels))
        inner_size = rng.choice((1, 2))
        outer_size = inner_size * rng.choice((1, 2, 3))
        slices = rng.randint(1, 3)
        request["sliceConstraints"] = [
            {"topology": levels[outer], "size": outer_size},
            {"topology": levels[inner], "size": inner_size},
        ]
        count = outer_size * slices
    else:
        size = rng.choice((1, 2, 3, 4))
        request["sliceRequired"] = levels[rng.randrange(main_index, len(levels))]
        request["sliceSize"] = size
        count = size * rng.randint(1, 3)
    return _podset(rng, "main", count, use_gpu, hostname_leaves) | {"topologyRequest": request}


def _group(
    rng: random.Random, levels: tuple[str, ...], use_gpu: bool, hostname_leaves: bool
) -> list[dict[str, Any]]:
    """Leader (1 pod) and workers sharing ``podSetGroup``, both required or preferred at one level
    (Kueue's job-side rules for groups)."""
    mode = rng.choice(("required", "preferred"))
    level = rng.choice(levels)
    request = {mode: level, "podSetGroup": "group"}
    leader = _podset(rng, "leader", 1, use_gpu, hostname_leaves)
    workers = _podset(rng, "workers", rng.randint(1, 8), use_gpu, hostname_leaves)
    leader["topologyRequest"] = dict(request)
    workers["topologyRequest"] = dict(request)
    for podset in (leader, workers):  # one selector and toleration set for the whole group
        podset.pop("nodeSelector", None)
        podset.pop("tolerations", None)
    return [leader, workers] if rng.random() < 0.5 else [workers, leader]
