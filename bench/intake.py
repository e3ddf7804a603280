"""Cluster intake: a ``kubectl get nodes,pods -A -o yaml`` (and ``-o json``) dump → a ``Cluster``.

Writes a realistic dump into a temporary folder, once as YAML and once as JSON (the same
objects, as kubectl prints them: a ``v1 List``, keys sorted, JSON indented by four spaces):
GPU nodes with cloud, GPU and topology labels, taints, three conditions, addresses, an image and
node info; a training pod on every second node (a few of them finished or pending). 14,000 nodes
make about 44 MB of YAML. Each load
runs in a fresh child process that does what ``toposched place --cluster FILE`` does before
placing (read the file, parse it, build the ``Cluster``) and reports its CPU time and peak RSS
(``resource.getrusage(RUSAGE_SELF).ru_maxrss``), so one run's memory cannot pollute another's.
Runs alternate between the formats so foreign load on the machine hits both alike.

The floor is ``json.loads`` of the JSON dump in the same kind of child: what reading the bytes
into Python objects costs at the least; the ratio says what parsing with bounds and building the
model add to it. An empty child (imports only) gives the RSS every process starts with.

``--applied`` gives every pod the annotation ``kubectl apply`` leaves (the applied object as JSON,
in a literal block), as pods created that way carry.

Run: python bench/intake.py [--nodes 14000] [--runs 3] [--applied] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml

GPU = "nvidia.com/gpu"
NODES_PER_RACK, RACKS_PER_BLOCK = 16, 16
ZONES = ("us-central1-a", "us-central1-b", "us-central1-c")

CHILD = """
import json, resource, sys, time
kind, path = sys.argv[1], sys.argv[2]
from toposched.intake.cluster import load_cluster_report
from toposched.intake.parse import CLUSTER_DUMP_LIMITS, read_file
start = time.process_time()
if kind == "floor":
    nodes = len(json.loads(read_file(path, what="cluster", limits=CLUSTER_DUMP_LIMITS))["items"])
elif kind == "empty":
    nodes = 0
else:
    cluster, _ = load_cluster_report(read_file(path, what="cluster", limits=CLUSTER_DUMP_LIMITS), source=path)
    nodes = len(cluster.nodes)
