"""Conditional and bounded writes through RestKubeApi.

On the real API server: a patch carrying the resourceVersion it was decided on conflicts once the
object changed, names its field manager, and a delete with preconditions deletes only the object
it was decided on (not its owner's replacement of the same name). On the test double, what a real
server cannot be made to do: apply a write so slowly that its deadline (``timeout``) passes first,
and the double's own audit record, which the fencing test reads.
"""

from __future__ import annotations

import pytest
from kubernetes.client import Configuration
from tests.controller.cluster import kube_pod
from tests.controller.kube_test_server import KubeTestServer
from tests.controller.real_cluster import RealCluster

from toposched.controller.kubeapi import PODS, ApiConflictError, KubeApiError, Object, Preconditions
from toposched.controller.rest import RestKubeApi


def labels(pod: Object) -> dict[str, str]:
    return dict(pod["metadata"].get("labels") or {})


def test_a_patch_decided_on_an_older_version_conflicts_and_changes_nothing(real_cluster: RealCluster) -> None:
    api, namespace = real_cluster.admin, real_cluster.namespace
    read = real_cluster.create(PODS, kube_pod("p0", gpus=1))
    api.patch(PODS, "p0", {"metadata": {"labels": {"by": "other"}}}, namespace)
    stale = {"metadata": {"resourceVersion": read["metadata"]["resourceVersion"], "labels": {"by": "us"}}}

    with pytest.raises(ApiConflictError, match="the object has been modified"):
        api.patch(PODS, "p0", stale, namespace, field_manager="toposched")
    unchanged = real_cluster.pod("p0")
    fresh = {
        "metadata": {"resourceVersion": unchanged["metadata"]["resourceVersion"], "labels": {"by": "us"}}
    }
    api.patch(PODS, "p0", fresh, namespace, field_manager="toposched")

    assert labels(unchanged) == {"by": "other"}
    assert labels(real_cluster.pod("p0")) == {"by": "us"}


def test_patches_name_their_field_manager(real_cluster: RealCluster) -> None:
    real_cluster.create(PODS, kube_pod("p0", gpus=1))

    patched = real_cluster.admin.patch(
        PODS, "p0", {"metadata": {"labels": {"a": "b"}}}, real_cluster.namespace, field_manager="toposched"
    )

    written = [e for e in patched["metadata"]["managedFields"] if e["manager"] == "toposched"]
    assert [(e["operation"], list(e["fieldsV1"]["f:metadata"])) for e in written] == [
        ("Update", ["f:labels"])
    ]


def test_a_delete_with_preconditions_deletes_only_the_object_it_was_decided_on(
    real_cluster: RealCluster,
) -> None:
    api, namespace = real_cluster.admin, real_cluster.namespace
    read = real_cluster.create(PODS, kube_pod("p0", gpus=1))
    api.delete(PODS, "p0", namespace)  # unbound: gone at once
    replacement = real_cluster.create(PODS, kube_pod("p0", gpus=1))  # its owner's: same name, new uid
    stale = Preconditions(read["metadata"]["uid"], read["metadata"]["resourceVersion"])

    with pytest.raises(
        ApiConflictError, match=r"the UID in the precondition .* does not match the UID in record"
    ):
        api.delete(PODS, "p0", namespace, preconditions=stale)
    kept = real_cluster.pod("p0")
    current = Preconditions(replacement["metadata"]["uid"], replacement["metadata"]["resourceVersion"])
    api.delete(PODS, "p0", namespace, preconditions=current)

    assert kept["metadata"]["uid"] == replacement["metadata"]["uid"]
    assert not real_cluster.pod_exists("p0")


def test_a_write_the_server_cannot_apply_within_its_timeout_fails_and_is_not_applied(
    kube_test_server: KubeTestServer, kube_api: RestKubeApi
) -> None:
    """On the double: a real server cannot be made slow on demand."""
    kube_test_server.add_pod("p0")
    kube_test_server.latency = 0.3

    with pytest.raises(KubeApiError, match="504"):
        kube_api.patch(PODS, "p0", {"metadata": {"labels": {"late": "yes"}}}, "default", timeout=0.1)
    kube_api.patch(PODS, "p0", {"metadata": {"labels": {"in-time": "yes"}}}, "default", timeout=5.0)

    assert labels(kube_test_server.object(PODS, "p0")) == {"in-time": "yes"}
    assert [(w.verb, w.name) for w in kube_test_server.writes] == [("patch", "p0")]


def test_the_doubles_audit_record_names_who_wrote(kube_test_server: KubeTestServer) -> None:
    """The double's audit record, which its fencing test reads: the writer is its bearer token."""
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
