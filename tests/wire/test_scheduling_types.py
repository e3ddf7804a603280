"""The Go types the kube front end checks objects against are the k8s.io/api module's: the
generated module matches what tools/gen_scheduling_types.py writes from the module sources, and
every version the wire layer serves is described."""

from __future__ import annotations

import shutil

import pytest
from tests.wire.generator_tools import load_tool

from toposched.wire.scheduling import SERVED
from toposched.wire.scheduling_types import TYPES


def test_the_generated_module_is_what_the_k8s_api_sources_give() -> None:
    gen = load_tool("gen_scheduling_types")
    missing = [v for _, v, p, _ in gen.SOURCES if not (gen.module_dir(v) / p / "types.go").is_file()]
    if missing or shutil.which("ruff") is None:
        pytest.skip(f"k8s.io/api sources not in the Go module cache ({', '.join(sorted(set(missing)))})")
    assert gen.generate() == gen.TARGET.read_text(encoding="utf-8")


def test_every_served_version_is_described() -> None:
    assert tuple(gv for gv in TYPES if gv.startswith("scheduling.k8s.io/")) == SERVED


def test_v1beta1_serves_the_composite_fields_and_v1alpha2_does_not() -> None:
    """Item 12 of issue 22: v1beta1 serves them behind the CompositePodGroup gate."""
    beta = TYPES["scheduling.k8s.io/v1beta1"]
    pod_group = beta["PodGroupSpec"].field("parentCompositePodGroupName")
    assert pod_group is not None and "+k8s:ifEnabled(CompositePodGroup)=+k8s:optional" in pod_group.markers
    assert beta["WorkloadSpec"].field("compositePodGroupTemplates") is not None
    assert "CompositePodGroup" not in beta
    alpha2 = TYPES["scheduling.k8s.io/v1alpha2"]
    assert alpha2["PodGroupSpec"].field("parentCompositePodGroupName") is None