seconds = time.process_time() - start
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps({"seconds": seconds, "rss": rss, "nodes": nodes}))
"""


def node(i: int) -> dict[str, Any]:
    """One GPU node as the API server reports it."""
    rack, slot = divmod(i, NODES_PER_RACK)
    block, _ = divmod(rack, RACKS_PER_BLOCK)
    zone = ZONES[block % len(ZONES)]
    name = f"gke-train-a3-pool-{block:03d}-{rack:05d}-{slot:02d}"
    beat = "2026-11-20T10:15:42Z"
    conditions = [
        ("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available"),
        ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
        ("Ready", "False" if i % 997 == 0 else "True", "KubeletReady", "kubelet is posting ready status"),
    ]
    resources = {
        "cpu": "207830m",
        "ephemeral-storage": "47060071478",
        "hugepages-1Gi": "0",
        "hugepages-2Mi": "0",
        "memory": "1831019860Ki",
        GPU: "8",
        "pods": "110",
    }
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "annotations": {
                "node.alpha.kubernetes.io/ttl": "0",
            },
            "creationTimestamp": "2026-10-01T08:00:00Z",
            "labels": {
                "beta.kubernetes.io/arch": "amd64",
                "beta.kubernetes.io/instance-type": "a3-highgpu-8g",
                "beta.kubernetes.io/os": "linux",
                "cloud.google.com/gke-accelerator": "nvidia-h100-80gb",
                "cloud.google.com/gke-nodepool": f"pool-{block:03d}",
                "cloud.google.com/gce-topology-block": f"block-{block:03d}",
                "cloud.google.com/gce-topology-subblock": f"subblock-{rack:05d}",
                "cloud.google.com/gce-topology-host": f"host-{i:06d}",
                "kubernetes.io/arch": "amd64",
                "kubernetes.io/hostname": name,
                "kubernetes.io/os": "linux",
                "node.kubernetes.io/instance-type": "a3-highgpu-8g",
                "nvidia.com/gpu.count": "8",
                "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3",
                "topology.kubernetes.io/region": "us-central1",
                "topology.kubernetes.io/zone": zone,
            },
            "name": name,
            "resourceVersion": str(90_000_000 + i),
            "uid": f"6c1f{i:08x}-0d6b-4b5e-9a3c-{i:012x}",
        },
        "spec": {
            "podCIDR": f"10.{i >> 8 & 255}.{i & 255}.0/24",
            "providerID": f"gce://train/{zone}/{name}",
            "taints": [{"effect": "NoSchedule", "key": GPU, "value": "present"}],
            **({"unschedulable": True} if i % 1009 == 0 else {}),
        },
        "status": {
            "addresses": [
                {"address": f"10.128.{i >> 8 & 255}.{i & 255}", "type": "InternalIP"},
                {"address": name, "type": "Hostname"},
            ],
            "allocatable": resources,
            "capacity": {**resources, "cpu": "208", "memory": "1871822676Ki"},
            "conditions": [
                {
                    "lastHeartbeatTime": beat,
                    "lastTransitionTime": "2026-10-01T08:02:11Z",
                    "message": message,
                    "reason": reason,
                    "status": status,
                    "type": kind,
                }
                for kind, status, reason, message in conditions
            ],
            "daemonEndpoints": {"kubeletEndpoint": {"Port": 10250}},
            "images": [
                {
                    "names": [f"us-docker.pkg.dev/train/images/{image}@sha256:{i % 7:064x}"],
                    "sizeBytes": 100_000_000 + 1_000 * n,
                }
                for n, image in enumerate(("trainer:v42",))
            ],
            "nodeInfo": {
                "architecture": "amd64",
                "containerRuntimeVersion": "containerd://1.7.22",
                "kernelVersion": "6.1.100+",
                "kubeProxyVersion": "v1.31.1-gke.1678000",
                "kubeletVersion": "v1.31.1-gke.1678000",
                "operatingSystem": "linux",
                "osImage": "Container-Optimized OS from Google",
            },
        },
    }


def pod(i: int, node_name: str, applied: bool = False) -> dict[str, Any]:
    """One pod of a training job: running on the node, or (a few) finished or pending.
    ``applied``: created by ``kubectl apply``, which leaves the applied object in an annotation."""
    job = i // 64
    phase = "Succeeded" if i % 53 == 0 else "Pending" if i % 61 == 0 else "Running"
    out: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "creationTimestamp": "2026-11-20T09:00:00Z",
            "labels": {"batch.kubernetes.io/job-name": f"train-{job}", "job-index": str(i % 64)},
            "name": f"train-{job}-{i % 64}-x7k2p",
            "namespace": f"team-{job % 12}",
            "ownerReferences": [{"apiVersion": "batch/v1", "kind": "Job", "name": f"train-{job}"}],
            "uid": f"0a0b{i:08x}-1111-2222-3333-{i:012x}",
        },
        "spec": {
            "containers": [
                {
                    "image": "us-docker.pkg.dev/train/images/trainer:v42",
                    "name": "trainer",
                    "resources": {
                        "limits": {GPU: "8"},
                        "requests": {"cpu": "180", "memory": "1600Gi", GPU: "8"},
                    },
                }
            ],
            **({} if phase == "Pending" else {"nodeName": node_name}),
            "tolerations": [{"effect": "NoSchedule", "key": GPU, "operator": "Exists"}],
        },
        "status": {"phase": phase, "startTime": "2026-11-20T09:00:05Z"},
    }
    if applied:
        spec = {key: out[key] for key in ("apiVersion", "kind")}
        spec["metadata"] = {key: out["metadata"][key] for key in ("labels", "name", "namespace")}
        spec["spec"] = {key: value for key, value in out["spec"].items() if key != "nodeName"}
        text = json.dumps(spec, separators=(",", ":"), sort_keys=True) + "\n"
        out["metadata"]["annotations"] = {"kubectl.kubernetes.io/last-applied-configuration": text}
    return out


def items(nodes: int, applied: bool = False) -> Iterator[dict[str, Any]]:
    """Nodes first, then a pod on every second node (kubectl prints kinds in the order asked)."""
    names = []
    for i in range(nodes):
        item = node(i)
        names.append(item["metadata"]["name"])
        yield item
    for i, name in enumerate(names[::2]):
        yield pod(i, name, applied)


class KubectlDumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
    """Writes text holding line breaks as a literal block, as kubectl does."""


def _text(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style="|" if "\n" in value else None)


KubectlDumper.add_representer(str, _text)


def write_dumps(nodes: int, folder: Path, applied: bool = False) -> tuple[Path, Path]:
    """The YAML and JSON dumps of ``nodes`` nodes, written item by item."""
    yaml_path, json_path = folder / "cluster.yaml", folder / "cluster.json"
    dumper = KubectlDumper
    with yaml_path.open("w", encoding="utf-8") as y, json_path.open("w", encoding="utf-8") as j:
        y.write("apiVersion: v1\nitems:\n")
        j.write('{\n    "apiVersion": "v1",\n    "items": [\n')
        for n, item in enumerate(items(nodes, applied)):
            y.write(yaml.dump([item], Dumper=dumper, sort_keys=True, default_flow_style=False, width=1000))
            text = textwrap.indent(json.dumps(item, indent=4, sort_keys=True), " " * 8)
            j.write(("" if n == 0 else ",\n") + text)
        y.write('kind: List\nmetadata:\n  resourceVersion: ""\n')
        j.write('\n    ],\n    "kind": "List",\n    "metadata": {\n        "resourceVersion": ""\n    }\n}\n')
    return yaml_path, json_path


def measure(kind: str, path: Path) -> dict[str, float] | str:
    """One load in a fresh child process: CPU seconds, peak RSS bytes, nodes read; or why the
    load failed (the last line it printed)."""
    run = subprocess.run([sys.executable, "-c", CHILD, kind, str(path)], capture_output=True, text=True)
    if run.returncode != 0:
        return (run.stderr.strip().splitlines() or ["no output"])[-1]
    result: dict[str, float] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=14_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="200 nodes, one run (keeps the script alive)")
    parser.add_argument(
        "--applied", action="store_true", help="pods created by kubectl apply (JSON in an annotation)"
    )
    args = parser.parse_args()
    nodes, runs = (200, 1) if args.quick else (args.nodes, args.runs)
    with tempfile.TemporaryDirectory() as tmp:
        yaml_path, json_path = write_dumps(nodes, Path(tmp), args.applied)
        paths = {"yaml": yaml_path, "json": json_path, "floor": json_path, "empty": json_path}
        results: dict[str, list[dict[str, float] | str]] = {kind: [] for kind in paths}
        for _ in range(runs):
            for kind, path in paths.items():
                results[kind].append(measure(kind, path))
        report(nodes, runs, paths, results)


def report(
    nodes: int, runs: int, paths: dict[str, Path], results: dict[str, list[dict[str, float] | str]]
) -> None:
    """Medians per format, with the ratio to the floor and the RSS over an empty child."""

    def median(kind: str, field: str) -> float | None:
        values = [r[field] for r in results[kind] if not isinstance(r, str)]
        return statistics.median(values) if values else None

    floor, empty = median("floor", "seconds") or 0.0, median("empty", "rss") or 0.0
    print(f"cluster intake: {nodes} nodes, {(nodes + 1) // 2} pods, median of {runs} run(s), CPU time")
    for kind in ("yaml", "json", "floor"):
        size = paths[kind].stat().st_size / 2**20
        seconds, rss = median(kind, "seconds"), median(kind, "rss")
        if seconds is None or rss is None:
            failure = next(r for r in results[kind] if isinstance(r, str))
            print(f"  {kind:5} {size:7.1f} MB file  failed: {failure}")
            continue
        ratio = f"{seconds / floor:5.1f}x floor" if floor else "no floor"
        print(
            f"  {kind:5} {size:7.1f} MB file  {seconds:7.2f} s  {ratio}"
            f"  peak RSS {rss / 2**20:7.1f} MB ({(rss - empty) / 2**20:+.1f} MB over an empty child)"
        )


if __name__ == "__main__":
    main()
