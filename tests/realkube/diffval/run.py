"""The whole differential validation: the corpus (base inputs and ``MUTATIONS`` mutated ones
from ``SEED``), every distinct object dry-run on the server from ``THREADS`` threads, every input
read by toposched, and the verdicts counted per family and outcome.

A disagreement is either fixed in toposched or covered, difference by difference, by an entry of
``EXPLAINED``: a stated difference and a predicate saying exactly which differences it covers
(the object's kind, the server's stage and message, the fields each side named).
``Report.unexplained`` must be empty.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from tests.realkube.control_plane import ControlPlane
from tests.realkube.diffval.compare import Difference, Verdict, compare, server_objects
from tests.realkube.diffval.corpus import FAMILIES, Input, base_inputs
from tests.realkube.diffval.mutations import generate
from tests.realkube.diffval.server import DryRunServer, ServerAnswer

SEED = 23
MUTATIONS = 2400
THREADS = 4

_PRIORITY_ADMISSION = re.compile(
    r'^HTTP 403: \S+ "[^"]*" is forbidden: ('
    r"priority set in the (pod group|composite pod group) \(-?\d+\) must match the priority computed \(-?\d+\)"
    r" based on the priority class set in the spec"
    r"|the integer value of priority \(-?\d+\) must not be provided in pod spec; priority admission controller"
    r" computed -?\d+ from the given PriorityClass name"
    r"|the string value of PreemptionPolicy \([^)]*\) must not be provided in (pod group|composite pod group)"
    r" spec; priority admission controller computed \w+ from the given PriorityClass name"
    r"|no PriorityClass with name \S* was found)$"
)
# What toposched reads of a Job: its metadata and counts, spec.scheduling, and of the pod
# template the group it names, the containers' resources, tolerations, node selector and node
# (the rest is the Job controller's and the kubelet's); fields as normalised here.
_JOB_FIELDS_READ = re.compile(
    r"^(metadata(\..*)?|spec\.(parallelism|completions|scheduling(\..*)?)"
    r"|spec\.template\.spec(\.(schedulingGroup|tolerations|nodeSelector|nodeName|overhead"
    r"|(init)?[cC]ontainers\[\d+\]\.resources)(\[\d+\])?(\..*)?)?)$"
)


def _priority_admission(d: Difference) -> bool:
    """The Priority admission plugin refused the object before validation: toposched reads no
    PriorityClasses, so a priority it takes from the object is the server's to compute."""
    return (
        d.what == "unnamed"
        and d.kind in ("Pod", "PodGroup", "CompositePodGroup")
        and d.answer is not None
        and _PRIORITY_ADMISSION.match(d.answer.message) is not None
    )


def _job_field_not_read(path: str, job: Mapping[str, Any]) -> bool:
    if path == "metadata.labels":  # a Job's labels default to its template's (ValidateJob sees both)
        return not (job.get("metadata") or {}).get("labels")
    return (path.startswith(("spec.", "status")) or path == "status") and not _JOB_FIELDS_READ.match(path)


def _unread_job_fields(d: Difference) -> bool:
    """A Job's fields other than the ones toposched reads: every field the server named and
    toposched did not is one of them; toposched names no field the server did not but one
    above them, unless the server stopped at decoding the body (then it never validated what
    toposched names)."""
    if d.kind != "Job" or d.obj is None or d.answer is None or d.what not in ("took", "fields"):
        return False
    unread = d.missed and all(_job_field_not_read(f, d.obj) for f in d.missed)
    # toposched may name the same fault one level up (the template's spec missing, where the
    # server names the fields it requires there)
    above = all(any(m.startswith(e + ".") for m in d.missed) for e in d.extra)
    return bool(unread) and (above or d.answer.stage == "decode")


def _v1alpha2(d: Difference) -> bool:
    """A scheduling.k8s.io/v1alpha2 object: 1.37.2 serves the version no more; toposched reads it."""
    return (
        d.answer is not None
        and d.answer.stage == "unserved"
        and d.obj is not None
        and d.obj.get("apiVersion") == "scheduling.k8s.io/v1alpha2"
    )


@dataclass(frozen=True)
class Explanation:
    """A difference that stays: why, and exactly which differences it covers."""

    why: str
    covers: Callable[[Difference], bool]


