"""``KubeApi`` over HTTP with the official ``kubernetes`` client library.

Every call goes through one ``kubernetes.client.ApiClient`` (``param_serialize`` + ``call_api``,
the path ``kubernetes.dynamic`` takes), so authentication, TLS and proxies come from the
kubeconfig or the in-cluster service account exactly as for any other client. Objects stay plain
dicts: the generated models are never built, so CRDs and core objects read the same way.

No retries here: a failure becomes a typed ``KubeApiError`` naming the call, and the controller's
reconcilers decide what to retry. Every request has bounded connect and read timeouts; a watch's
read timeout is its ``timeoutSeconds`` plus a margin, since the server ends it at that time, and a
write given a ``timeout`` sends it as the ``timeout`` parameter (the server's deadline) and waits
that long plus a margin for the answer. The verbs live here; one request and its answer, in
``rest_transport``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any, Final

import urllib3
from kubernetes.client import Configuration
from kubernetes.client.rest import RESTResponse
from kubernetes.watch.watch import iter_resp_lines

from toposched.controller.kubeapi import (
    EventType,
    KubeApiError,
    Listing,
    Object,
    PatchType,
    Preconditions,
    Resource,
    WatchEvent,
)
from toposched.controller.kubeconfig import client_configuration
from toposched.controller.rest_transport import CONNECT_TIMEOUT, RestTransport, api_error

APPLY_PATCH: Final = "application/apply-patch+yaml"  # JSON is YAML: the body is sent as JSON
WATCH_READ_MARGIN: Final = 15.0  # the server closes a watch at timeoutSeconds; allow it to be late


def connect(
    kubeconfig: str | None = None, *, context: str | None = None, connections: int | None = None
) -> RestKubeApi:
    """A client of the cluster kubectl would talk to: ``kubeconfig`` (a path), else
    ``$KUBECONFIG``, else ``~/.kube/config``, else the pod's service account (``client_configuration``).
    ``connections``: how many connections to the server it keeps open for reuse (at least the
    requests made at once, or the extra ones are opened and dropped each time)."""
    configuration, _ = client_configuration(kubeconfig, context=context)
    if connections is not None:
        configuration.connection_pool_maxsize = max(connections, configuration.connection_pool_maxsize or 0)
    return RestKubeApi(configuration)


class RestKubeApi:
    """The controller's ``KubeApi`` against a real (or test) API server.

    ``configuration`` (see ``connect``) is used as given, with urllib3's retries turned off;
    ``request_timeout`` bounds the wait for each response, watches excepted (see the module)."""

    def __init__(self, configuration: Configuration, *, request_timeout: float = 30.0) -> None:
        self._transport = RestTransport(configuration, request_timeout=request_timeout)

    def close(self) -> None:
        self._transport.close()

    def list(
        self, resource: Resource, namespace: str | None = None, *, label_selector: str | None = None
    ) -> Listing:
        query = {"labelSelector": label_selector} if label_selector else {}
        body = self._transport.call("GET", resource.path(namespace), query, call=f"list {resource.plural}")
        items = tuple(_with_kind(resource, item) for item in body.get("items") or ())
        return Listing(items, str(body.get("metadata", {}).get("resourceVersion", "")))

    def list_page(
        self,
        resource: Resource,
        *,
        limit: int,
        continue_token: str = "",
        field_selector: str | None = None,
    ) -> tuple[Listing, str]:
        """One page of at most ``limit`` objects of every namespace (the API server's chunked
        list, as kubectl's ``--chunk-size``) and the token of the next page ("" after the last)."""
        query = {"limit": str(limit)}
        if continue_token:
            query["continue"] = continue_token
        if field_selector:
            query["fieldSelector"] = field_selector
        body = self._transport.call("GET", resource.path(), query, call=f"list {resource.plural}")
        metadata = body.get("metadata") or {}
        items = tuple(_with_kind(resource, item) for item in body.get("items") or ())
        listing = Listing(items, str(metadata.get("resourceVersion", "")))
        return listing, str(metadata.get("continue") or "")

    def watch(
        self,
        resource: Resource,
        resource_version: str,
        namespace: str | None = None,
        *,
        timeout_seconds: int = 300,
    ) -> Iterator[WatchEvent]:
        call = f"watch {resource.plural} from resourceVersion {resource_version}"
        query = {
            "watch": "true",
            "allowWatchBookmarks": "true",
            "resourceVersion": resource_version,
            "timeoutSeconds": str(timeout_seconds),
        }
        timeout = (CONNECT_TIMEOUT, timeout_seconds + WATCH_READ_MARGIN)
        response = self._transport.send("GET", resource.path(namespace), query, None, {}, timeout, call)
        try:
            for line in _stream_lines(response, call):
                if line:
                    yield _event(line, resource, call)
        finally:
            # Left early or not, the stream's connection cannot be reused: close it.
            response.response.close()
            response.response.release_conn()

    def get(self, resource: Resource, name: str, namespace: str | None = None) -> Object:
        return self._transport.call(
            "GET", resource.path(namespace, name), call=f"get {resource.plural}/{name}"
        )

    def create(self, resource: Resource, obj: Mapping[str, Any], *, timeout: float | None = None) -> Object:
        namespace = _namespace(resource, obj)
        name = obj.get("metadata", {}).get("name", "")
        return self._transport.call(
            "POST",
            resource.path(namespace),
            body=_typed(resource, obj),
            call=f"create {resource.plural}/{name}",
            deadline=timeout,
        )

    def replace(self, resource: Resource, obj: Mapping[str, Any], *, timeout: float | None = None) -> Object:
        name = str(obj.get("metadata", {}).get("name", ""))
        path = resource.path(_namespace(resource, obj), name)
        return self._transport.call(
            "PUT",
            path,
            body=_typed(resource, obj),
            call=f"replace {resource.plural}/{name}",
            deadline=timeout,
        )

    def patch(
        self,
        resource: Resource,
        name: str,
        patch: Any,
        namespace: str | None = None,
        *,
        patch_type: PatchType = PatchType.MERGE,
        field_manager: str | None = None,
        timeout: float | None = None,
    ) -> Object:
        return self._transport.call(
            "PATCH",
            resource.path(namespace, name),
            {"fieldManager": field_manager} if field_manager else None,
            body=patch,
            content_type=patch_type.value,
            call=f"patch ({patch_type.name.lower()}) {resource.plural}/{name}",
            deadline=timeout,
        )

    def apply(
        self,
        resource: Resource,
        obj: Mapping[str, Any],
        *,
        field_manager: str,
        force: bool = False,
        timeout: float | None = None,
    ) -> Object:
        name = str(obj.get("metadata", {}).get("name", ""))
        query = {"fieldManager": field_manager, "force": "true" if force else "false"}
        return self._transport.call(
            "PATCH",
            resource.path(_namespace(resource, obj), name),
            query,
            body=_typed(resource, obj),
            content_type=APPLY_PATCH,
            call=f"apply {resource.plural}/{name} as {field_manager}",
            deadline=timeout,
        )

    def delete(
        self,
        resource: Resource,
        name: str,
        namespace: str | None = None,
        *,
        preconditions: Preconditions | None = None,
        timeout: float | None = None,
    ) -> None:
        body = None
        if preconditions is not None:
            wanted = {"uid": preconditions.uid, "resourceVersion": preconditions.resource_version}
            body = {
                "apiVersion": "v1",
                "kind": "DeleteOptions",
                "preconditions": {k: v for k, v in wanted.items() if v is not None},
            }
        self._transport.call(
            "DELETE",
            resource.path(namespace, name),
            body=body,
            call=f"delete {resource.plural}/{name}",
            deadline=timeout,
        )


def _stream_lines(response: RESTResponse, call: str) -> Iterator[str]:
    try:
        yield from iter_resp_lines(response.response)  # type: ignore[no-untyped-call]  # unannotated
    except urllib3.exceptions.HTTPError as exc:
        raise KubeApiError(0, f"{call}: the stream broke: {exc}") from exc


def _event(line: str, resource: Resource, call: str) -> WatchEvent:
    try:
        raw = json.loads(line)
    except ValueError as exc:
        raise KubeApiError(0, f"{call}: a watch event is not JSON: {exc}") from exc
    kind = str(raw.get("type", ""))
    obj = raw.get("object") or {}
    if kind == "ERROR":  # the API server reports an expired resourceVersion in the stream
        raise api_error(int(obj.get("code", 0)), call, str(obj.get("message", "watch error")))
    try:
        event_type = EventType(kind)
    except ValueError as exc:
        raise KubeApiError(0, f"{call}: unknown watch event type {kind!r}") from exc
    return WatchEvent(event_type, _with_kind(resource, obj))


def _namespace(resource: Resource, obj: Mapping[str, Any]) -> str | None:
    if not resource.namespaced:
        return None
    namespace = obj.get("metadata", {}).get("namespace")
    return str(namespace) if namespace else "default"


def _typed(resource: Resource, obj: Mapping[str, Any]) -> Object:
    """A body to send: the API server reads a custom resource's kind from the body, so every
    object names its ``apiVersion`` and ``kind`` (the resource's, where it names none)."""
    return {"apiVersion": resource.api_version, "kind": resource.kind, **obj}


def _with_kind(resource: Resource, obj: Mapping[str, Any]) -> Object:
    """List items carry no ``apiVersion``/``kind``; give every object the same shape."""
    return {"apiVersion": resource.api_version, "kind": resource.kind, **obj}
