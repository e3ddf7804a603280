"""The ways into the engine, side by side: the command line's (``toposched place``), the
service's (a real SQLite store, one submission, one cycle) and the simulator's (a replay of one
job submitted at time 0, stopped after its first cycle). Each takes parsed documents and a
cluster and returns the same normalised answer, so a test can ask for equality."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from toposched.cli.workloads import place_documents
from toposched.emit.result import result_document
from toposched.engine import PlacementOptions, PolicyRegistry
from toposched.frontends.registry import PoolEntry, Registry, default_registry
from toposched.model import Cluster, Search, ToposchedError
from toposched.scheduler import ManualClock, Scheduler, SchedulerConfig
from toposched.sim.config import Mode, SchedulerSettings, SimConfig
from toposched.sim.gangs import Request, Shape, SimJob
from toposched.sim.replay import Replay
from toposched.sim.trace import TraceJob
from toposched.store import SqliteStore, WorkloadRecord, WorkloadState


@dataclass(frozen=True)
class Answer:
    """What both paths must agree on: every pod's node (by pod set and index) and the topology
    assignments when placed; the reason when not."""

    placed: bool
    pods: tuple[tuple[str, str, int, str | None], ...] = ()
    assignments: Mapping[str, Any] = field(default_factory=dict)
    reason: str | None = None
    note: str | None = None
    policy: str | None = None  # the policy that placed it


def _pods(raw: Sequence[Mapping[str, Any]]) -> tuple[tuple[str, str, int, str | None], ...]:
    return tuple(sorted((p["podSet"], p["name"], int(p["index"]), p["node"]) for p in raw))


def refused(exc: ToposchedError) -> Answer:
    """An input refused before placement: the error's type and words."""
    return Answer(False, reason=f"{type(exc).__name__}: {exc}")


def via_cli(
    documents: Sequence[Any],
    cluster: Cluster,
    *,
    policy: str | None = None,
    pools: Mapping[str, PoolEntry] | None = None,
    registry: Registry | None = None,
    search: Search = Search.FAITHFUL,
    policies: PolicyRegistry | None = None,
) -> Answer:
    try:
        outcome = place_documents(
            documents,
            cluster,
            options=PlacementOptions(search=search, policy=policy),
            pools=pools,
            registry=registry or default_registry(),
            policies=policies,
        )
    except ToposchedError as exc:
        return refused(exc)
    doc = result_document(outcome.result)
    if doc["placed"]:
        return Answer(True, _pods(doc["pods"]), doc["assignments"], policy=doc["policy"])
    return Answer(False, reason=doc["reason"], note=doc["note"])


def via_service(
    documents: Sequence[Any],
    cluster: Cluster,
    db: Path,
    *,
    policy: str | None = None,
    pools: Mapping[str, Mapping[str, Any]] | None = None,
    registry: Registry | None = None,
    search: Search = Search.FAITHFUL,
    policies: PolicyRegistry | None = None,
) -> Answer:
    """Import the cluster, store the pools, submit, run one cycle, read the workload back."""
    store = SqliteStore(db)
    try:
        config = SchedulerConfig(policy=policy, search=search)
        scheduler = Scheduler(
            store, ManualClock(), config, registry=registry or default_registry(), policies=policies
        )
        scheduler.import_cluster(cluster)
        for name, pool in (pools or {}).items():
            scheduler.put_pool(name, topology_keys=pool["topology_keys"], backend=pool["backend"])
        try:
            record = scheduler.submit(documents, owner="alice")
        except ToposchedError as exc:
            return refused(exc)
        scheduler.cycle()
        stored = scheduler.get(record.id)
    finally:
        store.close()
    return stored_answer(stored)


def via_simulator(
    documents: Sequence[Any],
    cluster: Cluster,
    *,
    policy: str | None = None,
    pools: Mapping[str, Mapping[str, Any]] | None = None,
    search: Search = Search.FAITHFUL,
    policies: PolicyRegistry | None = None,
) -> Answer:
    """A replay of one job made of ``documents``, submitted at time 0; its first cycle decides."""
    topology = cluster.topologies[0]
    job = SimJob(0, TraceJob("job", 0.0, 3600.0, 1), 1, 1, Request(Mode.REQUIRED, None), *_split(documents))
    shape = Shape(topology, gpus_per_node=1, nodes_per_rack=1, rules=())
    config = SimConfig(scheduler=SchedulerSettings(search=search))
    replay = Replay(cluster, shape, [job], config, policy, until=0.0, policies=policies)
    for name, pool in (pools or {}).items():
        replay.scheduler.put_pool(name, topology_keys=pool["topology_keys"], backend=pool["backend"])
    try:
        replay.run()
    except ToposchedError as exc:
        return refused(exc)
    return stored_answer(replay.scheduler.get(replay.records[0].workload))


def _split(documents: Sequence[Any]) -> tuple[dict[str, Any], tuple[dict[str, Any], ...]]:
    first, *rest = documents
    return first, tuple(rest)


def stored_answer(stored: WorkloadRecord) -> Answer:
    """The answer a scheduler stored for a workload after one cycle."""
    if stored.state is WorkloadState.ADMITTED:
        placement = stored.placement
        return Answer(True, _pods(placement["pods"]), placement["assignments"], policy=placement["policy"])
    assert stored.state is WorkloadState.PENDING, stored.state
    return Answer(False, reason=stored.explanation["reason"], note=stored.explanation.get("note"))