# Disagreements that stay, each a stated difference between toposched and the server.
EXPLAINED = (
    Explanation(
        "the Priority admission plugin: a priority or preemptionPolicy is computed from the cluster's "
        "PriorityClass objects, never taken from the object; toposched reads no PriorityClasses",
        _priority_admission,
    ),
    Explanation(
        "a Job's fields toposched does not read (the pod template but for its scheduling facts: resources, "
        "tolerations, node selector, scheduling group; the selector, failure policies, status): their "
        "decoding and validation are the API server's",
        _unread_job_fields,
    ),
    Explanation(
        "scheduling.k8s.io/v1alpha2 (Kubernetes 1.36), which toposched still reads and v1.37.2 no longer serves",
        _v1alpha2,
    ),
)


@dataclass
class Report:
    """The verdicts, the server requests made, and the seconds each part took."""

    verdicts: list[Verdict]
    requests: int
    seconds: dict[str, float] = field(default_factory=dict)

    def counts(self) -> Counter[tuple[str, str]]:
        return Counter((v.input.family, v.outcome) for v in self.verdicts)

    def explanations(self, verdict: Verdict) -> list[str] | None:
        """Why each difference of a disagreement stays; None when one has no explanation."""
        found = [next((e.why for e in EXPLAINED if e.covers(d)), None) for d in verdict.differences]
        return None if None in found else sorted({w for w in found if w is not None})

    @property
    def unexplained(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.outcome == "disagree" and self.explanations(v) is None]

    def lines(self, *, limit: int = 40) -> Iterator[str]:
        counts = self.counts()
        outcomes = ("agree-reject", "agree-accept", "documented", "disagree")
        yield f"{'family':<8} {'inputs':>7} " + " ".join(f"{o:>13}" for o in outcomes)
        for family in FAMILIES:
            total = sum(n for (f, _), n in counts.items() if f == family)
            yield f"{family:<8} {total:>7} " + " ".join(f"{counts[(family, o)]:>13}" for o in outcomes)
        total = len(self.verdicts)
        yield f"{'all':<8} {total:>7} " + " ".join(
            f"{sum(n for (_, o2), n in counts.items() if o2 == o):>13}" for o in outcomes
        )
        mutated = sum(1 for v in self.verdicts if v.input.id.startswith("mutation:"))
        yield f"inputs: {total} ({total - mutated} unmutated, {mutated} mutated)"
        yield f"server dry runs: {self.requests} distinct objects; " + ", ".join(
            f"{k} {s:.1f} s" for k, s in self.seconds.items()
        )
        documented = Counter(r for v in self.verdicts for r in v.documented)
        if documented:
            yield "documented differences (the server accepts every object; toposched refuses):"
            yield from (f"  {n:>5}  {why}" for why, n in documented.most_common())
        explained = Counter(
            w for v in self.verdicts if v.outcome == "disagree" for w in self.explanations(v) or ()
        )
        if explained:
            yield "explained disagreements (inputs, by reason):"
            yield from (f"  {n:>5}  {why}" for why, n in explained.most_common())
        unexplained = self.unexplained
        yield f"unexplained disagreements: {len(unexplained)}"
        for verdict in unexplained[:limit]:
            yield f"- {verdict.input.source}"
            yield from (f"    {d}" for d in verdict.details)


def corpus(seed: int = SEED, mutations: int = MUTATIONS) -> list[Input]:
    bases = base_inputs()
    by_family = {f: [b for b in bases if b.family == f] for f in FAMILIES}
    # each family gets mutations in proportion to its place in the task: kube most of all
    shares = {"kube": 0.7, "kai": 0.15, "kueue": 0.15}
    mutated: list[Input] = []
    for offset, family in enumerate(FAMILIES):
        count = round(mutations * shares[family])
        mutated += generate(by_family[family], count, seed * 10 + offset)
    return [*bases, *mutated]


def run(plane: ControlPlane, inputs: list[Input], threads: int = THREADS) -> Report:
    started = time.monotonic()
    server = DryRunServer(plane)
    placed = [server_objects(item) for item in inputs]
    flat = [obj for objects in placed for _, obj in objects]
    try:
        with ThreadPoolExecutor(threads) as pool:
            every = iter(list(pool.map(server.answer, flat)))
    finally:
        server.close()
    answers: list[list[ServerAnswer]] = [[next(every) for _ in objects] for objects in placed]
    asked = time.monotonic()
    verdicts = [compare(item, found) for item, found in zip(inputs, answers, strict=True)]
    done = time.monotonic()
    return Report(verdicts, server.requests, {"server": asked - started, "toposched": done - asked})
