"""The admin's calls on a test control plane, over one kept-alive connection.

The harness makes tens of thousands of calls, some the project's client does not make
(subresources, collection deletes with a grace period of zero), so it talks HTTP itself.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping
from contextlib import AbstractContextManager
from typing import Any

import httpx
from tests.realkube.control_plane import ControlPlane
from tests.realkube.processes import ControlPlaneError
from tests.realkube.sidebyside.cluster import NodeSpec

TIMEOUT = 30.0


class ApiError(ControlPlaneError):
    """A call answered with an error status; ``status`` is the HTTP code."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


class AdminApi:
    """JSON over HTTPS as the cluster admin (``close`` when done)."""

    def __init__(self, plane: ControlPlane | None = None, *, client: httpx.Client | None = None) -> None:
        """On ``plane``, or over ``client`` (a test's)."""
        if client is None:
            if plane is None:
                raise ValueError("AdminApi needs a control plane or a client")
            context = ssl.create_default_context(cafile=str(plane.pki.ca.cert))
            context.load_cert_chain(str(plane.pki.admin.cert), str(plane.pki.admin.key))
            client = httpx.Client(base_url=plane.url, verify=context, timeout=TIMEOUT)
        self._client = client

    def close(self) -> None:
        self._client.close()

    def stream(
        self, method: str, path: str, params: Mapping[str, str]
    ) -> AbstractContextManager[httpx.Response]:
        """A streamed call (a watch), without a read timeout: the server ends it."""
        return self._client.stream(method, path, params=params, timeout=None)

    def call(
        self,
        method: str,
        path: str,
        body: Mapping[str, Any] | None = None,
        *,
        params: Mapping[str, str] | None = None,
        content_type: str = "application/json",
    ) -> dict[str, Any]:
        """One call; the decoded answer, ``ApiError`` on a status outside 2xx."""
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
        response = self._client.request(
            method, path, json=dict(body) if body is not None else None, params=params, headers=headers
        )
        if response.status_code >= 300:
            raise ApiError(
                response.status_code, f"{method} {path}: HTTP {response.status_code}: {response.text}"
            )
        answer: dict[str, Any] = response.json() if response.content else {}
        return answer

    def create(self, path: str, obj: Mapping[str, Any]) -> dict[str, Any]:
        return self.call("POST", path, obj)

    def get(self, path: str) -> dict[str, Any]:
        return self.call("GET", path)

    def items(self, path: str, **params: str) -> list[dict[str, Any]]:
        """The items of a list call."""
        return list(self.call("GET", path, params=params).get("items") or ())

    def merge_status(self, path: str, status: Mapping[str, Any]) -> dict[str, Any]:
        """A merge patch of ``path``'s status subresource."""
        return self.call(
            "PATCH", f"{path}/status", {"status": dict(status)}, content_type="application/merge-patch+json"
        )

    def add_node(self, node: NodeSpec) -> None:
        """``node`` as its kubelet reports it and the node lifecycle controller taints it."""
        self.create("/api/v1/nodes", node.node())
        self.merge_status(f"/api/v1/nodes/{node.name}", node.status())
        self.call(
            "PATCH",
            f"/api/v1/nodes/{node.name}",
            {"spec": {"taints": node.lifecycle_taints() or None}},
            content_type="application/merge-patch+json",
        )

    def delete_now(self, path: str, **params: str) -> None:
        """Deletes an object or a collection at once (grace period 0: no kubelet runs to wait for)."""
        self.call("DELETE", path, params={"gracePeriodSeconds": "0", **params})
