"""Gang shapes: the key under which a cycle shares proven refusals between alike gangs."""

from __future__ import annotations

import dataclasses

import pytest

from toposched.model import Gang, Group, PodSpec, Policy, Resources, Toleration
from toposched.scheduler.shapes import SHAPE_FIELDS, shape_of

GPU = Resources({"nvidia.com/gpu": 1})


def gang(
    name: str = "a",
    *,
    pods: int = 4,
    required: str | None = "rack",
    requests: Resources = GPU,
    tolerations: tuple[Toleration, ...] = (),
    priority: int = 0,
    leaf: str = "main",
) -> Gang:
    members = tuple(PodSpec(f"{name}-{i}", i, requests, tolerations) for i in range(pods))
    root = Group(name, children=(Group(leaf, required=required, pods=members),))
    return Gang(name, root, namespace=f"ns-{name}", priority=priority)


@pytest.mark.parametrize("kind", list(SHAPE_FIELDS), ids=lambda kind: kind.__name__)
def test_a_shape_reads_every_field_of_the_ir_but_names(kind: type) -> None:
    """A field added to the IR must be added to the shape (or left out there on purpose)."""
    read, left_out = SHAPE_FIELDS[kind]
    assert {f.name for f in dataclasses.fields(kind) if f.compare} == read | left_out


def test_gangs_that_differ_only_in_names_and_priority_share_a_shape() -> None:
    assert shape_of(gang("a"), ["t"], Policy.MIXED) == shape_of(gang("b", priority=7), ["t"], Policy.MIXED)


@pytest.mark.parametrize(
    "other",
    [
        pytest.param(gang(pods=5), id="pod count"),
        pytest.param(gang(required="block"), id="constraint"),
        pytest.param(gang(requests=Resources({"nvidia.com/gpu": 2})), id="requests"),
        pytest.param(gang(tolerations=(Toleration("k", "Exists"),)), id="tolerations"),
        pytest.param(gang(leaf="workers"), id="group name"),
    ],
)
def test_what_decides_the_fit_makes_another_shape(other: Gang) -> None:
    assert shape_of(gang(), ["t"], Policy.MIXED) != shape_of(other, ["t"], Policy.MIXED)


def test_the_topology_and_the_policy_are_part_of_the_shape() -> None:
    base = shape_of(gang(), ["t"], Policy.MIXED)
    assert base != shape_of(gang(), ["u"], Policy.MIXED)
    assert base != shape_of(gang(), ["t"], Policy.BINPACK)
