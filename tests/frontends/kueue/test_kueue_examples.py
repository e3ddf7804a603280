"""The sample workloads under examples/kueue compile against the sample cluster's topology, and
each constrained group fits the domain it asks for (4 GPUs per node, 18 nodes per rack, 4 racks
per block, 2 blocks per zone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from toposched.frontends.kueue import podset_infos
from toposched.frontends.loading import load_workload
from toposched.model import Gang, Group, Mode, SliceLayer

from .helpers import BLOCK, HOST, RACK, SAMPLE, ZONE

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "kueue"
GPUS = {HOST: 4, RACK: 72, BLOCK: 288, ZONE: 576}

EXPECTED = {
    "job-rack.yaml": ("Job", [("main", 16, Mode.REQUIRED, RACK, ())]),
    "jobset-rack-slices.yaml": (
        "JobSet",
        [
            ("driver", 1, Mode.REQUIRED, BLOCK, ()),
            ("workers", 64, Mode.REQUIRED, BLOCK, (SliceLayer(RACK, 16),)),
        ],
    ),
    "lws-group.yaml": (
        "LeaderWorkerSet",
        [
            ("leader-0", 1, Mode.REQUIRED, RACK, ()),
            ("worker-0", 7, Mode.REQUIRED, RACK, ()),
            ("leader-1", 1, Mode.REQUIRED, RACK, ()),
            ("worker-1", 7, Mode.REQUIRED, RACK, ()),
        ],
    ),
    "mpijob-launcher-as-worker.yaml": (
        "MPIJob",
        [("launcher", 1, Mode.PREFERRED, RACK, ()), ("worker", 7, Mode.PREFERRED, RACK, ())],
    ),
    "pytorchjob.yaml": (
        "PyTorchJob",
        [("master", 1, Mode.PREFERRED, RACK, ()), ("worker", 15, Mode.PREFERRED, RACK, ())],
    ),
    "job-multilayer.yaml": (
        "Job",
        [("main", 128, Mode.REQUIRED, ZONE, (SliceLayer(BLOCK, 64), SliceLayer(RACK, 16)))],
    ),
    "pod-group.yaml": ("Pod", [("main", 4, Mode.REQUIRED, HOST, ())]),
}


def load(name: str) -> Gang:
    return load_workload((EXAMPLES / name).read_text(encoding="utf-8"), SAMPLE, source=name)


def test_every_example_is_listed() -> None:
    assert sorted(p.name for p in EXAMPLES.glob("*.yaml")) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_compiles(name: str) -> None:
    gang = load(name)
    kind, podsets = EXPECTED[name]
    assert gang.kind == kind
    assert [(i.name, i.count, i.mode, i.level, i.slices) for i in podset_infos(gang)] == podsets


def gpus(group: Group) -> int:
    return sum(p.requests["nvidia.com/gpu"] for p in group.all_pods())


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_example_fits_its_domains(name: str) -> None:
    gang = load(name)
    required = [g for g in gang.root.children if g.mode is Mode.REQUIRED]
    required += [leaf for leaf in gang.leaves() if leaf.mode is Mode.REQUIRED and leaf not in required]
    for group in required:
        assert group.required is not None
        assert gpus(group) <= GPUS[group.required], group.name
    for leaf in gang.leaves():
        per_pod = max((p.requests["nvidia.com/gpu"] for p in leaf.pods), default=0)
        for layer in leaf.slices:
            assert layer.size * per_pod <= GPUS[layer.level], (leaf.name, layer)
