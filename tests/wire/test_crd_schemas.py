"""The schemas custom resources are checked against are the installed CRDs': the generated module
matches what tools/gen_crd_schemas.py writes from the CRD files, every CEL rule has its
evaluation, and the model's level bound is the Topology CRDs'."""

from __future__ import annotations

import shutil

import pytest
from tests.wire.generator_tools import load_tool

from toposched.model.topology import MAX_LEVELS
from toposched.wire.crd import RULES, normalised
from toposched.wire.crd_schemas import RESOURCES
from toposched.wire.openapi import Schema


def test_the_generated_module_is_what_the_crd_files_give() -> None:
    if shutil.which("ruff") is None:
        pytest.skip("ruff formats the generated module and is not installed")
    gen = load_tool("gen_crd_schemas")
    assert gen.generate() == gen.TARGET.read_text(encoding="utf-8")


def test_the_kinds_toposched_reads_are_described() -> None:
    assert set(RESOURCES) == {
        ("scheduling.run.ai/v2alpha2", "PodGroup"),
        ("kai.scheduler/v1alpha1", "Topology"),
        ("kueue.x-k8s.io/v1beta1", "Topology"),
        ("kueue.x-k8s.io/v1beta2", "Topology"),
    }


def _nodes(schema: Schema) -> list[Schema]:
    children = [*schema.properties.values(), schema.items, schema.additional]
    return [schema, *(n for c in children if c is not None for n in _nodes(c))]


def test_every_cel_rule_is_evaluated() -> None:
    rules = {
        normalised(r.rule)
        for resource in RESOURCES.values()
        for n in _nodes(resource.schema)
        for r in n.rules
    }
    assert rules and rules <= set(RULES), sorted(rules - set(RULES))


def test_the_model_takes_as_many_levels_as_the_topology_crds() -> None:
    """Kueue v0.19 and KAI allow 16 levels; the model's bound was Kueue's former 8."""
    bounds = {
        resource.schema.properties["spec"].properties["levels"].max_items
        for (_, kind), resource in RESOURCES.items()
        if kind == "Topology"
    }
    assert bounds == {MAX_LEVELS} == {16}
