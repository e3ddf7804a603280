"""Identities on a test control plane: namespaces as a cluster would have them, manifests applied
by the admin, and a kubeconfig that acts as a ServiceAccount (a token from the TokenRequest API),
so a test is held to exactly the RBAC rules it was granted."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import yaml
from tests.realkube.control_plane import ControlPlane, write_kubeconfig
from tests.realkube.processes import ControlPlaneError

from toposched.controller.kubeapi import ApiConflictError, Object, Resource

NAMESPACES = Resource("", "v1", "namespaces", "Namespace", namespaced=False)
SERVICE_ACCOUNTS = Resource("", "v1", "serviceaccounts", "ServiceAccount")
FIELD_MANAGER = "toposched-test"
TOKEN_SECONDS = 3600  # the shortest lifetime the API server grants without a warning; outlives a run


def ensure_namespace(plane: ControlPlane, name: str, labels: dict[str, str] | None = None) -> None:
    """Creates the namespace and its ``default`` ServiceAccount (which kube-controller-manager,
    not run here, would make; the ServiceAccount admission plugin wants it before any pod)."""
    api = plane.admin_api()
    try:
        for resource, obj in (
            (NAMESPACES, {"metadata": {"name": name, "labels": labels or {}}}),
            (SERVICE_ACCOUNTS, {"metadata": {"name": "default", "namespace": name}}),
        ):
            with contextlib.suppress(ApiConflictError):  # already there
                api.create(resource, obj)
    finally:
        api.close()


def manifest_documents(path: Path) -> Iterator[dict[str, Any]]:
    for document in yaml.safe_load_all(path.read_text()):
        if document:
            yield document


def apply_manifest(plane: ControlPlane, path: Path) -> list[Object]:
    """Every object in ``path`` applied (server-side) as the admin, each namespace created first."""
    documents = list(manifest_documents(path))
    for namespace in sorted(
        {str(d["metadata"]["namespace"]) for d in documents if "namespace" in d["metadata"]}
    ):
        ensure_namespace(plane, namespace)
    api = plane.admin_api()
    try:
        return [
            api.apply(plane.resource_for(d["apiVersion"], d["kind"]), d, field_manager=FIELD_MANAGER)
            for d in documents
        ]
    finally:
        api.close()


def service_account_kubeconfig(
    plane: ControlPlane, namespace: str, name: str, path: Path | None = None
) -> Path:
    """A kubeconfig (at ``path``, else in the control plane's folder) that authenticates as
    ServiceAccount ``namespace/name`` with a bound token; ``ControlPlaneError`` if the account
    does not exist."""
    path = path or plane.folder / f"{namespace}.{name}.kubeconfig"
    request = {
        "apiVersion": "authentication.k8s.io/v1",
        "kind": "TokenRequest",
        "spec": {"expirationSeconds": TOKEN_SECONDS},
    }
    answer = plane.request("POST", f"/api/v1/namespaces/{namespace}/serviceaccounts/{name}/token", request)
    token = answer.get("status", {}).get("token") if isinstance(answer, dict) else None
    if not token:
        raise ControlPlaneError(f"TokenRequest for {namespace}/{name} returned no token: {answer!r}")
    return write_kubeconfig(
        path, plane.url, plane.pki.ca.cert, f"system:serviceaccount:{namespace}:{name}", {"token": token}
    )
