"""Server-side apply through RestKubeApi: the field manager is sent and recorded, another
manager's fields conflict unless forced, and a field no longer applied is removed."""

from __future__ import annotations

from typing import Any

import pytest
from tests.controller.kube_test_server import Call, KubeTestServer

from toposched.controller.kubeapi import KAI_PODGROUPS, KAI_TOPOLOGIES, ApiConflictError
from toposched.controller.rest import APPLY_PATCH, RestKubeApi


def topology(*labels: str, **metadata: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "pool-a", **metadata},
        "spec": {"levels": [{"nodeLabel": label} for label in labels]},
    }


def managers(obj: dict[str, Any]) -> dict[str, str]:
    return {entry["manager"]: entry["operation"] for entry in obj["metadata"].get("managedFields", [])}


def test_apply_creates_the_object_as_its_field_manager(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    applied = kube_api.apply(
        KAI_TOPOLOGIES, topology("rack", "kubernetes.io/hostname"), field_manager="toposched"
    )

    assert applied["spec"]["levels"] == [{"nodeLabel": "rack"}, {"nodeLabel": "kubernetes.io/hostname"}]
    assert managers(applied) == {"toposched": "Apply"}
    assert kube_test_server.calls == [  # an apply that creates is authorized as a create too
        Call("patch", "kai.scheduler", "topologies", None, "pool-a", APPLY_PATCH, "toposched"),
        Call("create", "kai.scheduler", "topologies", None, "pool-a", None, "toposched"),
    ]


def test_applying_again_updates_and_drops_what_is_no_longer_applied(kube_api: RestKubeApi) -> None:
    kube_api.apply(KAI_TOPOLOGIES, topology("rack", labels={"pool": "a"}), field_manager="toposched")

    again = kube_api.apply(KAI_TOPOLOGIES, topology("block", "rack"), field_manager="toposched")

    assert again["spec"]["levels"] == [{"nodeLabel": "block"}, {"nodeLabel": "rack"}]
    assert "labels" not in again["metadata"]


def test_a_field_another_manager_owns_conflicts_unless_forced(kube_api: RestKubeApi) -> None:
    kube_api.apply(KAI_TOPOLOGIES, topology("rack"), field_manager="kai-operator")

    with pytest.raises(
        ApiConflictError, match=r'apply topologies/pool-a as toposched: .*"kai-operator".*spec\.levels'
    ):
        kube_api.apply(KAI_TOPOLOGIES, topology("block"), field_manager="toposched")
    forced = kube_api.apply(KAI_TOPOLOGIES, topology("block"), field_manager="toposched", force=True)

    assert forced["spec"]["levels"] == [{"nodeLabel": "block"}]
    assert managers(forced) == {"toposched": "Apply"}


def test_the_same_value_is_shared_without_conflict(kube_api: RestKubeApi) -> None:
    kube_api.apply(KAI_TOPOLOGIES, topology("rack"), field_manager="kai-operator")

    shared = kube_api.apply(KAI_TOPOLOGIES, topology("rack"), field_manager="toposched")

    assert managers(shared) == {"kai-operator": "Apply", "toposched": "Apply"}


def test_a_field_changed_by_an_update_conflicts_with_the_applier(kube_api: RestKubeApi) -> None:
    kube_api.apply(KAI_TOPOLOGIES, topology("rack"), field_manager="toposched")
    kube_api.patch(KAI_TOPOLOGIES, "pool-a", {"spec": {"levels": [{"nodeLabel": "zone"}]}})

    with pytest.raises(ApiConflictError, match=r"spec\.levels"):
        kube_api.apply(KAI_TOPOLOGIES, topology("rack"), field_manager="toposched")


def test_apply_with_a_stale_resource_version_is_a_conflict(kube_api: RestKubeApi) -> None:
    first = kube_api.apply(KAI_TOPOLOGIES, topology("rack"), field_manager="toposched")
    kube_api.apply(KAI_TOPOLOGIES, topology("block"), field_manager="toposched")

    with pytest.raises(ApiConflictError, match="modified"):
        kube_api.apply(
            KAI_TOPOLOGIES,
            topology("zone", resourceVersion=first["metadata"]["resourceVersion"]),
            field_manager="toposched",
        )


def test_apply_places_a_namespaced_object_in_its_namespace(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    group = {"metadata": {"name": "gang", "namespace": "team-a"}, "spec": {"minMember": 2, "queue": "q"}}

    kube_api.apply(KAI_PODGROUPS, group, field_manager="toposched")

    stored = kube_test_server.object(KAI_PODGROUPS, "gang", "team-a")
    assert (stored["apiVersion"], stored["kind"]) == ("scheduling.run.ai/v2alpha2", "PodGroup")
    assert {call.namespace for call in kube_test_server.calls} == {"team-a"}
