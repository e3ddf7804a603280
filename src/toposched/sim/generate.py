"""A gang-heavy trace of LLM-cluster jobs, drawn from a seed (``--trace llm:jobs=N``).

Shaped after the Acme traces (Hu et al., "Characterization of Large Language Model Development
in the Datacenter", NSDI'24; clusters Seren and Kalos, 4,704 A100 GPUs): evaluation jobs are the
most numerous, small and short; pretraining jobs are few, take 128 to 1,024 GPUs and most of the
GPU time. ``trace_kalos.csv`` itself is not available here, so the figures below are modelling
choices that follow those findings, not a fit to the trace:

=========== ====== ============================================ ============= =====
class        jobs   GPUs (share within the class)                median run    sigma
=========== ====== ============================================ ============= =====
eval         50%    1 (20%), 4 (30%), 8 (50%)                    15 min        1.0
sft          35%    8 (20%), 16 (30%), 32 (30%), 64 (20%)        1 h           1.0
pretrain     15%    128 (40%), 256 (30%), 512 (20%), 1024 (10%)  3 h           0.8
=========== ====== ============================================ ============= =====

Run times are log-normal (the median and sigma of the log above), kept between 1 minute and 3
days; pretraining then holds about 90% of the GPU time. Sizes larger than the largest block
(the domain the default rules require of a gang wider than a rack) are left out, the class's
other sizes keeping their proportions: on ``nvl72`` (8 racks, 576 GPUs, a block) 1,024 GPUs. Arrivals are a Poisson process whose rate
makes the offered load (GPU-seconds asked / GPU-seconds available while jobs arrive) equal
``BASE_LOAD``; ``--load`` scales it like any trace. Each job's queue is its class.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from toposched.model import Problem, SpecError
from toposched.sim.trace import Trace, TraceJob

PREFIX = "llm"
BASE_LOAD = 0.9
MIN_RUN, MAX_RUN = 60.0, 3 * 86_400.0


@dataclass(frozen=True, slots=True)
class JobClass:
    name: str
    share: float  # of the jobs
    sizes: Mapping[int, float]  # GPUs -> share within the class
    median_seconds: float
    sigma: float


CLASSES: tuple[JobClass, ...] = (
    JobClass("eval", 0.50, {1: 0.2, 4: 0.3, 8: 0.5}, 900.0, 1.0),
    JobClass("sft", 0.35, {8: 0.2, 16: 0.3, 32: 0.3, 64: 0.2}, 3_600.0, 1.0),
    JobClass("pretrain", 0.15, {128: 0.4, 256: 0.3, 512: 0.2, 1024: 0.1}, 10_800.0, 0.8),
)


def is_generated(spec: str) -> bool:
    return spec == PREFIX or spec.startswith(PREFIX + ":")


def generate_trace(spec: str, widest: int, total_gpus: int, seed: int, max_rows: int) -> Trace:
    """The trace ``llm:jobs=N`` names for a cluster of ``total_gpus`` GPUs whose largest
    topology domain a gang may require holds ``widest``; the same seed gives the same jobs.
    ``SpecError`` naming the parameter when it is missing or out of bounds."""
    jobs = _jobs_parameter(spec, max_rows)
    rng = random.Random(seed)
    classes = _fitting(CLASSES, widest)
    drawn: list[tuple[JobClass, int, float]] = []
    for _ in range(jobs):
        cls = rng.choices(classes, weights=[c.share for c in classes])[0]
        gpus = rng.choices(list(cls.sizes), weights=list(cls.sizes.values()))[0]
        run = rng.lognormvariate(math.log(cls.median_seconds), cls.sigma)
        drawn.append((cls, gpus, float(round(min(max(run, MIN_RUN), MAX_RUN)))))
    work = math.fsum(g * d for _, g, d in drawn)
    # Offered load = work / (GPUs x arrival span), the span being jobs x mean inter-arrival.
    mean_gap = work / (BASE_LOAD * total_gpus * jobs)
    at = 0.0
    out: list[TraceJob] = []
    for index, (cls, gpus, run) in enumerate(drawn):
        out.append(TraceJob(f"{cls.name}-{index}", float(round(at)), run, gpus, queue=cls.name))
        at += rng.expovariate(1.0 / mean_gap)
    return Trace(spec, tuple(out))


def _fitting(classes: Sequence[JobClass], widest: int) -> list[JobClass]:
    kept = []
    for cls in classes:
        sizes = {g: w for g, w in cls.sizes.items() if g <= widest}
        if sizes:
            kept.append(JobClass(cls.name, cls.share, sizes, cls.median_seconds, cls.sigma))
    if not kept:
        raise SpecError(
            [Problem("--cluster", f"a block of {widest} GPUs holds no job of --trace llm", "add racks")]
        )
    return kept


def _jobs_parameter(spec: str, max_rows: int) -> int:
    _, _, rest = spec.partition(":")
    values: dict[str, str] = {}
    for part in filter(None, rest.split(",")):
        key, _, value = part.partition("=")
        if key != "jobs":
            raise SpecError([Problem(f"--trace {PREFIX}:{key}", "unknown parameter", "use jobs=N")])
        values[key] = value
    text = values.get("jobs")
    if text is None:
        raise SpecError([Problem(f"--trace {PREFIX}", "jobs is required", f"e.g. {PREFIX}:jobs=2000")])
    if not text.isdigit() or not 1 <= int(text) <= max_rows:
        raise SpecError(
            [
                Problem(
                    f"--trace {PREFIX}:jobs",
                    f"{text!r} is not a whole number in 1..{max_rows}",
                    "e.g. jobs=2000",
                )
            ]
        )
    return int(text)
