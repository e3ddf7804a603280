"""toposched's answer for an input and its comparison with the API server's, object by object.

toposched reads the input as the CLI and the service do: workloads through the front-end
registry (``Registry.compile``), Topology objects as a Topology file (``topologies_from_documents``).
Each Problem is given to the object it names (its path starts with the object's place in the
input: ``podGroups[NAME]``, ``documents[2]``, or nothing for a KAI PodGroup or a topology) and
compared, with that prefix taken off, with the fields the server named for the object.

The server validates one object at a time; toposched reads the input as a whole, so it also
refuses what no single object shows: ``DOCUMENTED`` lists those reasons, each with why.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.realkube.diffval.corpus import Input
from tests.realkube.diffval.server import ServerAnswer

from toposched.frontends.cluster.topology import topologies_from_documents
from toposched.frontends.kube.load import document_path, objects_of
from toposched.frontends.registry import CompileContext, default_registry
from toposched.model import Problem, SpecError

TOPOLOGY_KINDS = ("Topology", "ClusterTopology")

# toposched's own reasons to refuse an input the server takes object by object: message
# pattern -> why. Kept short; each one is toposched's documented behaviour, not the server's.
DOCUMENTED: dict[str, str] = {
    r"has no pods in the input|the input has no pods|has no pods to place": (
        "toposched places pods: an input whose groups have none has nothing to place"
    ),
    r"which is not in the input|is not in the input": (
        "references (pod -> PodGroup, PodGroup -> CompositePodGroup) are resolved within the input; "
        "the server checks each object alone and never follows them"
    ),
    r"appears twice": "two groups of one name in one input: the server would store the second over the first",
    r"but the input has \d+ pod\(s\)": "kube-scheduler would wait for minCount pods that the input does not have",
    r"forms a cycle of CompositePodGroups|nests \d+ CompositePodGroups|has no PodGroups or CompositePodGroups under it": (
        "the CompositePodGroup tree of the input, which only the scheduler sees whole"
    ),
    r"its PodGroup .* in '": "a pod and its PodGroup in different namespaces never meet in kube-scheduler",
    r"should have the same \.spec\.schedulerName": "kube-scheduler's own rule for the pods of one group",
    r"pods? (is|are) more than|more than \d+ pods": "toposched's bound on the pods of one gang",
    r"is not a leaf subgroup of PodGroup": "a KAI pod's subgroup is resolved within the input, against its PodGroup",
    r"is not a valid node label key": (
        "a level's nodeLabel must be a label key a node can carry (name part at most 63 characters); "
        "the Topology CRDs' pattern bounds no length"
    ),
    r"the topology has no levels": "a Topology without levels has no domains to place in",
    r"toposched needs the object's name": "toposched needs names: pods and groups refer to each other by name",
    # KAI's validating webhook: the test control plane runs KAI's CRDs, not its webhook.
    r"mutually exclusive|duplicate subgroup name|was not found|cycle detected in subgroups|"
    r"minMember is required|cannot be set on a (leaf|mid-level) SubGroup": (
        "KAI's PodGroup webhook (not run by the test control plane, which has KAI's CRDs only)"
    ),
    r"alias .* (must not equal a nodeLabel|is used twice)|nodeLabel must be unique|can only be used at the lowest level": (
        "KAI's Topology webhook and CEL rules (checked by toposched for both Topology kinds)"
    ),
}


@dataclass
class Verdict:
    """The comparison of one input: ``outcome`` is ``agree-accept``, ``agree-reject``,
    ``documented`` (the server takes every object, toposched refuses only for ``DOCUMENTED``
    reasons) or ``disagree``; ``details`` say what differed."""

    input: Input
    outcome: str
    details: list[str] = field(default_factory=list)
    documented: list[str] = field(default_factory=list)


def server_objects(item: Input) -> list[tuple[str, Mapping[str, Any]]]:
    """The objects sent to the server, each with the prefix of toposched's paths for it. KAI
    pods are left out: they are the example's own, never mutated, and read only in part."""
    kube_reads_it = default_registry().choose(list(item.objects)).name == "kube"
    if item.family == "kube" and kube_reads_it:  # a Job without spec.scheduling is Kueue's
        return [
            (document_path(obj, where), obj)
            for where, obj in objects_of(list(item.objects))
            if isinstance(obj, Mapping)
        ]
    return [("", obj) for obj in item.objects if isinstance(obj, Mapping) and obj.get("kind") != "Pod"]


