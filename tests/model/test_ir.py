"""The IR carries what front ends know: roles, semantics, and facts computed once when built."""

from __future__ import annotations

from dataclasses import replace

import pytest

from toposched.model import Gang, Group, PodSpec, Resources, Role, Semantics, Toleration

CPU1 = Resources({"cpu": 1000})


def pods(n: int, requests: Resources = CPU1) -> tuple[PodSpec, ...]:
    return tuple(PodSpec(f"p{i}", i, requests) for i in range(n))


def test_roles_default_to_none_and_are_kept() -> None:
    assert Group("a").role is Role.NONE
    assert Group("lead", pods=pods(1), role=Role.LEADER).role is Role.LEADER


@pytest.mark.parametrize(
    ("members", "same"),
    [
        ((), True),
        (pods(3), True),
        ((*pods(2), PodSpec("x", 2, Resources({"cpu": 2000}))), False),
        ((*pods(2), PodSpec("x", 2, CPU1, tolerations=(Toleration("k"),))), False),
        ((*pods(2), PodSpec("x", 2, CPU1, node_selector={"zone": "a"})), False),
    ],
)
def test_same_shape_is_computed_when_the_group_is_built(members: tuple[PodSpec, ...], same: bool) -> None:
    group = Group("leaf", pods=members)
    assert group.same_shape is same
    assert group.same_shape is all(p.shape == members[0].shape for p in members)


@pytest.mark.parametrize(
    ("indices", "in_order"),
    [((), True), ((0, 1, 2), True), ((3, 4, 9), True), ((0, 2, 1), False), ((0, 1, 1), False)],
)
def test_index_order_is_computed_when_the_group_is_built(indices: tuple[int, ...], in_order: bool) -> None:
    group = Group("leaf", pods=tuple(PodSpec(f"p{k}", i, CPU1) for k, i in enumerate(indices)))
    assert group.in_index_order is in_order
    assert group.in_index_order is (list(indices) == sorted(set(indices)))


def test_running_says_whether_some_pod_already_has_a_node() -> None:
    assert not Group("leaf", pods=pods(3)).running
    assert Group("leaf", pods=(*pods(2), PodSpec("x", 2, CPU1, node="n1"))).running


def kueue_tree() -> Group:
    leader = Group("leader", pods=pods(1), role=Role.LEADER)
    workers = Group("workers", pods=pods(4), role=Role.WORKERS)
    return Group(
        "job", children=(Group("ps", pods=pods(2)), Group("lws", required="rack", children=(leader, workers)))
    )


@pytest.mark.parametrize(
    ("root", "needs"),
    [
        (kueue_tree(), False),
        (Group("flat", pods=pods(2)), False),
        (Group("job", children=(Group("a", min_member=1, pods=pods(2)),)), True),
        (Group("job", min_sub_group=1, children=(Group("a", pods=pods(2)),)), True),
        (Group("job", children=(Group("a", topology="other", required="rack", pods=pods(2)),)), True),
        (Group("job", children=(Group("a", pods=(PodSpec("p", 0, CPU1, node="n1"),)),)), True),
        (
            Group(
                "job", children=(Group("g", children=(Group("h", children=(Group("a", pods=pods(1)),)),)),)
            ),
            True,
        ),
    ],
)
def test_needs_hierarchy_is_a_fact_of_the_tree(root: Group, needs: bool) -> None:
    gang = Gang("g", root)
    assert gang.needs_hierarchy is needs
    assert gang.hierarchical is needs  # Kueue semantics by default


def test_hierarchy_semantics_always_takes_the_hierarchical_solver() -> None:
    gang = Gang("g", kueue_tree(), semantics=Semantics.HIERARCHY)
    assert not gang.needs_hierarchy and gang.hierarchical


def test_facts_follow_a_replaced_tree() -> None:
    gang = Gang("g", kueue_tree())
    deeper = replace(gang, root=Group("job", children=(Group("a", min_member=1, pods=pods(1)),)))
    assert not gang.needs_hierarchy and deeper.needs_hierarchy
    assert gang == replace(gang)  # the facts take no part in equality
