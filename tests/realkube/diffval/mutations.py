"""A seeded generator of mutated inputs: each one is a base input with one change to one of its
objects, reproducible from ``(seed, number)`` alone (its ``source`` says both and what changed).

The changes are what users get wrong and what validation has to bound: a field deleted, a
value of the wrong JSON type, boundary numbers (0, -1, int32 limits), bad and over-long names,
odd label keys and values, unknown fields, duplicate list items, fields of the Go type added
with good or bad values (``scheduling.k8s.io``: read from ``toposched.wire.scheduling_types``),
and, for the CompositePodGroup trees, parents that are missing, the object itself or too deep.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from tests.realkube.diffval.corpus import Input

from toposched.wire.go_types import INTEGERS
from toposched.wire.scheduling_types import TYPES

Path = tuple[str | int, ...]

NUMBERS = (0, -1, 1, 2, 3, 8, 9, 100, 2**31 - 1, 2**31, -(2**31), -(2**31) - 1, 10**9, 10**9 + 1, 2**53, 1.5)
NAMES = (
    "",
    "a",
    "UPPER",
    "a_b",
    "-a",
    "a-",
    "a.b",
    "a..b",
    "a/b",
    "a%b",
    "a b",
    "0",
    "9a",
    "ünïcode",
    "x" * 63,
    "x" * 64,
    "x" * 253,
    "x" * 254,
    "a." + "b" * 62,
    "a." + "b" * 63,
)
LABEL_KEYS = (
    "example.com/rack",
    "rack",
    "kubernetes.io/hostname",
    "Example.com/rack",
    "example.com/Rack_1.x",
    "example.com/",
    "/rack",
    "a/b/c",
    "-rack",
    "rack-",
    "example_com/rack",
    "r" * 63,
    "r" * 64,
    "e" * 253 + "/r",
    "e" * 254 + "/r",
    "example.com/" + "r" * 64,
    "",
)
LABEL_VALUES = ("", "v", "V_1.x", "-v", "v-", "a b", "v" * 63, "v" * 64, 7, True, None, ["v"])
LONG = (64, 254, 255, 317, 1025)
UNKNOWN_KEYS = ("bogus", "Name", "minCount", "spec", "podGroups", "policy", "x-y")
ENUM_BAD = ("", "pod", "ALL", "Never ", "unknown")
SCHEDULING = "scheduling.k8s.io/"


def generate(bases: Sequence[Input], count: int, seed: int) -> list[Input]:
    """``count`` mutated inputs from ``bases``, number ``i`` drawn from ``Random(f"{seed}:{i}")``."""
    return [mutated(bases, seed, i) for i in range(count)]


def mutated(bases: Sequence[Input], seed: int, number: int) -> Input:
    rng = random.Random(f"{seed}:{number}")
    base = bases[rng.randrange(len(bases))]
    objects = [copy.deepcopy(o) for o in base.objects]
    target = _target(objects, rng)
    change = _change(objects, target, rng)
    source = f"diffval seed {seed} #{number}: {base.id}, object {target}: {change}"
    return Input(f"mutation:{seed}:{number}", source, base.family, tuple(objects))


def _target(objects: list[dict[str, Any]], rng: random.Random) -> int:
    """Mostly the objects toposched validates; pods (which it reads only in part) less often."""
    weights = [1 if o.get("kind") == "Pod" else 6 for o in objects]
    return rng.choices(range(len(objects)), weights)[0]


def _change(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    obj = objects[index]
    if obj.get("kind") == "Pod":  # toposched reads a pod's metadata and scheduling group, not the rest
        choices = [(_metadata, 1), (_pod_group_name, 1)]
        functions, weights = zip(*choices, strict=True)
        return str(rng.choices(functions, weights)[0](objects, index, rng))
    choices = [
        (_delete, 3),
        (_retype, 3),
        (_number, 3),
        (_name, 3),
        (_long_string, 1),
        (_unknown_field, 2),
        (_duplicate_item, 2),
        (_metadata, 3),
        (_api_version, 1),
    ]
    if str(obj.get("apiVersion", "")).startswith(SCHEDULING) or obj.get("kind") == "Job":
        choices += [(_add_typed_field, 6), (_label_key, 2)]
    if obj.get("kind") in ("PodGroup", "CompositePodGroup") and "spec" in obj:
        choices.append((_parent, 2))
    if obj.get("kind") == "Workload":
        choices.append((_deep_tree, 1))
    if obj.get("kind") == "Topology":
        choices += [(_levels, 4), (_label_key, 4)]
    functions, weights = zip(*choices, strict=True)
    change = rng.choices(functions, weights)[0]
    return str(change(objects, index, rng))


# -- walking --------------------------------------------------------------------------------


def _nodes(value: Any, path: Path = ()) -> Iterator[tuple[Path, Any]]:
    yield path, value
    if isinstance(value, Mapping):
        for key, child in value.items():
            yield from _nodes(child, (*path, key))
    elif isinstance(value, list):
        for i, child in enumerate(value):
            yield from _nodes(child, (*path, i))


def _get(root: Any, path: Path) -> Any:
    for step in path:
        root = root[step]
    return root


def _set(root: Any, path: Path, value: Any) -> None:
    _get(root, path[:-1])[path[-1]] = value


def _shown(path: Path) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in path).lstrip(".")


def _pick(obj: dict[str, Any], rng: random.Random, accept: Any = None) -> Path | None:
    """A random node below the object's top level (``apiVersion``/``kind`` only rarely)."""
    paths = [p for p, v in _nodes(obj) if p and (accept is None or accept(p, v))]
    paths = [p for p in paths if p[0] not in ("apiVersion", "kind")] or paths
    return rng.choice(paths) if paths else None


