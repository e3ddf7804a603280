"""The placement session: how every caller places, with one options value.

``open_session`` is the one factory. A caller (a CLI command, the scheduler's loop, an
explanation, the simulator, the controller) makes one and keeps it for as long as its
placements belong together; the session owns the topology trees and snapshots it builds, the
engine's caches (``EngineCaches``: what placements derive from a snapshot, kept for the next one
on it), the clock its searches are bounded by and the policies it knows by name, and applies the
caller's ``PlacementOptions`` to every placement: the policy precedence
(``PlacementOptions.policy_for``), the search mode and the search budget. Bookings that several
placements make on its snapshots go through a ``Statement`` (checkpoint, rollback, commit).

A caller that places its gangs in rounds (the scheduler's cycles) names each gang by a key and
opens a round per pass (``begin_round``): the exact searches of a round then share
``PlacementOptions.round_seconds``, a search goes on across rounds, and a refusal is kept until
the snapshots or the gang change (``toposched.engine.exact.rounds``). Without a key a placement is
searched to its own budget at once.

A session is used by one thread at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping, Sequence

from toposched.engine.core.budget import SearchBudget, WorkClock, WorkMeter
from toposched.engine.core.caches import EngineCaches
from toposched.engine.core.options import PlacementOptions
from toposched.engine.core.policy_registry import PlacementPolicy, PolicyRegistry
from toposched.engine.core.statement import Statement, Usage
from toposched.engine.exact.rounds import ExactRounds, state_of
from toposched.engine.place import hierarchical, named_topologies, place_gang
from toposched.engine.profiles import builtin
from toposched.engine.replace import replace_failed_node
from toposched.model import (
    POLICY_FIELD,
    Cluster,
    Gang,
    Node,
    Placement,
    RunningPod,
    Search,
    Semantics,
    Topology,
    TopologyAssignment,
    Unschedulable,
)
from toposched.snapshot import Snapshot
from toposched.topology import TopologyTree

Clock = Callable[[], float]
_TREES = 16  # trees kept: the topologies of one cluster, and a few node sets (explain, defrag)


class PlacementSession:
    """One caller's placements (made by ``open_session``)."""

    def __init__(
        self, options: PlacementOptions, policies: PolicyRegistry, clock: Clock | None, meter: WorkMeter
    ) -> None:
        self.options = options
        self.policies = policies
        self.meter = meter  # steps searched in this session
        self.clock: Clock = clock if clock is not None else WorkClock(meter)
        self.caches = EngineCaches()
        self.rounds = ExactRounds(options.round_seconds, self.clock)
        # By (topology name, levels, the node list's id): the node list and topology it was built
        # for (compared on use: an id may be reused) and the tree.
        self._trees: dict[
            tuple[str, tuple[str, ...], int], tuple[Sequence[Node], Topology, TopologyTree]
        ] = {}

    # -- options ---------------------------------------------------------------------------------
    def policy_of(self, gang: Gang, chosen: str | None = None) -> PlacementPolicy:
        """The policy ``gang`` is placed under: ``chosen`` when the caller settled it already
        (the policy an admitted gang was placed under), else ``PlacementOptions.policy_for``.
        ``SpecError`` for an unknown name, on the workload's annotation when it named it."""
        if chosen is not None:
            return self.policies.get(chosen)
        field = POLICY_FIELD if gang.policy else "policy"
        return self.policies.get(self.options.policy_for(gang), field=field)

    def budget(self, seconds: float | None = None) -> SearchBudget:
        """The budget of one search from now: the options' steps, and ``seconds`` (the options'
        by default) of the session's clock."""
        clock, limit = self.clock, self.options.seconds if seconds is None else seconds
        start = clock()
        return SearchBudget(self.options.steps, lambda: clock() - start > limit, self.meter)

    # -- trees and snapshots ---------------------------------------------------------------------
    def tree(self, topology: Topology, nodes: Sequence[Node]) -> TopologyTree:
        """The tree of ``topology`` over ``nodes``, built once for the same topology and node
        list."""
        key = (topology.name, topology.levels, id(nodes))
        kept = self._trees.get(key)
        if kept is not None and kept[0] is nodes and kept[1] == topology:
            return kept[2]
        if len(self._trees) >= _TREES:
            self._trees.clear()
        tree = TopologyTree.build(topology, nodes)
        self._trees[key] = (nodes, topology, tree)
        return tree

    def snapshot(self, topology: Topology, nodes: Sequence[Node], pods: Sequence[RunningPod]) -> Snapshot:
        """A new snapshot of ``topology`` over ``nodes`` with ``pods`` running."""
        return Snapshot.build(self.tree(topology, nodes), pods)

    def snapshots(
        self,
        gang: Gang,
        cluster: Cluster,
        topology: Topology | None = None,
        policy: PlacementPolicy | None = None,
    ) -> tuple[Snapshot, dict[str, Snapshot]]:
        """The snapshot ``gang`` is placed on (of ``topology``, else the one it names, else the
        options' default, else the cluster's only one) and, for the hierarchical and
        kube-scheduler solvers, one of every topology its groups name, by name."""
        policy = policy if policy is not None else self.policy_of(gang)
        several = hierarchical(gang, policy) or gang.semantics is Semantics.KUBE
        if several and cluster.topologies:
            by_name = {t.name: t for t in cluster.topologies}
            if topology is not None:
                by_name[topology.name] = topology
            named = [n for n in named_topologies(gang) if n in by_name]
            main = topology.name if topology is not None else (named or sorted(by_name))[0]
            snaps = {
                n: self.snapshot(by_name[n], cluster.nodes, cluster.pods) for n in sorted({main, *named})
            }
            return snaps[main], snaps
        chosen = (
            topology if topology is not None else cluster.topology(gang.topology or self.options.topology)
        )
        return self.snapshot(chosen, cluster.nodes, cluster.pods), {}

    def statement(
        self, snapshots: Sequence[Snapshot], booked: Mapping[str, Usage] | None = None
    ) -> Statement:
        """A statement over ``snapshots`` (``booked``: what is booked on them already, by key)."""
        return Statement(snapshots, booked)

    # -- placing ---------------------------------------------------------------------------------
    def place(
        self,
        gang: Gang,
        snapshot: Snapshot,
        snapshots: Mapping[str, Snapshot] | None = None,
        *,
        policy: str | None = None,
        search: Search | None = None,
        budget: SearchBudget | None = None,
        probe: bool = True,
        key: Hashable | None = None,
    ) -> Placement | Unschedulable:
        """Place ``gang`` on ``snapshot`` (and ``snapshots`` by topology name) under the options;
        the snapshots are not changed. ``policy`` and ``search`` stand for the options' when
        given; ``budget`` for a new one (``budget``). A faithful refusal says in its note whether
        the complete search would place the gang (``probe``). ``key`` (a caller's name for the
        gang, e.g. its workload): the gang is placed in the current round (``begin_round``)."""
        rules = self.policy_of(gang, policy)
        mode = self.options.search if search is None else search
        if key is None:
            return place_gang(
                gang,
                snapshot,
                policy=rules,
                snapshots=snapshots,
                search=mode,
                budget=budget if budget is not None else self.budget(),
                probe=probe,
                caches=self.caches,
            )
        entry = self.rounds.kept(key, gang, rules.name, state_of(snapshot, snapshots))
        if entry.refusal is not None:
            return entry.refusal  # nothing changed since it was refused
        options = self.options

        def run() -> Placement | Unschedulable:
            return place_gang(
                gang,
                snapshot,
                policy=rules,
                snapshots=snapshots,
                search=mode,
                budget=self.rounds.budget(entry, options.steps, options.seconds, self.meter),
                probe=probe,
                caches=self.caches,
                resumable=entry.resumable,
            )

        found = self.rounds.search(entry, run)
        if isinstance(found, Placement):
            self.rounds.forget(key)
        return found

    def begin_round(self) -> None:
        """A new round of keyed placements (a scheduling cycle): its exact-search share is whole."""
        self.rounds.begin()

    def forget(self, key: Hashable) -> None:
        """Drop what the session keeps for ``key`` (its workload ended)."""
        self.rounds.forget(key)

    def place_on(
        self,
        gang: Gang,
        cluster: Cluster,
        topology: Topology | None = None,
        *,
        policy: str | None = None,
        search: Search | None = None,
        budget: SearchBudget | None = None,
        probe: bool = True,
    ) -> Placement | Unschedulable:
        """``place`` on the snapshots of ``cluster`` (``snapshots``)."""
        rules = self.policy_of(gang, policy)
        main, snaps = self.snapshots(gang, cluster, topology, rules)
        return self.place(
            gang, main, snaps or None, policy=rules.name, search=search, budget=budget, probe=probe
        )

    def replace_failed_node(
        self,
        gang: Gang,
        snapshot: Snapshot,
        current: Mapping[str, TopologyAssignment],
        failed_hostname: str,
        policy: str,
    ) -> Placement | Unschedulable:
        """The gang's placement with the pods of ``failed_hostname`` moved (Kueue's replacement,
        ``toposched.engine.replace``) under ``policy``, the one it was placed under."""
        return replace_failed_node(gang, snapshot, current, failed_hostname, policy=self.policies.get(policy))


