"""The front-end registry: every caller (CLI, service, simulator, controller) turns parsed
documents into a gang here, and nothing but the registry chooses a front end.

A ``Frontend`` recognises a parsed document set and compiles it, with a ``CompileContext`` of
known topologies and OSMO pools, into one all-or-nothing ``Gang`` plus the objects its upstream
controller would create, the topologies the input itself brings, and warnings. Front ends are
tried in registration order; one that reads the same kinds as another but recognises them by
annotations (KAI next to Kueue) comes first. The last one is the default: it compiles inputs no
front end recognises, so its own message names what it supports.

A document of the input may name the policy its workload is placed under with the annotation
``toposched.io/policy`` (``Gang.policy``; it wins over the caller's choice); the front ends set
only their default (``Gang.default_policy``). The name is checked against the policies a caller
knows when it places the gang. The annotation ``toposched.io/run-seconds`` declares how long the
workload runs (``Gang.run_seconds``), which the scheduler's reservations plan with.

``compile_for`` also settles which topology the input uses: the one asked for, else the one the
spec names, else the caller's default (a Topology file given on the command line), else the only
one known.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Protocol

from toposched.frontends import grove, kai, kube, kueue
from toposched.frontends.annotations import declared_run_seconds, named_policy
from toposched.frontends.collector import collector_paused
from toposched.frontends.kai.membership import KaiPodGroups
from toposched.frontends.kube.membership import KubePodGroups
from toposched.frontends.kueue.kinds import READERS as KUEUE_READERS
from toposched.frontends.kueue.membership import KueuePodGroups
from toposched.frontends.membership import Membership
from toposched.intake.cluster import parse_topology_object
from toposched.intake.parse import first_mapping
from toposched.model import (
    MAX_PODS_PER_GANG,
    Gang,
    Group,
    NotFoundError,
    Problem,
    SpecError,
    Topology,
    WorkloadSpecError,
)
from toposched.wire.core import pod_object
from toposched.wire.grove import cluster_topology_object

if TYPE_CHECKING:
    from toposched.frontends import osmo
    from toposched.frontends.osmo import Pool as Pool
    from toposched.frontends.osmo import parse_pool as parse_pool
    from toposched.frontends.osmo import pool_keys as pool_keys

Documents = Sequence[Any]

# OSMO pools: the service manages them under OSMO's own rules, and reaches them here as it
# reaches every front end (through this registry, never a front-end package). The OSMO front end
# (and pydantic, which reads its pools) loads on first use: a command placing a Kueue job skips it.
_OSMO_NAMES = frozenset({"Pool", "parse_pool", "pool_keys"})


def __getattr__(name: str) -> Any:
    if name in _OSMO_NAMES:
        from toposched.frontends import osmo

        return getattr(osmo, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True, slots=True)
class PoolEntry:
    """An OSMO pool and the stored topology it uses (None = its own
    ``osmo-pool-<ns>-<pool>-topology``, which the compiled input brings)."""

    pool: osmo.Pool
    topology: str | None = None


@dataclass(frozen=True, slots=True)
class CompileContext:
    """What a front end may read besides the documents."""

    topologies: tuple[Topology, ...] = ()  # every topology known (level aliases, Grove ClusterTopologies)
    pools: Mapping[str, PoolEntry] = field(default_factory=lambda: MappingProxyType({}))
    topology: Topology | None = None  # the topology chosen for this input, when already known
    priority: str | None = None  # a priority asked for at submission (OSMO: HIGH, NORMAL, LOW)
    max_pods: int = MAX_PODS_PER_GANG  # pods one gang may have; larger inputs are refused unbuilt

    @property
    def catalog(self) -> tuple[Topology, ...]:
        """The chosen topology first, then the others under names not taken yet."""
        first = (self.topology,) if self.topology is not None else ()
        names = {t.name for t in first}
        return (*first, *(t for t in self.topologies if t.name not in names))


@dataclass(frozen=True, slots=True)
class Compiled:
    """One compiled input."""

    frontend: str
    gang: Gang
    objects: tuple[Mapping[str, Any], ...] = ()  # what the upstream controller would create
    topologies: tuple[Topology, ...] = ()  # topologies the input brings (OSMO pool, Grove file)
    warnings: tuple[str, ...] = ()
    pool: str = ""  # the OSMO pool the input runs in ("" for none)


class Frontend(Protocol):
    """One front end: a name, the kinds it reads, a recogniser and a compiler.
    ``input_names_topology``: ``compile`` never reads the chosen topology (``context.topology``):
    the input names its own (an OSMO pool's, the ones an upstream input brings, a KAI or Grove
    name looked up among every known topology) or none, when the caller's default is used; so
    one compile settles both the gang and its topology. ``membership``: how the pods of its
    gangs name them in a running cluster and which objects complete them (``membership``), for
    the controller; None when its pods are another front end's (OSMO and Grove pods are KAI's)."""

    @property
    def name(self) -> str: ...

    @property
    def membership(self) -> Membership | None: ...

    @property
    def kinds(self) -> frozenset[str]: ...

    @property
    def input_names_topology(self) -> bool: ...

    def recognises(self, documents: Documents) -> bool: ...

    def compile(self, documents: Documents, context: CompileContext) -> Compiled: ...


class Registry:
    """The front ends, in the order they are tried."""

    def __init__(self, frontends: Sequence[Frontend] = ()) -> None:
        self._entries: list[Frontend] = list(frontends)

    def register(self, frontend: Frontend, *, first: bool = False) -> None:
        """Add a front end (replacing one of the same name); ``first`` tries it before the others."""
        self._entries = [e for e in self._entries if e.name != frontend.name]
        self._entries.insert(0 if first else len(self._entries), frontend)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(e.name for e in self._entries)

    @property
    def memberships(self) -> tuple[Membership, ...]:
        """The membership rules of the front ends, in the order they are tried: a pod belongs to
        the gang the first of them finds it names."""
        return tuple(e.membership for e in self._entries if e.membership is not None)

    def choose(self, documents: Documents, hint: str | None = None) -> Frontend:
        """The front end for ``documents``: by hint (a front-end name or a kind) when given, else
        the first that recognises them, else the default (last) one."""
        if not self._entries:
            raise WorkloadSpecError([Problem("", "no workload front end is registered", "")])
        if hint:
            for entry in self._entries:
                if hint.lower() == entry.name.lower():
                    return entry
            by_kind = [e for e in self._entries if hint in e.kinds]
            if not by_kind:
                known = ", ".join([*self.names, *sorted({k for e in self._entries for k in e.kinds})])
                raise WorkloadSpecError(
                    [Problem("kind", f"unknown kind hint {hint!r}", f"use one of: {known}")]
                )
            return next((e for e in by_kind if e.recognises(documents)), by_kind[0])
        return next((e for e in self._entries if e.recognises(documents)), self._entries[-1])

    def compile(self, documents: Documents, context: CompileContext, *, hint: str | None = None) -> Compiled:
        """Validate and compile ``documents``; raises ``SpecError`` listing every problem."""
        return _compile(self._choose_for(documents, hint), documents, context)

    def compile_for(
        self,
        documents: Documents,
        context: CompileContext,
        *,
        topology: str | None = None,
        default: str | None = None,
        hint: str | None = None,
    ) -> tuple[Topology, Compiled]:
        """The topology the input uses and the input compiled against it: ``topology`` when
        given, else the one the spec names, else ``default`` (the caller's: the CLI's Topology
        file or the cluster's only topology, the service's only shared one). The front end is
        chosen once; the input is compiled once, twice only when a front end that reads the
        chosen topology learns from a first compile that the spec names another."""
        frontend = self._choose_for(documents, hint)
        by_name = {t.name: t for t in context.topologies}
        if topology:
            chosen = _known(by_name, topology)
            return chosen, _compile(frontend, documents, replace(context, topology=chosen))
        if frontend.input_names_topology:
            once = _compile(frontend, documents, replace(context, topology=None))
            return _named(once, by_name, default), once
        fallback = default
        first = by_name.get(fallback) if fallback is not None else None
        probe: Compiled | None = None
        try:
            probe = _compile(frontend, documents, replace(context, topology=first))
        except SpecError:
            if first is None:
                raise
        if probe is not None and first is not None and probe.gang.topology in (None, "", first.name):
            return first, probe
        # No default, or the spec names another topology (or does not compile against the
        # default): learn which topology it names, then compile against that.
        if probe is None:
            probe = _compile(frontend, documents, replace(context, topology=None))
        chosen = _named(probe, by_name, fallback)
        return chosen, _compile(frontend, documents, replace(context, topology=chosen))

    def _choose_for(self, documents: Documents, hint: str | None) -> Frontend:
        if not documents:
            raise WorkloadSpecError([Problem("", "the input has no documents", "give a workload spec")])
        return self.choose(documents, hint)


def _compile(frontend: Frontend, documents: Documents, context: CompileContext) -> Compiled:
    """One front end's compile, with the policy and the run time the documents name stamped on
    the gang."""
    named = named_policy(documents)
    run_seconds = declared_run_seconds(documents)
    with collector_paused():
        compiled = frontend.compile(documents, context)
    if named is None and run_seconds is None:
        return compiled
    gang = compiled.gang
    if named is not None:
        gang = replace(gang, policy=named)
    if run_seconds is not None:
        gang = replace(gang, run_seconds=run_seconds)
    return replace(compiled, gang=gang)


def _named(compiled: Compiled, by_name: Mapping[str, Topology], fallback: str | None) -> Topology:
    """The topology a compiled input names (a known one, else one it brings), else ``fallback``."""
    named = compiled.gang.topology or fallback
    if named is None:
        raise SpecError([_no_topology(by_name)])
    brought = {t.name: t for t in compiled.topologies}
    return by_name.get(named) or brought.get(named) or _known(by_name, named)


def _known(by_name: Mapping[str, Topology], name: str) -> Topology:
    found = by_name.get(name)
    if found is None:
        known = ", ".join(sorted(by_name)) or "none"
        raise NotFoundError("topology", name, f"known topologies: {known}")
    return found


def _no_topology(by_name: Mapping[str, Topology]) -> Problem:
    if by_name:
        return Problem(
            "topology",
            f"is needed: the cluster defines {', '.join(by_name)}",
            "name the one to use",
        )
    return Problem(
        "topology",
        "is needed: the cluster has no Topology",
        "add a Topology object to the cluster, or pass --topology FILE",
    )


def one_gang(gangs: Sequence[Gang], name: str | None = None) -> Gang:
    """Several gangs of one input (OSMO groups, LWS replica groups) as one all-or-nothing gang:
    their roots become children of a new, unconstrained root."""
    if not gangs:
        raise WorkloadSpecError([Problem("", "the input has no pods", "add pods or replicas")])
    if len(gangs) == 1:
        return gangs[0]
    first = gangs[0]
    root = Group(name or first.name, children=tuple(g.root for g in gangs), topology=first.topology)
    return replace(first, name=name or first.name, root=root, min_member=None)


# -- the front ends -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class KueueFrontend:
    """Kueue-annotated Job, JobSet, LeaderWorkerSet, MPIJob, PyTorchJob, or a group of Pods."""

    name: str = "kueue"
    kinds: frozenset[str] = frozenset([*KUEUE_READERS, "Pod"])
    input_names_topology: bool = False
    membership: Membership | None = field(default_factory=KueuePodGroups)

    def recognises(self, documents: Documents) -> bool:
        doc = first_mapping(list(documents))
        if doc is None:
            return False
        kind = doc.get("kind")
        if kind in ("Pod", "List"):
            return True
        entry = KUEUE_READERS.get(str(kind))
        return entry is not None and str(doc.get("apiVersion", "")).split("/")[0] == entry[0].split("/")[0]

    def compile(self, documents: Documents, context: CompileContext) -> Compiled:
        return Compiled(
            self.name, kueue.compile_workload(documents, context.topology, max_pods=context.max_pods)
        )


@dataclass(frozen=True, slots=True)
class KaiFrontend:
    """KAI-annotated workloads, a workload with its Pods, a PodGroup with its Pods."""

    name: str = "kai"
    kinds: frozenset[str] = frozenset([*kai.WORKLOAD_KINDS, "PodGroup"])
    input_names_topology: bool = True  # named topologies are looked up in the catalog
    membership: Membership | None = field(default_factory=KaiPodGroups)  # KAI's, OSMO's and Grove's pods

    def recognises(self, documents: Documents) -> bool:
        return any(isinstance(d, Mapping) and kai.is_kai_document(d) for d in documents)

    def compile(self, documents: Documents, context: CompileContext) -> Compiled:
        loaded = kai.load_kai(documents, context.catalog, max_pods=context.max_pods)
        namespaces = {g.name: g.namespace for g in loaded.pod_groups}
        metadata = loaded.pod_metadata()
        pods = [
            pod_object(pod.spec.name, namespaces[pod.pod_group], **metadata[pod.spec.name])
            for pod in loaded.pods
        ]
        objects = (*(g.to_object() for g in loaded.pod_groups), *pods)
        return Compiled(self.name, one_gang(list(loaded.gangs)), objects, warnings=tuple(loaded.warnings))


@dataclass(frozen=True, slots=True)
class OsmoFrontend:
    """An OSMO workflow, for a pool of the context (named by the workflow, else the only one)."""

    name: str = "osmo"
    kinds: frozenset[str] = frozenset(["Workflow"])
    input_names_topology: bool = True
    membership: Membership | None = None  # its pods name KAI PodGroups

    def recognises(self, documents: Documents) -> bool:
        return any(isinstance(d, Mapping) and "workflow" in d and "kind" not in d for d in documents)

    def compile(self, documents: Documents, context: CompileContext) -> Compiled:
        doc = next((d for d in documents if isinstance(d, Mapping) and "workflow" in d), None)
        if doc is None:
            raise WorkloadSpecError(
                [Problem("workflow", "is missing", "an OSMO workflow has a workflow: section")]
            )
        from toposched.frontends import osmo

        entry = _pool_of(doc, context.pools)
        workflow = osmo.parse_workflow(doc, entry.pool, max_pods=context.max_pods)
        priority = context.priority or osmo.Priority.NORMAL
        compiled = osmo.compile_workflow(workflow, entry.pool, priority)
        # The pool's topology (stored, else its own) wins over a default: its levels are the pool's.
        gangs = [_on_topology(osmo.to_gang(cg), entry.topology) for cg in compiled]
        brought: tuple[Topology, ...] = ()
        own = osmo.topology_object(entry.pool)
        if entry.topology is None and own is not None:
            brought = (parse_topology_object(own),)
        objects = (osmo.compile_objects(workflow, entry.pool, priority, compiled),)
        return Compiled(self.name, one_gang(gangs, workflow.name), objects, brought, pool=entry.pool.name)


def _pool_of(doc: Mapping[str, Any], pools: Mapping[str, PoolEntry]) -> PoolEntry:
    inner = doc.get("workflow")
    named = doc.get("pool") or (inner.get("pool") if isinstance(inner, Mapping) else None)
    if named is None and len(pools) == 1:
        named = next(iter(pools))
    entry = pools.get(str(named)) if named is not None else None
    if not pools:
        raise WorkloadSpecError(
            [
                Problem(
                    "pool",
                    "is missing",
                    "an OSMO workflow needs its pool: place and compile take a pool file (--pool "
                    "POOL.yaml); the service a stored pool (toposched pool put POOL.yaml, then "
                    "submit --pool NAME or name it in the workflow)",
                )
            ]
        )
    if entry is None:
        known = ", ".join(sorted(pools)) or "none"
        what = f"unknown pool {named!r}" if named else "no pool named"
        raise WorkloadSpecError([Problem("pool", what, f"known pools: {known}")])
    return entry


def _on_topology(gang: Gang, topology: str | None) -> Gang:
    """The gang on the stored topology the pool uses (levels are the pool's labels either way)."""
    if topology is None or gang.topology is None:
        return gang

    def walk(group: Group) -> Group:
        kids = tuple(walk(c) for c in group.children)
        return replace(group, children=kids, topology=topology if group.topology else None)

    return replace(gang, root=walk(gang.root), topology=topology)


@dataclass(frozen=True, slots=True)
class GroveFrontend:
    """A Grove PodCliqueSet, admitted against the known topologies as Grove's webhook does."""

    name: str = "grove"
    kinds: frozenset[str] = frozenset(["PodCliqueSet"])
    input_names_topology: bool = True  # named topologies are looked up in the catalog
    membership: Membership | None = None  # its pods name KAI PodGroups (PodGangs)

    def recognises(self, documents: Documents) -> bool:
        return any(isinstance(d, Mapping) and d.get("kind") == "PodCliqueSet" for d in documents)

    def compile(self, documents: Documents, context: CompileContext) -> Compiled:
        existing = [cluster_topology_object(t) for t in context.catalog]
        try:
            loaded = grove.load_grove(documents, existing, max_pods=context.max_pods)
        except SpecError as exc:
            raise WorkloadSpecError(exc.problems) from None
        brought = (loaded.topology.to_topology(),) if loaded.topology is not None else ()
        objects = (*loaded.podgangs, *loaded.podgroups)
        return Compiled(self.name, loaded.gang, objects, brought, tuple(loaded.warnings))


@dataclass(frozen=True, slots=True)
class KubeFrontend:
    """Upstream Kubernetes: Workload, PodGroup and CompositePodGroup (``scheduling.k8s.io``) with
    their Pods, and Jobs with ``spec.scheduling``."""

    name: str = "kube"
    kinds: frozenset[str] = frozenset(["Workload", "PodGroup", "CompositePodGroup"])
    input_names_topology: bool = True
    membership: Membership | None = field(default_factory=KubePodGroups)

    def recognises(self, documents: Documents) -> bool:
        return kube.is_kube_input(documents)

    def compile(self, documents: Documents, context: CompileContext) -> Compiled:
        loaded = kube.load_kube(documents, max_pods=context.max_pods)
        return Compiled(self.name, loaded.gang, loaded.objects, loaded.topologies, loaded.warnings)


def default_registry() -> Registry:
    """Every front end: Grove and OSMO (recognised by kind / ``workflow:``), then KAI (before
    Kueue: it recognises the same kinds by their ``kai.scheduler/*`` keys; Grove objects carry KAI
    queue labels too, hence Grove first), then kube (before Kueue, which also reads Jobs and Pods:
    kube recognises ``scheduling.k8s.io`` objects, a Job with ``spec.scheduling`` and Pods with
    ``spec.schedulingGroup``), then Kueue, the default."""
    return Registry((GroveFrontend(), OsmoFrontend(), KaiFrontend(), KubeFrontend(), KueueFrontend()))