# -- the changes ----------------------------------------------------------------------------


def _delete(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    path = _pick(objects[index], rng)
    if path is None:
        return "nothing to delete"
    parent = _get(objects[index], path[:-1])
    del parent[path[-1]]
    return f"deleted {_shown(path)}"


def _other_type(value: Any, rng: random.Random) -> Any:
    kinds: list[Any] = ["text", 7, True, ["a"], {"a": 1}, None, 2.5, "7", "true"]
    return rng.choice([k for k in kinds if type(k) is not type(value)])


def _retype(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    path = _pick(objects[index], rng)
    if path is None:
        return "nothing to retype"
    value = _other_type(_get(objects[index], path), rng)
    _set(objects[index], path, value)
    return f"{_shown(path)} = {value!r} (another type)"


def _number(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    def numeric(_: Path, v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    path = _pick(objects[index], rng, numeric)
    if path is None:
        return _add_typed_field(objects, index, rng)
    value = rng.choice(NUMBERS)
    _set(objects[index], path, value)
    return f"{_shown(path)} = {value!r}"


def _strings(obj: dict[str, Any], rng: random.Random) -> Path | None:
    return _pick(obj, rng, lambda p, v: isinstance(v, str) and p[0] not in ("apiVersion", "kind"))


def _name(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    path = _strings(objects[index], rng)
    if path is None:
        return "no string to rename"
    value = rng.choice(NAMES)
    _set(objects[index], path, value)
    return f"{_shown(path)} = {_cut(value)}"


def _cut(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 40 else f"{text[:20]}...({len(str(value))} chars)"


def _long_string(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    path = _strings(objects[index], rng)
    if path is None:
        return "no string to lengthen"
    value = rng.choice("abz-.") * rng.choice(LONG)
    value = "a" + value[1:-1] + "z"
    _set(objects[index], path, value)
    return f"{_shown(path)} = {_cut(value)}"


def _unknown_field(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    paths = [p for p, v in _nodes(objects[index]) if isinstance(v, dict)]
    path = rng.choice(paths)
    key = rng.choice(UNKNOWN_KEYS)
    target = _get(objects[index], path)
    if key in target:
        key = f"{key}2"
    target[key] = rng.choice(["x", 1, {}, []])
    return f"unknown field {_shown((*path, key))}"


def _duplicate_item(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    lists = [p for p, v in _nodes(objects[index]) if isinstance(v, list) and v]
    if not lists:
        return _unknown_field(objects, index, rng)
    path = rng.choice(lists)
    items = _get(objects[index], path)
    item = copy.deepcopy(rng.choice(items))
    if isinstance(item, dict) and item and rng.random() < 0.3:
        key = rng.choice(list(item))
        if key != "name":
            item[key] = _other_type(item[key], rng) if rng.random() < 0.5 else copy.deepcopy(item[key])
    items.insert(rng.randrange(len(items) + 1), item)
    return f"{_shown(path)}: an item twice"


def _metadata(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    obj = objects[index]
    metadata = obj.setdefault("metadata", {})
    if not isinstance(metadata, dict):
        obj["metadata"] = metadata = {}
    what = rng.choice(("name", "namespace", "labels", "labels", "annotations", "generateName", "unknown"))
    if what in ("name", "namespace", "generateName"):
        value: Any = rng.choice(NAMES) if rng.random() < 0.85 else _other_type("", rng)
        metadata[what] = value
        return f"metadata.{what} = {_cut(value)}"
    if what == "unknown":
        metadata["bogus"] = "x"
        return "unknown field metadata.bogus"
    entries = metadata.setdefault(what, {})
    if not isinstance(entries, dict):
        metadata[what] = entries = {}
    key, value = rng.choice(LABEL_KEYS), rng.choice(LABEL_VALUES)
    if what == "annotations" and rng.random() < 0.2:
        value = "a" * rng.choice((1000, 262144, 262145))
    entries[key] = value
    return f"metadata.{what}[{_cut(key)}] = {_cut(value)}"


def _api_version(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    obj = objects[index]
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    if rng.random() < 0.2:
        obj["kind"] = rng.choice((str(obj.get("kind", "")).lower(), "Workloads", "PodGroupList"))
        return f"kind = {obj['kind']!r}"
    versions = ("v1alpha1", "v1alpha2", "v1alpha3", "v1beta1", "v1beta2", "v1", "v2alpha2", "v9")
    obj["apiVersion"] = f"{group}/{rng.choice(versions)}" if group else rng.choice(("v1", "v2"))
    return f"apiVersion = {obj['apiVersion']!r}"


def _label_key(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    keys = [
        p for p, v in _nodes(objects[index]) if p and p[-1] in ("key", "nodeLabel") and isinstance(v, str)
    ]
    if not keys:
        return _add_typed_field(objects, index, rng)
    path = rng.choice(keys)
    value = rng.choice(LABEL_KEYS)
    _set(objects[index], path, value)
    return f"{_shown(path)} = {_cut(value)}"


def _parent(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    obj = objects[index]
    spec = obj["spec"] if isinstance(obj.get("spec"), dict) else obj.setdefault("spec", {})
    names = [str(o.get("metadata", {}).get("name")) for o in objects if o.get("kind") == "CompositePodGroup"]
    own = str(obj.get("metadata", {}).get("name"))
    value = rng.choice([*names, own, "missing", "", "Bad_Parent", None])
    if value is None:
        spec.pop("parentCompositePodGroupName", None)
    else:
        spec["parentCompositePodGroupName"] = value
    return f"spec.parentCompositePodGroupName = {value!r}"


def _deep_tree(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    """Composite templates nested ``depth`` deep, each with one pod group template at the bottom."""
    depth = rng.randint(1, 6)
    leaf: dict[str, Any] = {"name": "leaf", "schedulingPolicy": {"gang": {"minCount": 1}}}
    node: dict[str, Any] = {"name": f"c{depth}", "podGroupTemplates": [leaf]}
    for level in range(depth - 1, 0, -1):
        node = {"name": f"c{level}", "compositePodGroupTemplates": [node]}
    spec = objects[index].setdefault("spec", {})
    if not isinstance(spec, dict):
        objects[index]["spec"] = spec = {}
    spec.setdefault("compositePodGroupTemplates", [])
    if isinstance(spec["compositePodGroupTemplates"], list):
        spec["compositePodGroupTemplates"].append(node)
    return f"a composite template tree {depth} deep"


def _levels(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    spec = objects[index].setdefault("spec", {})
    if not isinstance(spec, dict):
        objects[index]["spec"] = spec = {}
    how = rng.choice(("none", "many", "hostname-first", "alias", "same"))
    levels: list[Any] = [{"nodeLabel": f"example.com/l{i}"} for i in range(rng.choice((16, 17)))]
    if how == "none":
        levels = []
    elif how == "hostname-first":
        levels = [{"nodeLabel": "kubernetes.io/hostname"}, {"nodeLabel": "example.com/rack"}]
    elif how == "alias":
        levels = [
            {"nodeLabel": "example.com/rack", "alias": rng.choice(("rack", "example.com/rack", "Bad Alias"))}
        ]
    elif how == "same":
        levels = [{"nodeLabel": "example.com/rack"}, {"nodeLabel": "example.com/rack"}]
    spec["levels"] = levels
    return f"spec.levels: {how} ({len(levels)})"


def _pod_group_name(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    spec = objects[index].setdefault("spec", {})
    if not isinstance(spec, dict):
        return "a pod without a spec"
    value = rng.choice([*NAMES[:12], "missing", None])
    if value is None:
        spec.pop("schedulingGroup", None)
        return "spec.schedulingGroup removed"
    spec["schedulingGroup"] = {"podGroupName": value}
    return f"spec.schedulingGroup.podGroupName = {_cut(value)}"


# -- fields of the Go types -----------------------------------------------------------------


def _typed_nodes(obj: dict[str, Any]) -> list[tuple[Path, str, str]]:
    """(path, group/version, type name) of every struct value in the object that the type
    tables describe (a Job's ``spec.scheduling`` as ``batch/v1.JobSchedulingConfiguration``)."""
    version = str(obj.get("apiVersion"))
    found: list[tuple[Path, str, str]] = []

    def walk(value: Any, path: Path, scope: str, name: str) -> None:
        spec = TYPES.get(scope, {}).get(name)
        if spec is None or spec.string or not isinstance(value, dict):
            return
        found.append((path, scope, name))
        for entry in spec.fields:
            child = value.get(entry.json)
            if entry.external or child is None:
                continue
            gv, _, local = entry.base.rpartition(".") if "/" in entry.base else ("", "", entry.base)
            items = child if entry.slice and isinstance(child, list) else [child]
            for i, item in enumerate(items):
                where = (*path, entry.json, i) if entry.slice else (*path, entry.json)
                walk(item, where, gv or scope, local)

    if obj.get("kind") == "Job":
        scheduling = obj.get("spec", {}).get("scheduling") if isinstance(obj.get("spec"), dict) else None
        walk(
            scheduling if scheduling is not None else {},
            ("spec", "scheduling"),
            "batch/v1",
            "JobSchedulingConfiguration",
        )
        if scheduling is None and isinstance(obj.get("spec"), dict):
            obj["spec"]["scheduling"] = {}
    else:
        walk(obj, (), version, str(obj.get("kind")))
    return found


def _add_typed_field(objects: list[dict[str, Any]], index: int, rng: random.Random) -> str:
    obj = objects[index]
    nodes = [n for n in _typed_nodes(obj) if TYPES[n[1]][n[2]].fields]
    if not nodes:
        return _unknown_field(objects, index, rng)
    path, scope, name = rng.choice(nodes)
    spec = TYPES[scope][name]
    entry = rng.choice([f for f in spec.fields if f.json not in ("metadata", "status")] or list(spec.fields))
    value = _value(entry.go, scope, rng, depth=0)
    _get(obj, path)[entry.json] = value
    return f"{_shown((*path, entry.json))} = {_cut(value)}"


def _value(go: str, scope: str, rng: random.Random, depth: int) -> Any:
    """A value for a field of Go type ``go``: mostly well-formed, sometimes at or past a bound."""
    if go.startswith("[]"):
        return [_value(go[2:], scope, rng, depth + 1) for _ in range(rng.choice((0, 1, 2, 2, 3, 9)))]
    base = go.lstrip("*")
    if base in INTEGERS:
        return rng.choice(NUMBERS[:-1])
    if base == "bool":
        return rng.random() < 0.5
    if base == "string":
        return rng.choice(("a", "x1", "example.com/rack", *NAMES[:6]))
    if "." in base and "/" not in base:  # metav1 types
        return {}
    gv, _, local = base.rpartition(".") if "/" in base else ("", "", base)
    spec = TYPES.get(gv or scope, {}).get(local)
    if spec is None:
        return {}
    if spec.string:
        return rng.choice(spec.enum) if spec.enum and rng.random() < 0.7 else rng.choice(ENUM_BAD)
    value: dict[str, Any] = {}
    if depth > 3:
        return value
    for entry in spec.fields:
        if rng.random() < (0.7 if "+k8s:required" in entry.markers else 0.35):
            value[entry.json] = _value(entry.go, gv or scope, rng, depth + 1)
    return value
