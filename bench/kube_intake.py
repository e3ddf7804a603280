"""Submitting a large upstream Kubernetes Job (``spec.scheduling``, KEP-5547) next to a Kueue Job
of the same size: what it costs to read and compile before anything is placed.

Both Jobs are Indexed with ``--pods`` pods (100,000 by default) of one shape; the upstream one
asks for a gang in one rack (``spec.scheduling``), the Kueue one for the same rack by its
TAS annotation. Each submission runs in a fresh child process that does what the service does
with a request body: parse the YAML (``parse_documents``) and compile it through the front-end
registry against the sample cluster's topology (``compile_for``), and reports its CPU time and
peak RSS. Runs alternate between the two Jobs so that load from other processes hits both alike;
the medians and the upstream / Kueue ratio are printed. The upstream Job is also compiled with
Python's cyclic collector left running (``upstream-gc``: the front ends pause it while they
compile, ``toposched.frontends.collector``), to show what the pause saves.

Run: python bench/kube_intake.py [--pods 100000] [--runs 3] [--quick]
(--quick: 10,000 pods and one run, to check that the script works.)
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

RACK = "cloud.provider.com/topology-rack"
TEMPLATE = {
    "spec": {
        "restartPolicy": "Never",
        "containers": [
            {
                "name": "trainer",
                "image": "registry.example/trainer:1",
                "resources": {
                    "requests": {"cpu": "8", "nvidia.com/gpu": "4"},
                    "limits": {"nvidia.com/gpu": "4"},
                },
            }
        ],
    }
}

CHILD = """
import json, resource, sys, time
path = sys.argv[1]
start = time.process_time()
if sys.argv[2:] == ["gc"]:  # the collector left running: the registry's pause does nothing
    import contextlib
    import toposched.frontends.registry
    toposched.frontends.registry.collector_paused = contextlib.nullcontext
from toposched.intake.parse import parse_documents
from toposched.frontends.registry import CompileContext, default_registry
from toposched.model import Topology
documents = parse_documents(open(path, "rb").read(), source=path)
topology = Topology.create(
    "default",
    ["cloud.provider.com/topology-block", "cloud.provider.com/topology-rack", "kubernetes.io/hostname"],
)
context = CompileContext(topologies=(topology,), max_pods=1_000_000)
_, compiled = default_registry().compile_for(documents, context, default="default")
seconds = time.process_time() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "rss": rss, "frontend": compiled.frontend, "pods": compiled.gang.size}))
"""


def job(pods: int, *, upstream: bool) -> dict[str, object]:
    spec: dict[str, object] = {"completionMode": "Indexed", "parallelism": pods, "completions": pods}
    metadata: dict[str, object] = {"name": "big", "namespace": "ml"}
    template: dict[str, object] = dict(TEMPLATE)
    if upstream:
        spec["scheduling"] = {
            "schedulingPolicy": {"gang": {}},
            "schedulingConstraints": {"topology": [{"key": RACK}]},
        }
    else:
        metadata["labels"] = {"kueue.x-k8s.io/queue-name": "training"}
        template = {
            "metadata": {"annotations": {"kueue.x-k8s.io/podset-required-topology": RACK}},
            **TEMPLATE,
        }
    spec["template"] = template
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec}


def submit(path: Path, *flags: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(path), *flags], capture_output=True, text=True, check=True
    )
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true")
    args = parser.parse_args()
    pods, runs = (10_000, 1) if args.quick else (args.pods, args.runs)
    with tempfile.TemporaryDirectory() as folder:
        paths = {}
        for name, upstream in (("upstream", True), ("kueue", False)):
            paths[name] = Path(folder) / f"{name}.yaml"
            paths[name].write_text(yaml.safe_dump(job(pods, upstream=upstream)), encoding="utf-8")
        seen: dict[str, list[dict[str, float]]] = {name: [] for name in (*paths, "upstream-gc")}
        for _ in range(runs):
            for name, path in paths.items():
                seen[name].append(submit(path))
            seen["upstream-gc"].append(submit(paths["upstream"], "gc"))
    print(f"a Job of {pods} pods, {runs} runs each (median CPU seconds, median peak RSS)")
    medians = {}
    for name, results in seen.items():
        seconds = statistics.median(r["seconds"] for r in results)
        rss = statistics.median(r["rss"] for r in results) / 2**20
        medians[name] = seconds
        frontend = results[0]["frontend"]
        print(
            f"  {name:11} {seconds:6.2f} s  {rss:7.1f} MiB  (front end {frontend}, {results[0]['pods']} pods)"
        )
    print(
        f"  upstream-gc / upstream (what pausing the collector saves): {medians['upstream-gc'] / medians['upstream']:.2f}"
    )
    print(f"  upstream / kueue: {medians['upstream'] / medians['kueue']:.2f}")


if __name__ == "__main__":
    main()
