"""The whole differential validation: the corpus (base inputs and ``MUTATIONS`` mutated ones
from ``SEED``), every distinct object dry-run on the server from ``THREADS`` threads, every input
read by toposched, and the verdicts counted per family and outcome.

A disagreement is either fixed in toposched or listed in ``EXPLAINED`` (a pattern of its detail
and why it stays); ``Report.unexplained`` must be empty.
"""

from __future__ import annotations

import re
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from tests.realkube.control_plane import ControlPlane
from tests.realkube.diffval.compare import Verdict, compare, server_objects
from tests.realkube.diffval.corpus import FAMILIES, Input, base_inputs
from tests.realkube.diffval.mutations import generate
from tests.realkube.diffval.server import DryRunServer, ServerAnswer

SEED = 23
MUTATIONS = 2400
THREADS = 4

# Disagreements that stay, by a pattern of their detail: why.
EXPLAINED: dict[str, str] = {
    r"is forbidden: (priority set in the|the integer value of priority|the string value of PreemptionPolicy|"
    r"no PriorityClass with name)": (
        "the Priority admission plugin: a priority or preemptionPolicy is computed from the cluster's "
        "PriorityClass objects, never taken from the object; toposched reads no PriorityClasses"
    ),
    r"^(jobs\[[^\]]*\]|Job|documents\[\d+\]): .*(spec\.template|LabelSelector|PodTemplateSpec|PodSpec|Job\.status|"
    r"JobSpec\.spec\.|maxFailedIndexes|backoffLimit|quantities must match|will not able to create pod|"
    r"imagePullPolicy|containers)": (
        "a Job's pod template, selector, status and failure policies, which toposched does not validate "
        "(it reads spec.scheduling, parallelism, completions and the template's requests)"
    ),
    r"server refused at \['metadata\.namespace'\]": (
        "the namespace is checked in the request's URL before the body is decoded; toposched reports "
        "the body's decoding errors first"
    ),
    r"server refused at \['apiVersion', 'kind'\] \(no matches for kind \"\w+\" in version "
    r"\"scheduling\.k8s\.io/v1alpha2\"\)": (
        "scheduling.k8s.io/v1alpha2 (Kubernetes 1.36), which toposched still reads and v1.37.2 no longer serves"
    ),
    r"^(PodGroup|Topology): (the server could not decode it|server \(decoding\))": (
        "open: the KAI PodGroup and Topology readers do not decode strictly (fields the CRD schema "
        "does not declare, metadata of the wrong type), as fieldValidation=Strict does"
    ),
    r"^(PodGroup|Topology): server names \['metadata\.": (
        "open: the KAI PodGroup and Topology readers do not apply ValidateObjectMeta (a PodGroup's "
        "name, labels, annotations, generateName), as the kube front end does (frontends/kube/meta.py)"
    ),
    r"^Topology: server names \['spec\.levels(\[\d+\])?'\], toposched \['spec\.levels\[\d+\]": (
        "the CRDs' rules on the level list (unique nodeLabels, hostname last, item types) are reported "
        "at spec.levels or the item; toposched names the level's nodeLabel at fault"
    ),
    r"^Topology: server names \['spec(\.levels)?'\], toposched \[\]": (
        "open: a Topology whose spec or level list is not what the CRD declares (or repeats a level "
        "with its alias) is refused by toposched at another field of the level list"
    ),
    r"^PodGroup: (server names \['spec\.(subGroups\[\d+\]\.)?(minMember|minSubGroup)'\]|"
    r"refused for a reason the server does not have: documents\[\d+\]\.metadata\.namespace)": (
        "open: the KAI PodGroup reader takes counts past int32 and checks its pods' namespaces itself"
    ),
    r"^(workloads|jobs|podGroups)\[[^\]]*\]: server (names|refused without fields)|^Job: the server could not decode": (
        "open (single inputs, listed in the report): a null template list item is a zero-valued "
        "template to the server; a Job that toposched reads through Kueue; a 317-character name"
    ),
    r"a topology has 1 to 8 levels, got 1[0-6]\b": (
        "open: toposched's model allows 8 levels (Kueue's former bound); the installed CRDs allow 16"
    ),
}


@dataclass
class Report:
    """The verdicts, the server requests made, and the seconds each part took."""

    verdicts: list[Verdict]
    requests: int
    seconds: dict[str, float] = field(default_factory=dict)

    def counts(self) -> Counter[tuple[str, str]]:
        return Counter((v.input.family, v.outcome) for v in self.verdicts)

    def explanation(self, verdict: Verdict) -> str | None:
        for pattern, why in EXPLAINED.items():
            if all(re.search(pattern, d) for d in verdict.details):
                return why
        return None

    @property
    def unexplained(self) -> list[Verdict]:
        return [v for v in self.verdicts if v.outcome == "disagree" and self.explanation(v) is None]

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
            w for v in self.verdicts if v.outcome == "disagree" and (w := self.explanation(v))
        )
        if explained:
            yield "explained disagreements:"
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
