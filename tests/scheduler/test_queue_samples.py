"""The queue of each front end's sample input (``examples/``), as the README states it: a KAI
queue label (KAI, Grove, OSMO's pool queue) goes to the queue of that name; a Kueue LocalQueue
to the queue that lists it, else to the queue of its name; KAI's ``default-queue``, no queue
(upstream Kubernetes), or a queue not defined, to ``default``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from toposched.cli.inputs import pool_option
from toposched.frontends.registry import CompileContext, default_registry
from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents
from toposched.model import DEFAULT_QUEUE, Gang, QueueTree, SchedulingQueue

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
SAMPLE_CLUSTER = ROOT / "src" / "toposched" / "samples" / "cluster.yaml"
OSMO = "1-single-nvl72-rack"


def compiled(
    job: Path, cluster: Path, *, pool: Path | None = None, also: Path | None = None, label: str = ""
) -> Gang:
    text = "\n---\n".join(p.read_text() for p in (cluster, *([also] if also else [])))
    topologies = load_cluster(text).topologies
    context = CompileContext(topologies=topologies, pools=pool_option(str(pool)) if pool else {})
    documents: list[Any] = parse_documents(job.read_text(), source=str(job))
    if label:  # the KAI queue label on the workload
        documents[0]["metadata"].setdefault("labels", {})["kai.scheduler/queue"] = label
    default = topologies[0].name if len(topologies) == 1 else None
    return default_registry().compile_for(documents, context, default=default)[1].gang


def tree(*specs: dict[str, Any]) -> QueueTree:
    return QueueTree.of(SchedulingQueue.parse(spec) for spec in specs)


KUEUE = EXAMPLES / "kueue" / "job-rack.yaml"  # namespace team-a, LocalQueue user-queue
KAI_JOB = EXAMPLES / "kai" / "zone-ab-job.yaml"
KAI_CLUSTER = EXAMPLES / "kai" / "zone-ab-cluster.yaml"


@pytest.mark.parametrize(
    ("gang", "queues", "expected"),
    [
        (
            lambda: compiled(KUEUE, SAMPLE_CLUSTER),
            [{"name": "team-a", "localQueues": ["team-a/user-queue"]}],
            "team-a",
        ),
        (lambda: compiled(KUEUE, SAMPLE_CLUSTER), [{"name": "user-queue"}], "user-queue"),
        (
            lambda: compiled(KUEUE, SAMPLE_CLUSTER),
            [{"name": "other", "localQueues": ["team-b/user-queue"]}],
            DEFAULT_QUEUE,
        ),
        (lambda: compiled(KAI_JOB, KAI_CLUSTER, label="research"), [{"name": "research"}], "research"),
        (lambda: compiled(KAI_JOB, KAI_CLUSTER, label="research"), [], DEFAULT_QUEUE),
        (
            lambda: compiled(EXAMPLES / "kai" / "podgroup-pods.yaml", KAI_CLUSTER),
            [{"name": "default-queue"}],
            DEFAULT_QUEUE,
        ),
        (
            lambda: compiled(
                EXAMPLES / "grove" / "llama-70b-h100.yaml",
                EXAMPLES / "grove" / "cluster.yaml",
                also=EXAMPLES / "grove" / "topologies.yaml",
            ),
            [{"name": "inference"}],
            "inference",
        ),
        (
            lambda: compiled(
                EXAMPLES / "osmo" / f"{OSMO}.workflow.yaml",
                EXAMPLES / "osmo" / f"{OSMO}.cluster.yaml",
                pool=EXAMPLES / "osmo" / f"{OSMO}.pool.yaml",
            ),
            [{"name": "osmo-pool-osmo-workflows-my-pool"}],
            "osmo-pool-osmo-workflows-my-pool",
        ),
        (
            lambda: compiled(EXAMPLES / "kube" / "job-one-rack.yaml", EXAMPLES / "kube" / "cluster.yaml"),
            [{"name": "ml"}],
            DEFAULT_QUEUE,
        ),
    ],
    ids=[
        "kueue-listed-localqueue",
        "kueue-localqueue-by-name",
        "kueue-listed-in-another-namespace",
        "kai-label",
        "kai-label-undefined",
        "kai-default-queue",
        "grove-kai-label",
        "osmo-pool-queue",
        "kube-podgroup-none",
    ],
)
def test_queue_of_each_front_end_sample(gang: Any, queues: list[dict[str, Any]], expected: str) -> None:
    assert tree(*queues).queue_of(gang()) == expected
