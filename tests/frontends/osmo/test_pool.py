"""Pool configs: topology keys, the scheduler check, backend resolution, ``pool_keys``."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.frontends.osmo import parse_pool, pool_keys
from toposched.model import TopologySpecError

KAI = {"name": "be", "k8s_namespace": "ns", "scheduler_settings": {"scheduler_type": "kai"}}
PLAIN = {"name": "be", "k8s_namespace": "ns", "scheduler_settings": {"scheduler_type": "none"}}
ZONE = {"key": "zone", "label": "topology.kubernetes.io/zone"}
RACK = {"key": "rack", "label": "topology.kubernetes.io/rack"}


def pool(keys: list[dict[str, str]], backend: dict[str, Any] = KAI) -> dict[str, Any]:
    return {"name": "p", "backend": backend, "topology_keys": keys}


def test_keys_keep_pool_order_coarsest_first() -> None:
    parsed = parse_pool(pool([ZONE, RACK]))
    assert pool_keys(parsed) == [
        {"key": "zone", "label": "topology.kubernetes.io/zone", "order": 0},
        {"key": "rack", "label": "topology.kubernetes.io/rack", "order": 1},
    ]
    assert parsed.queue == "osmo-pool-ns-p"
    assert parsed.topology_name == "osmo-pool-ns-p-topology"


@pytest.mark.parametrize(
    ("keys", "backend", "path", "words"),
    [
        pytest.param(
            [ZONE, {"key": "zone", "label": "x/y"}],
            KAI,
            "pool.topology_keys[zone].key",
            "twice",
            id="duplicate-key",
        ),
        pytest.param(
            [ZONE, {"key": "z2", "label": ZONE["label"]}],
            KAI,
            "pool.topology_keys[z2].label",
            "used by two",
            id="duplicate-label",
        ),
        pytest.param(
            [{"key": "rack", "label": "Not A Label!"}],
            KAI,
            "pool.topology_keys[rack].label",
            "not a valid",
            id="bad-label",
        ),
        pytest.param([RACK], PLAIN, "pool.topology_keys", "'none'", id="scheduler-without-topology"),
    ],
)
def test_bad_pools_are_rejected_with_a_path(
    keys: list[dict[str, str]], backend: dict[str, Any], path: str, words: str
) -> None:
    with pytest.raises(TopologySpecError) as err:
        parse_pool(pool(keys, backend))
    problem = next(p for p in err.value.problems if p.path == path)
    assert words in problem.message
    assert problem.hint


def test_scheduler_error_names_scheduler_and_fix() -> None:
    with pytest.raises(TopologySpecError) as err:
        parse_pool(pool([RACK], PLAIN))
    (problem,) = err.value.problems
    assert "be" in problem.message and "p" in problem.message and "none" in problem.message
    assert "KAI" in problem.hint and "topology_keys: []" in problem.hint


def test_empty_keys_allowed_on_any_scheduler() -> None:
    assert parse_pool(pool([], PLAIN)).topology_keys == ()


def test_backend_by_name_needs_the_backend() -> None:
    raw = {"name": "p", "backend": "be", "topology_keys": [RACK]}
    assert parse_pool(raw, KAI).backend.k8s_namespace == "ns"
    with pytest.raises(TopologySpecError, match="not described"):
        parse_pool(raw)
    with pytest.raises(TopologySpecError, match="names backend 'be'"):
        parse_pool(raw, {**KAI, "name": "other"})


def test_pool_and_backend_side_by_side() -> None:
    raw = {"backend": KAI, "pool": {"name": "p", "backend": "be", "topology_keys": [ZONE]}}
    assert parse_pool(raw).keys == ("zone",)


def test_unknown_field_is_rejected() -> None:
    with pytest.raises(TopologySpecError) as err:
        parse_pool({**pool([ZONE]), "topologyKeys": []})
    assert err.value.problems[0].path == "pool.topologyKeys"