def toposched_problems(item: Input) -> tuple[list[Problem], str | None]:
    """What toposched says: its problems (none: accepted), and a crash's text (never expected)."""
    documents: list[Any] = list(item.objects)
    try:
        if documents and all(isinstance(d, Mapping) and d.get("kind") in TOPOLOGY_KINDS for d in documents):
            topologies_from_documents(documents)
        else:
            default_registry().compile(documents, CompileContext())
    except SpecError as exc:
        return list(exc.problems), None
    except Exception as exc:  # a crash is what this looks for
        return [], f"{type(exc).__name__}: {exc}"
    return [], None


_MAP_KEY = re.compile(r'\["[^"]*"\]|\[[^\]0-9][^\]]*\]')


def normalised(path: str) -> str:
    """A field path as the server spells it: no leading dot, no map keys (the server names a
    bad label at ``metadata.labels``)."""
    return _MAP_KEY.sub("", path).lstrip(".")


def _without_indexes(path: str) -> str:
    return re.sub(r"\[\d+\]", "", path)


def _owned(prefix: str, path: str, prefixes: Sequence[str]) -> str | None:
    """``path`` relative to the object at ``prefix``, or None when it is another object's."""
    if prefix:
        if path == prefix:
            return ""
        return path[len(prefix) + 1 :] if path.startswith(prefix + ".") else None
    if any(p and (path == p or path.startswith(p + ".")) for p in prefixes):
        return None
    return path


def documented_reason(problem: Problem) -> str | None:
    for pattern, why in DOCUMENTED.items():
        if re.search(pattern, problem.message):
            return why
    return None


def compare(item: Input, answers: Sequence[ServerAnswer]) -> Verdict:
    """``answers``: the server's, one per ``server_objects(item)``."""
    placed = server_objects(item)
    problems, crash = toposched_problems(item)
    if crash is not None:
        return Verdict(item, "disagree", [f"toposched crashed: {crash}"])
    prefixes = [prefix for prefix, _ in placed]
    claimed: set[int] = set()
    details: list[str] = []
    for (prefix, obj), answer in zip(placed, answers, strict=True):
        mine = [
            (i, rel) for i, p in enumerate(problems) if (rel := _owned(prefix, p.path, prefixes)) is not None
        ]
        claimed.update(i for i, _ in mine)
        own = [problems[i] for i, _ in mine]
        fields = {normalised(rel) for i, rel in mine if documented_reason(problems[i]) is None}
        details += _object_difference(str(obj.get("kind")), prefix, answer, fields, own)
    rest = [p for i, p in enumerate(problems) if i not in claimed]
    details += [
        f"input-level problem the server cannot have: {p}" for p in rest if documented_reason(p) is None
    ]
    if details:
        return Verdict(item, "disagree", details)
    if any(not a.accepted for a in answers):
        return Verdict(item, "agree-reject")
    if not problems:
        return Verdict(item, "agree-accept")
    return Verdict(
        item, "documented", [], sorted({r for p in problems if (r := documented_reason(p)) is not None})
    )


def _object_difference(
    kind: str, prefix: str, answer: ServerAnswer, fields: set[str], own: list[Problem]
) -> list[str]:
    where = prefix or kind
    mine = {normalised(f) for f in fields}
    if answer.accepted:
        return [
            f"{where}: refused for a reason the server does not have: {p}"
            for p in own
            if documented_reason(p) is None
        ]
    if answer.stage == "decode":
        theirs = {_without_indexes(normalised(f)) for f in answer.fields}
        if not own:
            return [f"{where}: the server could not decode it ({answer.message[:300]}), toposched took it"]
        if not theirs <= {_without_indexes(f) for f in mine}:
            return [
                f"{where}: server (decoding) names {sorted(theirs)}, toposched {sorted(mine)}: {answer.message[:300]}"
            ]
        return []
    if answer.stage in ("namespace", "unserved"):
        # refused before validation, at one field; toposched may say more of the object
        allowed = {"apiVersion", "kind"} if answer.stage == "unserved" else {"metadata.namespace"}
        if not mine & allowed:
            return [
                f"{where}: server refused at {sorted(allowed)} ({answer.message[:200]}), toposched names {sorted(mine)}"
            ]
        return []
    if answer.stage == "other":
        return [f"{where}: server refused without fields: {answer.message[:300]}"]
    theirs = {normalised(f) for f in answer.fields}
    every = {normalised(p.path[len(prefix) + 1 :] if prefix else p.path) for p in own}
    if not theirs <= every or not mine <= theirs:  # toposched may add only documented reasons
        return [
            f"{where}: server names {sorted(theirs)}, toposched {sorted(mine)}"
            f" (server: {answer.message[:400]}; toposched: {'; '.join(str(p) for p in own)[:400]})"
        ]
    return []
