"""Topology sync: create, leave current objects alone, delete+create on change, delete stale."""

from __future__ import annotations

from typing import Any

from toposched.frontends.osmo import (
    Backend,
    Op,
    apply_operations,
    parse_pool,
    sync_topologies,
    topology_object,
)

BACKEND = Backend.model_validate({"name": "be", "k8s_namespace": "ns"})


def pool(name: str, *labels: str) -> Any:
    keys = [{"key": label.rsplit("/", 1)[-1], "label": label} for label in labels]
    return parse_pool({"name": name, "backend": "be", "topology_keys": keys}, BACKEND)


def ops(pools: list[Any], existing: list[Any]) -> list[tuple[str, str]]:
    return [(o.op.value, o.name) for o in sync_topologies(BACKEND, pools, existing)]


def test_create_then_nothing_then_replace_then_delete() -> None:
    state: list[Any] = []
    steps = [
        ([pool("a", "x/zone", "x/rack"), pool("b")], [("create", "osmo-pool-ns-a-topology")]),
        ([pool("a", "x/zone", "x/rack"), pool("b")], []),
        (
            [pool("a", "x/rack", "x/zone")],
            [("delete", "osmo-pool-ns-a-topology"), ("create", "osmo-pool-ns-a-topology")],
        ),
        ([pool("a")], [("delete", "osmo-pool-ns-a-topology")]),
    ]
    for pools, expected in steps:
        found = sync_topologies(BACKEND, pools, state)
        assert [(o.op.value, o.name) for o in found] == expected
        state = apply_operations(state, found)
    assert state == []


def test_extra_labels_and_server_fields_do_not_count_as_change() -> None:
    target = topology_object(pool("a", "x/zone"))
    assert target is not None
    existing = {
        **target,
        "metadata": {
            **target["metadata"],
            "uid": "u",
            "labels": {**target["metadata"]["labels"], "extra": "1"},
        },
        "status": {"phase": "Ready"},
    }
    assert ops([pool("a", "x/zone")], [existing]) == []


def test_missing_target_label_or_other_api_version_is_a_change() -> None:
    target = topology_object(pool("a", "x/zone"))
    assert target is not None
    relabelled = {
        **target,
        "metadata": {"name": target["metadata"]["name"], "labels": {"osmo.namespace": "ns"}},
    }
    older = {**target, "apiVersion": "kai.scheduler/v1"}
    for existing in (relabelled, older):
        assert [o.op for o in sync_topologies(BACKEND, [pool("a", "x/zone")], [existing])] == [
            Op.DELETE,
            Op.CREATE,
        ]


def test_objects_of_other_namespaces_untouched() -> None:
    other = {
        "apiVersion": "kai.scheduler/v1alpha1",
        "kind": "Topology",
        "metadata": {"name": "t", "labels": {"osmo.namespace": "elsewhere"}},
        "spec": {"levels": []},
    }
    assert ops([], [other]) == []


def test_backend_without_topology_support_gets_no_topology() -> None:
    plain = Backend.model_validate(
        {"name": "be", "k8s_namespace": "ns", "scheduler_settings": {"scheduler_type": "none"}}
    )
    created = topology_object(pool("a", "x/zone"))
    assert created is not None
    assert [o.op for o in sync_topologies(plain, [pool("a")], [created])] == [Op.DELETE]
