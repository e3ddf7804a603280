"""Resource vectors, pod specs and tolerations."""

from __future__ import annotations

import pytest

from toposched.model import Resources, SpecError, Taint, TaintEffect, Toleration, TolerationOperator
from toposched.model.node import tolerates_all
from toposched.model.podspec import effective_requests, parse_tolerations


def test_missing_resource_is_zero_and_zero_entries_drop() -> None:
    r = Resources({"cpu": 1000, "memory": 0})
    assert r["nvidia.com/gpu"] == 0
    assert "memory" not in r
    assert len(r) == 1


def test_arithmetic_and_pod_slot() -> None:
    a = Resources.parse({"cpu": "1", "nvidia.com/gpu": "2"})
    b = Resources.parse({"cpu": "500m"})
    assert (a + b)["cpu"] == 1500
    assert (a - b)["cpu"] == 500
    assert a.scaled(3)["nvidia.com/gpu"] == 6
    assert a.with_pod_slot()["pods"] == 1
    assert a == Resources({"cpu": 1000, "nvidia.com/gpu": 2})
    assert hash(a) == hash(Resources({"nvidia.com/gpu": 2, "cpu": 1000}))


def test_parse_reports_every_bad_quantity() -> None:
    with pytest.raises(SpecError) as info:
        Resources.parse({"cpu": "x", "memory": "1Q", "pods": "10"}, path="alloc")
    assert [p.path for p in info.value.problems] == ["alloc.cpu", "alloc.memory"]


def test_effective_requests_sum_containers_and_max_init() -> None:
    spec = {
        "initContainers": [
            {"name": "setup", "resources": {"requests": {"cpu": "3", "memory": "1Gi"}}},
            {"name": "proxy", "restartPolicy": "Always", "resources": {"requests": {"cpu": "500m"}}},
        ],
        "containers": [
            {"name": "a", "resources": {"requests": {"cpu": "1", "nvidia.com/gpu": "4"}}},
            {"name": "b", "resources": {"requests": {"cpu": "1", "memory": "2Gi"}}},
        ],
        "overhead": {"cpu": "100m"},
    }
    requests = effective_requests(spec)
    # containers 2 cpu + sidecar 0.5 = 2.5 < init 3 (the setup container ran before the sidecar)
    assert requests["cpu"] == 3000 + 100
    assert requests["memory"] == 2 * 2**30
    assert requests["nvidia.com/gpu"] == 4


def test_effective_requests_error_path() -> None:
    with pytest.raises(SpecError) as info:
        effective_requests(
            {"containers": [{"resources": {"requests": {"cpu": "lots"}}}]}, path="spec.template.spec"
        )
    assert info.value.problems[0].path == "spec.template.spec.containers[0].resources.requests.cpu"


@pytest.mark.parametrize(
    ("toleration", "taint", "tolerated"),
    [
        pytest.param(Toleration("k", TolerationOperator.EQUAL, "v"), Taint("k", "v"), True, id="equal"),
        pytest.param(
            Toleration("k", TolerationOperator.EQUAL, "w"), Taint("k", "v"), False, id="value-differs"
        ),
        pytest.param(Toleration("k", TolerationOperator.EXISTS), Taint("k", "v"), True, id="exists"),
        pytest.param(Toleration("", TolerationOperator.EXISTS), Taint("any", "v"), True, id="exists-all"),
        pytest.param(
            Toleration("k", TolerationOperator.EXISTS, effect=TaintEffect.NO_EXECUTE),
            Taint("k", "v", TaintEffect.NO_SCHEDULE),
            False,
            id="effect-differs",
        ),
    ],
)
def test_toleration_matching(toleration: Toleration, taint: Taint, tolerated: bool) -> None:
    assert toleration.tolerates(taint) is tolerated


def test_prefer_no_schedule_never_blocks() -> None:
    soft = Taint("k", "v", TaintEffect.PREFER_NO_SCHEDULE)
    hard = Taint("gpu", "present", TaintEffect.NO_SCHEDULE)
    assert tolerates_all((), (soft,)) is None
    assert tolerates_all((), (soft, hard)) == hard
    assert str(hard) == "gpu=present:NoSchedule"


def test_parse_tolerations_rejects_unknown_operator() -> None:
    with pytest.raises(SpecError) as info:
        parse_tolerations([{"key": "a", "operator": "Maybe"}])
    assert info.value.problems[0].path == "spec.tolerations[0].operator"
    assert (
        parse_tolerations([{"key": "a", "operator": "Exists", "effect": "NoSchedule"}])[0].effect
        is TaintEffect.NO_SCHEDULE
    )
