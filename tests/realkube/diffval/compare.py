"""toposched's answer for an input and its comparison with the API server's, object by object.

toposched reads the input as the CLI and the service do: workloads through the front-end
registry (``Registry.compile``), Topology objects as a Topology file (``topologies_from_documents``).
Each Problem is given to the object it names (its path starts with the object's place in the
input: ``podGroups[NAME]``, ``documents[2]``, a KAI pod's ``pods[NAME]``, or nothing for a KAI
PodGroup or a topology) and compared, with that prefix taken off, with the fields the server
named for the object; what differs is a ``Difference`` (which ``run.EXPLAINED`` may cover).

The server validates one object at a time; toposched reads the input as a whole, so it also
refuses what no single object shows: ``DOCUMENTED`` lists those reasons, each with why.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from tests.realkube.diffval.corpus import Input
from tests.realkube.diffval.server import ServerAnswer

from toposched.frontends.kai import pod_path
from toposched.frontends.kube.load import document_path, objects_of
from toposched.frontends.registry import CompileContext, default_registry
from toposched.intake.cluster.topology import topologies_from_documents
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
    r"alias .* (must not equal a nodeLabel|is used twice)": (
        "KAI's Topology alias webhook (not run by the test control plane, which has KAI's CRDs only)"
    ),
}


@dataclass(frozen=True)
class Difference:
    """One object on which toposched and the server disagree, with what each said. ``what``:
    ``took`` (the server refused it, toposched took it), ``refused`` (toposched refused it for a
    reason the server does not have), ``fields`` (both refused it, naming other fields),
    ``unnamed`` (the server refused it naming no field, before validating it), ``input`` (a
    problem of the whole input, ``obj`` None) or ``crash``. ``missed``: fields the server named
    and toposched did not; ``extra``: fields toposched named, for reasons of its own it does not
    document, and the server did not (both normalised)."""

    where: str  # the object's place in the input (``podGroups[a]``), else its kind
    what: str
    obj: Mapping[str, Any] | None = None
    answer: ServerAnswer | None = None
    missed: frozenset[str] = frozenset()
    extra: frozenset[str] = frozenset()
    problems: tuple[Problem, ...] = ()

    @property
    def kind(self) -> str:
        return str(self.obj.get("kind")) if self.obj is not None else ""

    def __str__(self) -> str:
        said = "; ".join(str(p) for p in self.problems)[:400]
        server = self.answer.message[:400] if self.answer is not None else ""
        if self.what == "took":
            return f"{self.where}: the server refused it ({server}), toposched took it"
        if self.what == "refused":
            return f"{self.where}: refused for a reason the server does not have: {said}"
        if self.what == "unnamed":
            return f"{self.where}: server refused without fields: {server}"
        if self.what in ("input", "crash"):
            return f"{self.where}: {said or server}"
        stage = self.answer.stage if self.answer is not None else ""
        return (
            f"{self.where}: server ({stage}) names {sorted(self.missed)} that toposched does not, toposched "
            f"{sorted(self.extra)} that the server does not (server: {server}; toposched: {said})"
        )


@dataclass
class Verdict:
    """The comparison of one input: ``outcome`` is ``agree-accept``, ``agree-reject``,
    ``documented`` (the server takes every object, toposched refuses only for ``DOCUMENTED``
    reasons) or ``disagree``; ``differences`` say what differed."""

    input: Input
    outcome: str
    differences: list[Difference] = field(default_factory=list)
    documented: list[str] = field(default_factory=list)

    @property
    def details(self) -> list[str]:
        return [str(d) for d in self.differences]


def server_objects(item: Input) -> list[tuple[str, Mapping[str, Any]]]:
    """The objects sent to the server, each with the prefix of toposched's paths for it: the
    kube front end's document paths; a KAI PodGroup's fields unprefixed and its pods at
    ``pods[<name>]`` (``kai.pod_path``); a topology's unprefixed."""
    kube_reads_it = default_registry().choose(list(item.objects)).name == "kube"
    if item.family == "kube" and kube_reads_it:  # a Job without spec.scheduling is Kueue's
        return [
            (document_path(obj, where), obj)
            for where, obj in objects_of(list(item.objects))
            if isinstance(obj, Mapping)
        ]
    if item.family == "kai" and any(
        isinstance(o, Mapping) and o.get("kind") == "PodGroup" for o in item.objects
    ):
        return [
            (pod_path(obj, i) if obj.get("kind") == "Pod" else "", obj)
            for i, obj in enumerate(item.objects)
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
        return Verdict(item, "disagree", [Difference("input", "crash", problems=(Problem("", crash),))])
    prefixes = [prefix for prefix, _ in placed]
    claimed: set[int] = set()
    differences: list[Difference] = []
    for (prefix, obj), answer in zip(placed, answers, strict=True):
        mine = [
            (i, rel) for i, p in enumerate(problems) if (rel := _owned(prefix, p.path, prefixes)) is not None
        ]
        claimed.update(i for i, _ in mine)
        own = [problems[i] for i, _ in mine]
        fields = {normalised(rel) for i, rel in mine if documented_reason(problems[i]) is None}
        every = {normalised(rel) for _, rel in mine}
        found = _object_difference(prefix or str(obj.get("kind")), obj, answer, fields, every, own)
        differences += [found] if found is not None else []
    rest = [p for i, p in enumerate(problems) if i not in claimed and documented_reason(p) is None]
    differences += [Difference(p.path or "input", "input", problems=(p,)) for p in rest]
    if differences:
        return Verdict(item, "disagree", differences)
    if any(not a.accepted for a in answers):
        return Verdict(item, "agree-reject")
    if not problems:
        return Verdict(item, "agree-accept")
    return Verdict(
        item, "documented", [], sorted({r for p in problems if (r := documented_reason(p)) is not None})
    )


def _object_difference(
    where: str,
    obj: Mapping[str, Any],
    answer: ServerAnswer,
    fields: set[str],
    every: set[str],
    own: list[Problem],
) -> Difference | None:
    """How toposched's ``own`` problems of ``obj`` (``fields``: the undocumented ones' fields,
    ``every``: all of them) differ from the server's ``answer``; None when they agree."""
    theirs = {normalised(f) for f in answer.fields}

    def differ(what: str, missed: Iterable[str] = (), extra: Iterable[str] = ()) -> Difference:
        return Difference(where, what, obj, answer, frozenset(missed), frozenset(extra), tuple(own))

    if answer.accepted:
        return differ("refused", extra=fields) if fields else None
    if answer.stage == "decode":
        # the server answers a body that does not decode with that alone: toposched may have
        # found validation problems the server never reached
        if not own:
            return differ("took", missed=theirs)
        missed = {f for f in theirs if _without_indexes(f) not in {_without_indexes(m) for m in every}}
        return differ("fields", missed=missed) if missed else None
    if answer.stage in ("namespace", "unserved"):
        # refused before validation, at one field; toposched may say more of the object
        allowed = {"apiVersion", "kind"} if answer.stage == "unserved" else {"metadata.namespace"}
        return None if every & allowed else differ("fields" if own else "took", missed=theirs)
    if answer.stage == "other":
        return differ("unnamed")
    if not own:
        return differ("took", missed=theirs)
    missed, extra = theirs - every, fields - theirs  # toposched may add only documented reasons
    return differ("fields", missed, extra) if missed or extra else None
