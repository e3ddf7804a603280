"""What an explanation costs: ``toposched explain`` and ``GET /v1/workloads/{id}/explanation``.

Cluster: the sample cluster's shape grown to 2 zones x 4 blocks x 32 racks x 18 nodes (4,608
nodes of 4 GPUs, the sample's labels); a seeded third of the nodes run a pod of 1, 2 or 4 GPUs.
Workload: ``examples/kueue/job-multilayer.yaml`` (128 pods x 4 GPUs in one zone, 64 per block,
16 per rack): on this cluster it does not place: ten racks of one zone have 16 free nodes, but
no second block has four of them. The complete search sees that at once (a block holds only as
many block slices as its racks hold rack slices for); before it did, it ran to its step budget.
The target (issue 27, item 7): at most 1 s of CPU for the explanation, in the CLI and the service.

Figures, CPU seconds of this process (``time.process_time``, all threads):

- cli: ``place_documents`` (the faithful placement plus the probe of the complete search, as
  ``toposched explain`` places first), then ``explain`` reusing the probe's answer (what the CLI
  does), and ``explain`` searching it again (what it did before); the floor is the faithful
  placement alone.
- command: ``toposched explain`` run whole as a child process (imports, reading the cluster
  file, placing, explaining, printing), its CPU from ``resource.getrusage``; its candidate lines
  are printed.
- service: the app over a ``MemoryStore`` with the workload pending, the scheduler's defaults
  (complete search, ``explain_seconds``): the first ``GET .../explanation`` (searched within the
  time bound, which the scheduler reads from its clock) and a second one on the unchanged store
  (the kept answer). The explanation's ``untried`` kinds are printed: what the bound cut short.
  ``--unbounded`` repeats it without the time bound, as the service explained before.

Run: python bench/explain.py [--racks 32] [--busy 0.34] [--seed 1] [--unbounded] [--quick]
(--quick: 8 racks a block, 1,152 nodes, to check that the script works.)
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from fastapi.testclient import TestClient

from toposched.api import AuthConfig, Limits, create_app
from toposched.cli.workloads import place_documents
from toposched.engine import place
from toposched.engine.explain import explain_refusal
from toposched.intake.cluster import load_cluster
from toposched.intake.parse import parse_documents
from toposched.model import Cluster, Explanation, Policy, Unschedulable
from toposched.samples.generate import busy_cluster_manifest
from toposched.scheduler import Scheduler, SchedulerConfig, SystemClock
from toposched.store import MemoryStore

ROOT = Path(__file__).resolve().parents[1]
JOB_PATH = ROOT / "examples" / "kueue" / "job-multilayer.yaml"
JOB = JOB_PATH.read_text(encoding="utf-8")
TOKEN = "bench-token-0123456789"
T = TypeVar("T")


def cpu(fn: Callable[[], T]) -> tuple[float, T]:
    start = time.process_time()
    result = fn()
    return time.process_time() - start, result


def cli_figures(cluster: Cluster) -> None:
    documents = parse_documents(JOB, source="job")
    placed, outcome = cpu(lambda: place_documents(documents, cluster))
    refusal = outcome.result
    if not isinstance(refusal, Unschedulable):
        print("  the workload places on this cluster: nothing to explain (try another --seed or --busy)")
        return
    gang, on, topology = outcome.gang, outcome.cluster, outcome.topology
    policy = gang.policy or Policy.MIXED
    floor, _ = cpu(lambda: place(gang, on, topology=topology, policy=policy))

    def explained(probed: bool) -> Explanation:
        return explain_refusal(gang, on, refusal, topology=topology, policy=policy, probed=probed)

    reused, explanation = cpu(lambda: explained(True))
    again, _ = cpu(lambda: explained(False))
    print(f"  faithful placement (floor)             {floor:7.2f} s")
    print(f"  place + probe                          {placed:7.2f} s")
    for label, seconds in (("probe reused (now)", reused), ("searched again (before)", again)):
        total = placed + seconds
        print(f"  explain, {label:<29} {seconds:7.2f} s   total {total:6.2f} s  x{total / floor:6.1f} floor")
    print(f"  suggestions: {[str(s.kind) for s in explanation.suggestions]}")


def command_figures(text: str) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "cluster.json"
        path.write_text(text, encoding="utf-8")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        run = subprocess.run(
            [sys.executable, "-m", "toposched", "explain", str(JOB_PATH), "--cluster", str(path)],
            capture_output=True,
            text=True,
            check=False,
        )
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    seconds = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    print(f"  toposched explain, whole command        {seconds:7.2f} s   exit {run.returncode}")
    for line in run.stdout.splitlines():
        if line.startswith("  ") and ("pod(s) fit" in line or "✓" in line):
            print(f"   {line}")


def service_figures(text: str, explain_seconds: float) -> None:
    config = SchedulerConfig(explain_seconds=explain_seconds)
    scheduler = Scheduler(MemoryStore(), SystemClock(), config)
    scheduler.import_cluster(load_cluster(text))
    auth = AuthConfig.from_mapping({"tokens": [{"token": TOKEN, "user": "bench", "role": "user"}]})
    app = create_app(scheduler, auth, limits=Limits(), run_loop=False)
    headers = {"Authorization": f"Bearer {TOKEN}"}
    with TestClient(app) as client:
        submitted = client.post("/v1/workloads", json={"spec": JOB}, headers=headers)
        wid = submitted.json()["id"]
        scheduler.cycle()
        path = f"/v1/workloads/{wid}/explanation"
        first, answer = cpu(lambda: client.get(path, headers=headers))
        kept, again = cpu(lambda: client.get(path, headers=headers))
    body = answer.json()
    bound = scheduler.config.explain_seconds
    print(f"  first GET (bound {bound:g} s of its clock) {first:7.2f} s   status {answer.status_code}")
    print(f"  second GET, unchanged store (kept)    {kept:7.3f} s   status {again.status_code}")
    print(
        f"  suggestions: {[s['kind'] for s in body.get('suggestions', [])]}; untried: {body.get('untried')}"
    )
    for candidate in body.get("candidates", []):
        print(f"    {candidate['text']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--racks", type=int, default=32, help="racks per block")
    parser.add_argument("--busy", type=float, default=0.34, help="share of nodes running a pod")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quick", action="store_true", help="8 racks a block: a smoke check")
    parser.add_argument("--unbounded", action="store_true", help="also explain without the time bound")
    args = parser.parse_args()
    racks = 8 if args.quick else args.racks
    text = json.dumps(busy_cluster_manifest(racks, args.busy, args.seed))
    cluster = load_cluster(text)
    print(
        f"{len(cluster.nodes)} nodes (2 zones x 4 blocks x {racks} racks x 18), {len(cluster.pods)} running pods"
    )
    print("cli (toposched explain):")
    cli_figures(cluster)
    command_figures(text)
    print("service (GET /v1/workloads/{id}/explanation):")
    service_figures(text, SchedulerConfig().explain_seconds)
    if args.unbounded:
        print("service without a time bound (as before; the step budget only):")
        service_figures(text, 1e9)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
