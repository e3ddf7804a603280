"""A trace job → a Kueue batch Job the scheduler accepts as any user's submission.

GPU count → gang: a job of ``g`` GPUs on nodes of ``n`` GPUs runs as ``p = ceil(g / n)`` pods of
``ceil(g / p)`` GPUs each (12 GPUs on 4-GPU nodes: 3 x 4; 6 GPUs: 2 x 3; 3 GPUs: 1 x 3).

Topology request: the first rule of ``SimConfig.requests`` whose width the job exceeds (more than
one pod = wider than a node; more pods than a rack has nodes = wider than a rack) sets the
KEP-2724 annotations, and the job declares its trace duration as its run time
(``toposched.io/run-seconds``: exact estimates, for the scheduler's reservations). A slice level
cuts the gang into slices of one such domain's worth of pods (the largest divisor of the pod
count that fits one domain, as Kueue wants equal slices).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from toposched.frontends.kueue import keys
from toposched.model import MAX_RUN_SECONDS, RUN_SECONDS_ANNOTATION, Cluster, Problem, SpecError, Topology
from toposched.sim.clusters import GPU
from toposched.sim.config import Mode, RequestRule, SimConfig, Width
from toposched.sim.trace import TraceJob
from toposched.wire.batch import job_object

NAMESPACE = "sim"
QUEUE = "sim-queue"  # the LocalQueue of a job whose trace names none
LEVEL_ALIASES = ("host", "rack", "block", "zone")  # counted from the topology's last level up
_WIDTHS = (Width.NONE, Width.NODE, Width.RACK)  # a job wider than one is wider than those before


@dataclass(frozen=True, slots=True)
class Request:
    """The topology request one job carries (labels resolved); ``level`` is None when unconstrained."""

    mode: Mode
    level: str | None
    slice_level: str | None = None


@dataclass(frozen=True, slots=True)
class Shape:
    """What the mapping needs to know of the cluster: pod width, rack size, the rules."""

    topology: Topology
    gpus_per_node: int
    nodes_per_rack: int
    rules: tuple[tuple[Width, Request], ...]


@dataclass(frozen=True, slots=True)
class SimJob:
    """A trace job as the simulator submits it: its gang shape, request and Job document, and
    any further documents of the input (a gang of another front end: a PodGroup and its pods)."""

    index: int
    trace: TraceJob
    pods: int
    gpus_per_pod: int
    request: Request
    document: dict[str, Any]
    extra: tuple[dict[str, Any], ...] = ()

    @property
    def documents(self) -> list[dict[str, Any]]:
        """The input as submitted."""
        return [self.document, *self.extra]

    @property
    def gpus(self) -> int:
        return self.pods * self.gpus_per_pod


def shape_of(cluster: Cluster, config: SimConfig) -> Shape:
    """The pod width (configured, else the most common GPUs per node), the typical rack size
    and the request rules with level names resolved to the topology's label keys."""
    topology = cluster.topology()
    gpus = config.gangs.gpus_per_node or _most_common([n.allocatable.get(GPU, 0) for n in cluster.nodes], 0)
    if gpus < 1:
        raise SpecError([Problem("gangs.gpus_per_node", "the cluster's nodes have no GPUs", "set it")])
    rack = _level(topology, "rack", "cluster")
    per_rack = Counter(n.labels.get(rack, "") for n in cluster.nodes)
    rules = tuple(
        (rule.wider_than, _request(topology, rule, f"requests[{i}]"))
        for i, rule in enumerate(config.requests)
    )
    return Shape(topology, gpus, _most_common(list(per_rack.values()), 1), rules)


def sim_jobs(jobs: Sequence[TraceJob], shape: Shape) -> list[SimJob]:
    """Every trace job as a Job document, in arrival order."""
    return [sim_job(index, job, shape) for index, job in enumerate(jobs)]


def sim_job(index: int, job: TraceJob, shape: Shape) -> SimJob:
    pods = -(-job.gpus // shape.gpus_per_node)
    per_pod = -(-job.gpus // pods)
    width = 2 if pods > shape.nodes_per_rack else 1 if pods > 1 else 0
    request = next(
        (r for wider, r in shape.rules if width >= _WIDTHS.index(wider)), Request(Mode.UNCONSTRAINED, None)
    )
    annotations: dict[str, str] = {}
    if request.level is not None:
        annotations[keys.REQUIRED if request.mode is Mode.REQUIRED else keys.PREFERRED] = request.level
    if request.slice_level is not None and pods > 1:
        annotations[keys.SLICE_REQUIRED] = request.slice_level
        annotations[keys.SLICE_SIZE] = str(_slice_size(pods, shape.nodes_per_rack))
    container = {
        "name": "main",
        "image": "trace-job",
        "resources": {"requests": {GPU: str(per_pod)}, "limits": {GPU: str(per_pod)}},
    }
    document = job_object(
        _name(index, job.job_id),
        NAMESPACE,
        pods,
        {"restartPolicy": "Never", "containers": [container]},
        labels={keys.PREFIX + "queue-name": job.queue or QUEUE},
        template_annotations=annotations,
    )
    if 0 < job.duration <= MAX_RUN_SECONDS:  # its run time, declared exactly: reservations plan with it
        document["metadata"]["annotations"] = {RUN_SECONDS_ANNOTATION: repr(float(job.duration))}
    return SimJob(index, job, pods, per_pod, request, document)


def _request(topology: Topology, rule: RequestRule, where: str) -> Request:
    if rule.mode is Mode.UNCONSTRAINED:
        return Request(rule.mode, None)
    level = _level(topology, rule.level, f"{where}.level")
    slice_level = (
        None if rule.slice_level is None else _level(topology, rule.slice_level, f"{where}.slice_level")
    )
    return Request(rule.mode, level, slice_level)


def _level(topology: Topology, name: str, where: str) -> str:
    """A topology label key for ``name``: a label key of the topology or an alias (host, rack...)."""
    levels = topology.levels
    if name in levels:
        return name
    if name in LEVEL_ALIASES and LEVEL_ALIASES.index(name) < len(levels):
        return levels[-1 - LEVEL_ALIASES.index(name)]
    known = ", ".join((*LEVEL_ALIASES[: len(levels)], *levels))
    raise SpecError(
        [Problem(where, f"{name!r} is not a level of topology {topology.name}", f"use one of {known}")]
    )


def _slice_size(pods: int, per_domain: int) -> int:
    return max(size for size in range(1, min(pods, per_domain) + 1) if pods % size == 0)


def _most_common(values: list[int], default: int) -> int:
    return Counter(values).most_common(1)[0][0] if values else default


def _name(index: int, job_id: str) -> str:
    """A DNS-1123 Job name that stays unique: the row index, then what the id allows."""
    tail = re.sub(r"[^a-z0-9-]+", "-", job_id.lower()).strip("-")[:40]
    return f"j{index}-{tail}".rstrip("-")
