"""Topology objects → ``Topology``: Kueue ``kueue.x-k8s.io`` v1alpha1 / v1beta1 / v1beta2 and
KAI ``kai.scheduler/v1alpha1`` (whose levels may carry an ``alias``), plus a shorthand
``{name: x, levels: [label, ...]}`` for hand-written files."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from toposched.intake.cluster.documents import Located, at, read_objects
from toposched.intake.parse import parse_documents
from toposched.model import Problem, SpecError, Topology, TopologySpecError, is_label_key
from toposched.wire.crd import custom_resource_problems, installed

KUEUE_VERSIONS = ("kueue.x-k8s.io/v1alpha1", "kueue.x-k8s.io/v1beta1", "kueue.x-k8s.io/v1beta2")
KAI_VERSIONS = ("kai.scheduler/v1alpha1",)
GROVE_VERSIONS = ("grove.io/v1alpha1",)


def parse_topology_object(obj: Mapping[str, Any], *, path: str = "") -> Topology:
    """A Kueue or KAI Topology object → ``Topology``; ``path`` prefixes every problem's path.

    Raises ``TopologySpecError`` listing every problem.
    """
    problems: list[Problem] = []
    warnings: list[str] = []
    topology = topology_from_object(obj, path, problems, warnings)
    if topology is None or problems:
        raise TopologySpecError(problems)
    return topology


def load_topology(text: str | bytes, *, source: str = "topology") -> Topology:
    """The one topology of a YAML or JSON file (see ``topologies_from_documents``)."""
    try:
        documents = parse_documents(text, source=source)
    except SpecError as exc:
        raise TopologySpecError(exc.problems) from None
    found = topologies_from_documents(documents, source=source)
    if len(found) != 1:
        raise TopologySpecError(
            [
                Problem(
                    source,
                    f"expected one Topology object, found {len(found)}",
                    "write one Topology, or {name: x, levels: [...]}",
                )
            ]
        )
    return found[0]


def topologies_from_documents(documents: list[Any], *, source: str = "topology") -> list[Topology]:
    """The topologies of a Topology file: Topology (Kueue, KAI) and Grove ClusterTopology
    objects, also inside a List, or the shorthand ``{name: x, levels: [label, ...]}`` (levels
    may also be ``{nodeLabel, alias}`` mappings). Other objects are ignored."""
    problems: list[Problem] = []
    if len(documents) == 1 and isinstance(documents[0], Mapping) and _is_shorthand(documents[0]):
        short = documents[0]
        topology = _build(short.get("name"), short.get("levels"), "", problems, aliases_allowed=True)
        if topology is None or problems:
            raise TopologySpecError(problems)
        return [topology]
    objects, problems = read_objects(documents)
    warnings: list[str] = []
    found: list[Topology] = []
    for o in objects:  # paths as in the file (a cluster dump prefixes them: ``topology_located``)
        if o.kind == "ClusterTopology":
            topology = cluster_topology_from_object(o.obj, o.where, problems)
        elif o.kind == "Topology":
            topology = topology_from_object(o.obj, o.where, problems, warnings)
        else:
            continue
        if topology is not None:
            found.append(topology)
    if problems:
        raise TopologySpecError(problems)
    return found


def topology_from_object(
    obj: Mapping[str, Any], path: str, problems: list[Problem], warnings: list[str]
) -> Topology | None:
    """Like ``parse_topology_object`` but appends problems and warnings instead of raising.

    The object is first checked as the API server checks it against the installed CRD
    (``toposched.wire.crd``; Kueue's v1alpha1, served no more, against v1beta1's schema, the
    same fields); then KAI's alias webhook and the model's level rules apply."""
    del warnings  # nothing here warns: what the server refuses, toposched refuses
    api_version = obj.get("apiVersion")
    before = len(problems)
    if api_version not in KUEUE_VERSIONS + KAI_VERSIONS:
        problems.append(
            Problem(
                at(path, "apiVersion"),
                f"unknown apiVersion {api_version!r} for a Topology",
                f"use one of {', '.join(KUEUE_VERSIONS + KAI_VERSIONS)}",
            )
        )
    if obj.get("kind", "Topology") != "Topology":
        problems.append(Problem(at(path, "kind"), f"expected kind Topology, got {obj.get('kind')!r}", ""))
    if len(problems) > before:
        return None
    schema_version = KUEUE_VERSIONS[1] if api_version == KUEUE_VERSIONS[0] else str(api_version)
    found, _ = custom_resource_problems(obj, installed(schema_version, "Topology"), path=path)
    if found:
        problems.extend(found)
        return None
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    spec = obj.get("spec")
    levels = spec.get("levels") if isinstance(spec, Mapping) else None
    topology = _build(
        name, levels, at(path, "spec"), problems, aliases_allowed=api_version in KAI_VERSIONS, name_path=path
    )
    return topology if len(problems) == before else None


def topology_located(located: Located, problems: list[Problem], warnings: list[str]) -> Topology | None:
    """A Topology (or Grove ClusterTopology) of a cluster dump; problem paths start with
    ``topologies[<name>]``."""
    metadata = located.obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    path = f"topologies[{name}]" if isinstance(name, str) and name else located.where
    if located.kind == "ClusterTopology":
        return cluster_topology_from_object(located.obj, path, problems)
    return topology_from_object(located.obj, path, problems, warnings)


def cluster_topology_from_object(
    obj: Mapping[str, Any], path: str, problems: list[Problem]
) -> Topology | None:
    """A Grove ``ClusterTopology`` (``spec.levels[].{domain, key}``, broadest first) as a ``Topology``
    whose aliases are the domain names, so ``rack`` resolves to the rack's node label. Grove's own
    admission rules (domain names, hierarchy) are applied by the Grove front end when it is used."""
    before = len(problems)
    if obj.get("apiVersion") not in GROVE_VERSIONS:
        problems.append(
            Problem(
                at(path, "apiVersion"),
                f"unknown apiVersion {obj.get('apiVersion')!r} for a ClusterTopology",
                f"use {GROVE_VERSIONS[0]}",
            )
        )
    metadata = obj.get("metadata")
    name = metadata.get("name") if isinstance(metadata, Mapping) else None
    spec = obj.get("spec")
    raw = spec.get("levels") if isinstance(spec, Mapping) else None
    # A domain spelled as its own key (``{domain: zone, key: zone}``) names the level already.
    levels = (
        [
            {"nodeLabel": level.get("key"), "alias": level.get("domain")}
            if isinstance(level, Mapping) and level.get("domain") != level.get("key")
            else {"nodeLabel": level.get("key")}
            if isinstance(level, Mapping)
            else level
            for level in raw
        ]
        if isinstance(raw, list)
        else raw
    )
    topology = _build(name, levels, at(path, "spec"), problems, aliases_allowed=True, name_path=path)
    # name the ClusterTopology's own fields in what went wrong
    problems[before:] = [
        Problem(p.path.replace(".nodeLabel", ".key").replace(".alias", ".domain"), p.message, p.hint)
        for p in problems[before:]
    ]
    return topology if len(problems) == before else None


def _is_shorthand(doc: Mapping[str, Any]) -> bool:
    return "levels" in doc and "kind" not in doc and "apiVersion" not in doc


def _build(
    name: object,
    raw_levels: object,
    spec_path: str,
    problems: list[Problem],
    *,
    aliases_allowed: bool,
    name_path: str | None = None,
) -> Topology | None:
    """Check the name and levels, then let ``Topology.create`` apply the model's level rules.

    ``name_path`` None = the shorthand, whose levels may also be plain label strings."""
    shorthand = name_path is None
    name_ok = isinstance(name, str) and bool(name)
    if not name_ok:
        where = "name" if name_path is None else at(name_path, "metadata.name")
        problems.append(Problem(where, "the topology has no name", "set a name"))
    levels_at = at(spec_path, "levels")
    if not isinstance(raw_levels, list) or not raw_levels:
        problems.append(
            Problem(levels_at, "the topology has no levels", "list the node labels, coarsest first")
        )
        return None
    before = len(problems)
    labels: list[str] = []
    aliases: dict[str, str] = {}
    alias_index: dict[str, int] = {}
    for i, raw in enumerate(raw_levels):
        where = f"{levels_at}[{i}]"
        label = raw.get("nodeLabel") if isinstance(raw, Mapping) else raw if shorthand else None
        if not isinstance(label, str):
            problems.append(
                Problem(f"{where}.nodeLabel", "a level needs a nodeLabel", "write - nodeLabel: <label key>")
            )
            continue
        labels.append(label)
        alias = raw.get("alias") if isinstance(raw, Mapping) and aliases_allowed else None
        if alias is None:
            continue
        if not isinstance(alias, str) or not is_label_key(alias):
            problems.append(
                Problem(f"{where}.alias", f"{alias!r} is not a valid alias", "use a short name such as rack")
            )
        elif alias in aliases:
            problems.append(
                Problem(
                    f"{where}.alias", f"alias {alias!r} is used twice; aliases must be unique", "rename one"
                )
            )
        else:
            aliases[alias] = label
            alias_index[alias] = i
    for alias, i in alias_index.items():
        if alias in labels:
            problems.append(
                Problem(
                    f"{levels_at}[{i}].alias",
                    f"alias {alias!r} must not equal a nodeLabel",
                    "pick a short name that is not a label key of this topology",
                )
            )
    if len(problems) > before:
        return None
    try:
        topology = Topology.create(str(name) if name_ok else "unnamed", labels, aliases, path=levels_at)
    except TopologySpecError as exc:
        problems.extend(_point_at_node_label(p, levels_at) for p in exc.problems)
        return None
    return topology if name_ok else None


def _point_at_node_label(problem: Problem, levels_at: str) -> Problem:
    """``spec.levels[2]`` → ``spec.levels[2].nodeLabel``: the level's problem is its label."""
    if re.fullmatch(re.escape(levels_at) + r"\[\d+\]", problem.path):
        return Problem(f"{problem.path}.nodeLabel", problem.message, problem.hint)
    return problem
