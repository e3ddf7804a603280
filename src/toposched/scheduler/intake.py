"""Which front end reads a submitted spec: a small registry of ``text -> Gang`` loaders.

Each front end registers one ``FrontEnd`` entry: a name, the Kubernetes kinds it reads and a
predicate over the first parsed document. Entries are tried in order, so a front end that reads
the same kinds as another but recognises them by annotations (KAI next to Kueue) registers with
``first=True``. A caller may force the choice with a hint: a front-end name (``kueue``) or a kind
(``JobSet``).

Loaders get an ``IntakeContext``: the topology chosen for the submission, the other known
topologies (KAI level aliases, Grove ClusterTopologies) and the OSMO pools by name. The front
ends are registered by ``default_intake``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

import yaml

from toposched.frontends import grove, kai, kueue, osmo
from toposched.frontends.kueue.kinds import READERS as KUEUE_READERS
from toposched.frontends.osmo import Pool
from toposched.model import Gang, Group, Problem, SpecError, Topology, WorkloadSpecError
from toposched.wire.grove import cluster_topology_object

# libyaml's loader when PyYAML was built with it: about ten times faster, same documents.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@dataclass(frozen=True, slots=True)
class PoolEntry:
    """An OSMO pool the service knows, and the stored topology it uses (None = its own
    ``osmo-pool-<ns>-<pool>-topology``)."""

    pool: Pool
    topology: str | None = None


@dataclass(frozen=True, slots=True)
class IntakeContext:
    """What a loader may read besides the spec text."""

    topology: Topology | None = None  # the topology chosen for this submission, if any
    topologies: tuple[Topology, ...] = ()  # every topology known (aliases, Grove ClusterTopologies)
    pool_config: Mapping[str, PoolEntry] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def catalog(self) -> tuple[Topology, ...]:
        """The chosen topology first, then the others under names not taken yet."""
        first = (self.topology,) if self.topology is not None else ()
        names = {t.name for t in first}
        return (*first, *(t for t in self.topologies if t.name not in names))


Loader = Callable[[str, IntakeContext], Gang]
Compiler = Callable[[list[Any], IntakeContext], Gang]  # the same, from the parsed YAML documents
Matcher = Callable[[Mapping[str, Any]], bool]


@dataclass(frozen=True, slots=True)
class FrontEnd:
    """One front end: ``load(text, context)`` compiles a spec or raises ``WorkloadSpecError``."""

    name: str
    kinds: frozenset[str]
    load: Loader
    matches: Matcher = field(default=lambda doc: True)
    # Optional: compiles already-parsed documents, so ``Intake.load`` parses the YAML only once.
    compile: Compiler | None = None


class Intake:
    """The registry. ``load`` picks a front end and compiles the spec with it.

    ``context`` (optional) supplies the known topologies and pools for every load; a caller's
    ``topology`` and ``context`` arguments take precedence."""

    def __init__(
        self,
        front_ends: tuple[FrontEnd, ...] = (),
        *,
        context: Callable[[], IntakeContext] | None = None,
    ) -> None:
        self._entries: list[FrontEnd] = list(front_ends)
        self._context = context

    def bind(self, context: Callable[[], IntakeContext] | None) -> None:
        """Set where the default context (topologies, pools) comes from."""
        self._context = context

    @property
    def bound(self) -> bool:
        """Whether a default context provider is set."""
        return self._context is not None

    def register(self, front_end: FrontEnd, *, first: bool = False) -> None:
        """Add a front end (replacing one of the same name); ``first`` tries it before the others."""
        self._entries = [e for e in self._entries if e.name != front_end.name]
        if first:
            self._entries.insert(0, front_end)
        else:
            self._entries.append(front_end)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self._entries)

    def knows(self, hint: str) -> bool:
        """Whether ``hint`` names a registered front end or a kind one of them reads."""
        return any(hint.lower() == e.name.lower() or hint in e.kinds for e in self._entries)

    def choose(self, text: str, kind: str | None = None) -> FrontEnd:
        """The front end for ``text``: by hint when given, else the first whose predicate matches."""
        return self._choose(_first_document(text), kind)

    def _choose(self, doc: Mapping[str, Any] | None, kind: str | None) -> FrontEnd:
        """``choose`` given the first parsed document (None: none, or not a mapping)."""
        if not self._entries:
            raise WorkloadSpecError([Problem("", "no workload front end is registered", "")])
        if kind:
            for entry in self._entries:
                if kind.lower() == entry.name.lower():
                    return entry
            by_kind = [e for e in self._entries if kind in e.kinds]
            if not by_kind:
                raise WorkloadSpecError(
                    [Problem("kind", f"unknown kind hint {kind!r}", f"use one of: {self._known()}")]
                )
            return next((e for e in by_kind if doc is not None and e.matches(doc)), by_kind[0])
        if doc is None:
            return self._entries[-1]  # let the default front end report the syntax error or empty input
        for entry in self._entries:
            if entry.matches(doc):
                return entry
        seen = f"{doc.get('apiVersion', '?')} {doc.get('kind', '?')}"
        raise WorkloadSpecError(
            [Problem("kind", f"no front end reads {seen}", f"submit one of: {self._known()}")]
        )

    def load(
        self,
        text: str,
        *,
        kind: str | None = None,
        topology: Topology | None = None,
        context: IntakeContext | None = None,
    ) -> Gang:
        """Validate and compile ``text``; raises ``WorkloadSpecError`` listing every problem."""
        ctx = context or (self._context() if self._context is not None else IntakeContext())
        if topology is not None:
            ctx = replace(ctx, topology=topology)
        try:
            docs = [d for d in yaml.load_all(text, Loader=_LOADER) if d is not None]
        except yaml.YAMLError:
            return self.choose(text, kind).load(text, ctx)  # the front end reports the syntax error
        entry = self._choose(docs[0] if docs and isinstance(docs[0], Mapping) else None, kind)
        return entry.compile(docs, ctx) if entry.compile is not None else entry.load(text, ctx)

    def _known(self) -> str:
        kinds = sorted({k for e in self._entries for k in e.kinds})
        return ", ".join([*self.names, *kinds])


def _first_document(text: str) -> Mapping[str, Any] | None:
    try:
        for doc in yaml.load_all(text, Loader=_LOADER):
            if doc is not None:
                return doc if isinstance(doc, Mapping) else None
    except yaml.YAMLError:
        return None
    return None


def _kueue_matches(doc: Mapping[str, Any]) -> bool:
    kind = doc.get("kind")
    if kind in ("Pod", "List"):
        return True
    entry = KUEUE_READERS.get(str(kind))
    return entry is not None and str(doc.get("apiVersion", "")).split("/")[0] == entry[0].split("/")[0]


def _load_kueue(text: str, context: IntakeContext) -> Gang:
    return kueue.load_workload(text, context.topology, source="spec")


def _compile_kueue(docs: list[Any], context: IntakeContext) -> Gang:
    return kueue.compile_workload(docs, context.topology)


KUEUE = FrontEnd("kueue", frozenset([*KUEUE_READERS, "Pod"]), _load_kueue, _kueue_matches, _compile_kueue)


def _documents(text: str) -> list[Any]:
    try:
        return [d for d in yaml.load_all(text, Loader=_LOADER) if d is not None]
    except yaml.YAMLError as exc:
        raise WorkloadSpecError([Problem("spec", f"not valid YAML: {exc}", "fix the syntax")]) from None


def _one_gang(gangs: list[Gang], name: str | None = None) -> Gang:
    """Several gangs of one submission (OSMO groups, LWS replica groups) as one all-or-nothing
    gang: their roots become children of a new root."""
    if not gangs:
        raise WorkloadSpecError([Problem("spec", "the workload has no pods", "add pods or replicas")])
    if len(gangs) == 1:
        return gangs[0]
    first = gangs[0]
    root = Group(name or first.name, children=tuple(g.root for g in gangs), topology=first.topology)
    return replace(first, name=name or first.name, root=root, min_member=None)


def _load_kai(text: str, context: IntakeContext) -> Gang:
    loaded = kai.load_kai(_documents(text), context.catalog)
    return _one_gang(list(loaded.gangs))


def _load_osmo(text: str, context: IntakeContext) -> Gang:
    docs = _documents(text)
    doc = docs[0] if docs and isinstance(docs[0], Mapping) else {}
    inner = doc.get("workflow")
    named = doc.get("pool") or (inner.get("pool") if isinstance(inner, Mapping) else None)
    pools = context.pool_config
    if named is None and len(pools) == 1:
        named = next(iter(pools))
    entry = pools.get(str(named)) if named is not None else None
    if entry is None:
        known = ", ".join(sorted(pools)) or "none"
        raise WorkloadSpecError(
            [
                Problem(
                    "pool", f"unknown pool {named!r}" if named else "no pool named", f"known pools: {known}"
                )
            ]
        )
    workflow = osmo.parse_workflow(doc, entry.pool)
    topology = context.topology.name if context.topology is not None else entry.topology
    gangs = [_renamed(osmo.to_gang(cg), topology) for cg in osmo.compile_workflow(workflow, entry.pool)]
    return _one_gang(gangs, workflow.name)


def _renamed(gang: Gang, topology: str | None) -> Gang:
    """The gang on the stored topology the pool uses (levels are the pool's labels either way)."""
    if topology is None or gang.topology is None:
        return gang

    def walk(group: Group) -> Group:
        kids = tuple(walk(c) for c in group.children)
        return replace(group, children=kids, topology=topology if group.topology else None)

    return replace(gang, root=walk(gang.root), topology=topology)


def _load_grove(text: str, context: IntakeContext) -> Gang:
    docs = _documents(text)
    try:
        loaded = grove.load_grove(docs, [cluster_topology_object(t) for t in context.catalog])
    except SpecError as exc:
        raise WorkloadSpecError(exc.problems) from None
    return loaded.gang


def _kai_matches(doc: Mapping[str, Any]) -> bool:
    return kai.is_kai_document(doc)


def _osmo_matches(doc: Mapping[str, Any]) -> bool:
    return "workflow" in doc and "kind" not in doc


def _grove_matches(doc: Mapping[str, Any]) -> bool:
    return doc.get("kind") == "PodCliqueSet"


KAI = FrontEnd("kai", frozenset([*kai.WORKLOAD_KINDS, "PodGroup"]), _load_kai, _kai_matches)
OSMO = FrontEnd("osmo", frozenset(["Workflow"]), _load_osmo, _osmo_matches)
GROVE = FrontEnd("grove", frozenset(["PodCliqueSet"]), _load_grove, _grove_matches)


def default_intake(context: Callable[[], IntakeContext] | None = None) -> Intake:
    """A registry with every front end: Grove and OSMO (recognised by kind / ``workflow:``), then
    KAI (before Kueue: it recognises the same kinds by their ``kai.scheduler/*`` keys; Grove
    objects carry KAI queue labels too, hence Grove first), then Kueue."""
    return Intake((GROVE, OSMO, KAI, KUEUE), context=context)
