"""Conditional and bounded writes over HTTP against the API server test double: a patch carrying
the resourceVersion it was decided on, a delete with preconditions, and a write whose deadline
(``timeout``) passes on a slow server, which is refused and not applied."""

from __future__ import annotations

import pytest
from kubernetes.client import Configuration
from tests.controller.kube_test_server import KubeTestServer

from toposched.controller.kubeapi import PODS, ApiConflictError, KubeApiError, Preconditions
from toposched.controller.rest import RestKubeApi


def labels(server: KubeTestServer) -> dict[str, str]:
    return dict(server.object(PODS, "p0")["metadata"].get("labels") or {})


def test_a_patch_decided_on_an_older_version_conflicts_and_changes_nothing(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    read = kube_test_server.add_pod("p0")
    kube_test_server.change(
        PODS, "p0", lambda p: {**p, "metadata": {**p["metadata"], "labels": {"by": "other"}}}
    )
    stale = {"metadata": {"resourceVersion": read["metadata"]["resourceVersion"], "labels": {"by": "us"}}}

    with pytest.raises(ApiConflictError, match="the object has been modified"):
        kube_api.patch(PODS, "p0", stale, "default", field_manager="toposched")

    assert labels(kube_test_server) == {"by": "other"}
    fresh = kube_test_server.object(PODS, "p0")["metadata"]["resourceVersion"]
    kube_api.patch(PODS, "p0", {"metadata": {"resourceVersion": fresh, "labels": {"by": "us"}}}, "default")
    assert labels(kube_test_server) == {"by": "us"}


def test_patches_name_their_field_manager(kube_test_server: KubeTestServer, kube_api: RestKubeApi) -> None:
    kube_test_server.add_pod("p0")
    kube_api.patch(PODS, "p0", {"metadata": {"labels": {"a": "b"}}}, "default", field_manager="toposched")
    managers = {e["manager"] for e in kube_test_server.object(PODS, "p0")["metadata"]["managedFields"]}
    assert managers == {"toposched"}
    assert kube_test_server.calls[-1].field_manager == "toposched"


def test_a_delete_with_preconditions_deletes_only_the_object_it_was_decided_on(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    read = kube_test_server.add_pod("p0")
    kube_test_server.remove(PODS, "p0")
    kube_test_server.add_pod("p0")  # recreated by its owner: same name, another uid
    stale = Preconditions(read["metadata"]["uid"], read["metadata"]["resourceVersion"])

    with pytest.raises(ApiConflictError, match="Precondition failed: UID in precondition"):
        kube_api.delete(PODS, "p0", "default", preconditions=stale)

    current = kube_test_server.object(PODS, "p0")["metadata"]
    kube_api.delete(
        PODS, "p0", "default", preconditions=Preconditions(current["uid"], current["resourceVersion"])
    )
    assert [w.verb for w in kube_test_server.writes] == ["delete"]


def test_a_write_the_server_cannot_apply_within_its_timeout_fails_and_is_not_applied(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    kube_test_server.add_pod("p0")
    kube_test_server.latency = 0.3

    with pytest.raises(KubeApiError, match="504"):
        kube_api.patch(PODS, "p0", {"metadata": {"labels": {"late": "yes"}}}, "default", timeout=0.1)
    kube_api.patch(PODS, "p0", {"metadata": {"labels": {"in-time": "yes"}}}, "default", timeout=5.0)

    assert labels(kube_test_server) == {"in-time": "yes"}
    assert [(w.verb, w.name) for w in kube_test_server.writes] == [("patch", "p0")]


def test_the_audit_record_names_who_wrote(kube_test_server: KubeTestServer) -> None:
    kube_test_server.add_pod("p0")
    configuration = Configuration(host=kube_test_server.url, api_key={"BearerToken": "replica-a"})
    configuration.api_key_prefix = {"BearerToken": "Bearer"}
    api = RestKubeApi(configuration, request_timeout=10)
    try:
        written = api.patch(PODS, "p0", {"metadata": {"labels": {"a": "b"}}}, "default")
    finally:
        api.close()
    (write,) = kube_test_server.writes
    assert (write.user, write.verb, write.name) == ("replica-a", "patch", "p0")
    assert write.resource_version == int(written["metadata"]["resourceVersion"])