def open_session(
    options: PlacementOptions | None = None,
    *,
    policies: PolicyRegistry | None = None,
    clock: Clock | None = None,
) -> PlacementSession:
    """A placement session with ``options`` (the defaults: ``PlacementOptions()``), the policies
    of ``policies`` (the built-in ones by default) and searches bounded in time by ``clock``
    (seconds; None: a ``WorkClock`` of the session's own search steps)."""
    return PlacementSession(
        options if options is not None else PlacementOptions(),
        policies if policies is not None else builtin(),
        clock,
        WorkMeter(),
    )


def place(
    gang: Gang,
    cluster: Cluster,
    *,
    topology: Topology | None = None,
    policy: str | None = None,
    search: Search = Search.FAITHFUL,
    budget: SearchBudget | None = None,
    probe: bool = False,
) -> Placement | Unschedulable:
    """Convenience: place ``gang`` on ``cluster`` in a session of its own (``open_session``).

    ``topology`` defaults to the one the gang names (or the cluster's only one); the policy is
    the one the gang names, else ``policy``, else its front end's default, else ``mixed``.
    Hierarchical and kube-scheduler placements get a snapshot of the main topology and of every
    topology the gang's groups name (as the service gives them). ``search`` (faithful by default:
    each upstream scheduler's own answer), ``budget`` (steps only by default) and ``probe`` as for
    ``place_gang``.
    """
    session = open_session(PlacementOptions(search=search, policy=policy))
    return session.place_on(gang, cluster, topology, budget=budget or SearchBudget(), probe=probe)
