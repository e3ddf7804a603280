"""Server-side apply through RestKubeApi on the real API server: the field manager is recorded,
another manager's field conflicts unless forced, a value both apply is shared, a field no longer
applied is removed, a stale resourceVersion conflicts, and an apply that creates its object needs
RBAC's ``create`` as well as ``patch`` (why deploy/ grants both)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.controller.real_cluster import RealCluster
from tests.realkube.accounts import service_account_kubeconfig

from toposched.controller.kubeapi import KAI_PODGROUPS, ApiConflictError, KubeApiError, Object, Resource
from toposched.controller.rest import connect

ROLES = Resource("rbac.authorization.k8s.io", "v1", "roles", "Role")
ROLE_BINDINGS = Resource("rbac.authorization.k8s.io", "v1", "rolebindings", "RoleBinding")
SERVICE_ACCOUNTS = Resource("", "v1", "serviceaccounts", "ServiceAccount")


def podgroup(cluster: RealCluster, min_member: int = 2, **metadata: Any) -> dict[str, Any]:
    return {
        "metadata": {"name": "gang", "namespace": cluster.namespace, **metadata},
        "spec": {"minMember": min_member, "queue": "q"},
    }


def managers(obj: Object) -> dict[str, str]:
    return {entry["manager"]: entry["operation"] for entry in obj["metadata"].get("managedFields", [])}


def test_apply_creates_the_object_in_its_namespace_as_its_field_manager(real_cluster: RealCluster) -> None:
    applied = real_cluster.admin.apply(KAI_PODGROUPS, podgroup(real_cluster), field_manager="toposched")

    assert (applied["apiVersion"], applied["kind"]) == ("scheduling.run.ai/v2alpha2", "PodGroup")
    assert applied["metadata"]["namespace"] == real_cluster.namespace
    assert applied["spec"] == {"minMember": 2, "queue": "q"}
    assert managers(applied) == {"toposched": "Apply"}


def test_an_apply_that_creates_its_object_needs_create_as_well_as_patch(real_cluster: RealCluster) -> None:
    namespace, admin = real_cluster.namespace, real_cluster.admin
    admin.create(SERVICE_ACCOUNTS, {"metadata": {"name": "patcher", "namespace": namespace}})
    rule = {"apiGroups": ["scheduling.run.ai"], "resources": ["podgroups"], "verbs": ["patch"]}
    admin.create(ROLES, {"metadata": {"name": "patcher", "namespace": namespace}, "rules": [rule]})
    admin.create(
        ROLE_BINDINGS,
        {
            "metadata": {"name": "patcher", "namespace": namespace},
            "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "patcher"},
            "subjects": [{"kind": "ServiceAccount", "name": "patcher", "namespace": namespace}],
        },
    )
    patcher = connect(str(service_account_kubeconfig(real_cluster.plane, namespace, "patcher")))
    try:
        with pytest.raises(KubeApiError) as refused:
            patcher.apply(KAI_PODGROUPS, podgroup(real_cluster), field_manager="toposched")
        admin.create(KAI_PODGROUPS, podgroup(real_cluster))
        labelled = podgroup(real_cluster, labels={"pool": "a"})
        updated = patcher.apply(KAI_PODGROUPS, labelled, field_manager="toposched")
    finally:
        patcher.close()

    assert refused.value.status == 403
    assert 'cannot create resource "podgroups"' in str(refused.value)
    assert updated["metadata"]["labels"] == {"pool": "a"}


def test_applying_again_updates_and_drops_what_is_no_longer_applied(real_cluster: RealCluster) -> None:
    api = real_cluster.admin
    api.apply(KAI_PODGROUPS, podgroup(real_cluster, labels={"pool": "a"}), field_manager="toposched")

    again = api.apply(KAI_PODGROUPS, podgroup(real_cluster, 4), field_manager="toposched")

    assert again["spec"]["minMember"] == 4
    assert "labels" not in again["metadata"]


def test_a_field_another_manager_owns_conflicts_unless_forced(real_cluster: RealCluster) -> None:
    api = real_cluster.admin
    api.apply(KAI_PODGROUPS, podgroup(real_cluster), field_manager="kai-operator")

    with pytest.raises(
        ApiConflictError, match=r'apply podgroups/gang as toposched: .*"kai-operator".*\.spec\.minMember'
    ):
        api.apply(KAI_PODGROUPS, podgroup(real_cluster, 3), field_manager="toposched")
    forced = api.apply(KAI_PODGROUPS, podgroup(real_cluster, 3), field_manager="toposched", force=True)

    assert forced["spec"]["minMember"] == 3
    assert managers(forced) == {"toposched": "Apply", "kai-operator": "Apply"}  # it keeps spec.queue


def test_the_same_value_is_shared_without_conflict(real_cluster: RealCluster) -> None:
    api = real_cluster.admin
    api.apply(KAI_PODGROUPS, podgroup(real_cluster), field_manager="kai-operator")

    shared = api.apply(KAI_PODGROUPS, podgroup(real_cluster), field_manager="toposched")

    assert managers(shared) == {"kai-operator": "Apply", "toposched": "Apply"}


def test_a_field_changed_by_an_update_conflicts_with_the_applier(real_cluster: RealCluster) -> None:
    api = real_cluster.admin
    api.apply(KAI_PODGROUPS, podgroup(real_cluster), field_manager="toposched")
    api.patch(
        KAI_PODGROUPS, "gang", {"spec": {"minMember": 5}}, real_cluster.namespace, field_manager="kubectl"
    )

    with pytest.raises(ApiConflictError, match=r'"kubectl".*\.spec\.minMember'):
        api.apply(KAI_PODGROUPS, podgroup(real_cluster), field_manager="toposched")


def test_apply_with_a_stale_resource_version_is_a_conflict(real_cluster: RealCluster) -> None:
    api = real_cluster.admin
    first = api.apply(KAI_PODGROUPS, podgroup(real_cluster), field_manager="toposched")
    api.apply(KAI_PODGROUPS, podgroup(real_cluster, 3), field_manager="toposched")

    stale = podgroup(real_cluster, 4, resourceVersion=first["metadata"]["resourceVersion"])
    with pytest.raises(ApiConflictError, match="has been modified"):
        api.apply(KAI_PODGROUPS, stale, field_manager="toposched")
