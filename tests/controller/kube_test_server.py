"""TEST DOUBLE of the Kubernetes API server: never run it against anything real.

A stdlib HTTP server on 127.0.0.1 (one thread per connection) that answers exactly the REST calls
the controller makes, so ``RestKubeApi`` and the official client library underneath it send real
requests and read real responses: list (with ``resourceVersion`` and ``labelSelector``), watch (a
chunked stream of JSON lines with bookmarks; 410 Gone as an HTTP status or an in-stream ERROR),
get, create, replace (409 on a stale ``resourceVersion``), patch (merge, simplified strategic, JSON
patch: see ``kube_test_patches``), server-side apply (simplified: see ``kube_test_store``) and
delete, for Nodes, Pods, Leases, the topology CRDs and upstream PodGroups, Workloads and CompositePodGroups. Anything
else is 404, as on a cluster where that API is not installed.

Every request is recorded as a ``Call`` (the RBAC verb, group, resource, namespace) so tests can
compare what the code did with the RBAC rules in deploy/; an apply that creates its object is
recorded as a ``patch`` and a ``create``, the two checks the API server makes. Tests steer it with ``add`` (seed an
object), ``bookmark``, ``expire`` (compact: watches get 410) and ``fail_next`` (inject a status).
"""

from __future__ import annotations

import dataclasses
import json
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

import yaml
from tests.controller.kube_test_patches import PatchError, json_patch, merge_patch, strategic_merge_patch
from tests.controller.kube_test_store import Event, ObjectStore, StatusError, status_object

from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    KUBE_COMPOSITE_PODGROUPS,
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,
    KUBE_WORKLOADS,
    KUEUE_TOPOLOGIES,
    LEASES,
    NODES,
    PODS,
    Object,
    PatchType,
    Resource,
)

RESOURCES = (
    NODES,
    PODS,
    LEASES,
    KAI_TOPOLOGIES,
    KAI_PODGROUPS,
    KUEUE_TOPOLOGIES,
    GROVE_CLUSTER_TOPOLOGIES,
    KUBE_PODGROUPS,
    KUBE_PODGROUPS_V1ALPHA3,  # the same objects (stored by group and plural), as v1alpha3 serves them
    KUBE_WORKLOADS,
    KUBE_COMPOSITE_PODGROUPS,
)
APPLY = "application/apply-patch+yaml"
_PATCHERS: dict[str, Callable[[Any, Any], Any]] = {
    PatchType.MERGE.value: merge_patch,
    PatchType.STRATEGIC.value: strategic_merge_patch,
    PatchType.JSON.value: json_patch,
}


@dataclass(frozen=True, slots=True)
class Call:
    """One request as RBAC sees it: ``verb`` is get, list, watch, create, update, patch or delete."""

    verb: str
    group: str
    resource: str
    namespace: str | None
    name: str | None = None
    content_type: str | None = None  # of a patch: which kind (apply is a patch to RBAC)
    field_manager: str | None = None


@dataclass(frozen=True, slots=True)
class _Request:
    method: str
    resource: Resource
    namespace: str | None
    name: str | None
    query: dict[str, str]
    content_type: str
    user_agent: str
    authorization: str

    @property
    def verb(self) -> str:
        if self.method == "GET":
            return "get" if self.name else "watch" if self.query.get("watch") in ("true", "1") else "list"
        return {"POST": "create", "PUT": "update", "PATCH": "patch", "DELETE": "delete"}[self.method]

    @property
    def manager(self) -> str:
        """The field manager of an update: the query's, else the user agent's product (as the API server does)."""
        return self.query.get("fieldManager") or self.user_agent.split("/")[0] or "unknown"


class KubeTestServer:
    """The test double; ``start()`` it, point a client at ``url``, ``stop()`` it."""

    def __init__(self, resources: tuple[Resource, ...] = RESOURCES) -> None:
        """``resources``: the APIs this server serves; the others are 404, as when a CRD is not installed."""
        self.resources = resources
        self.store = ObjectStore()
        self._calls: list[Call] = []
        self.authorizations: list[str] = []  # the Authorization header of each request ("" if none)
        self._failures: list[tuple[str, Resource, int]] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._http = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        self._http.daemon_threads = True
        self._http.double = self  # type: ignore[attr-defined]
        self._thread = threading.Thread(target=self._http.serve_forever, name="kube-test-server", daemon=True)

    @property
    def url(self) -> str:
        host, port = self._http.server_address[:2]
        return f"http://{host!s}:{port}"

    def start(self) -> KubeTestServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._closing.set()
        with self.store.changed:
            self.store.changed.notify_all()  # open watches end
        self._http.shutdown()
        self._http.server_close()
        self._thread.join()

    # steering ----------------------------------------------------------------------------------

    def add(self, resource: Resource, obj: Mapping[str, Any]) -> Object:
        """Seed an object as if another client created it (no request is recorded)."""
        namespace = str(obj.get("metadata", {}).get("namespace") or "default") if resource.namespaced else ""
        return self.store.create(
            resource,
            namespace,
            {"apiVersion": resource.api_version, "kind": resource.kind, **obj},
            manager="",
        )

    def add_node(self, name: str, labels: Mapping[str, str], *, ready: bool = True, gpus: int = 8) -> Object:
        status = {
            "allocatable": {"nvidia.com/gpu": str(gpus), "cpu": "64", "memory": "512Gi", "pods": "110"},
            "conditions": [{"type": "Ready", "status": "True" if ready else "False"}],
        }
        return self.add(NODES, {"metadata": {"name": name, "labels": dict(labels)}, "status": status})

    def add_pod(
        self,
        name: str,
        *,
        namespace: str = "default",
        labels: Mapping[str, str] | None = None,
        annotations: Mapping[str, str] | None = None,
        gates: tuple[str, ...] = ("toposched.io/topology",),
        gpus: int = 1,
    ) -> Object:
        """A pending pod, gated by default as the ungater expects."""
        container = {
            "name": "main",
            "image": "busybox",
            "resources": {"requests": {"nvidia.com/gpu": str(gpus)}},
        }
        spec: Object = {"containers": [container]}
        if gates:
            spec["schedulingGates"] = [{"name": gate} for gate in gates]
        meta: Object = {"name": name, "namespace": namespace}
        if labels:
            meta["labels"] = dict(labels)
        if annotations:
            meta["annotations"] = dict(annotations)
        return self.add(PODS, {"metadata": meta, "spec": spec, "status": {"phase": "Pending"}})

    def object(self, resource: Resource, name: str, namespace: str = "default") -> Object:
        return self.store.get(resource, namespace if resource.namespaced else "", name)

    def change(
        self, resource: Resource, name: str, change: Callable[[Object], Object], namespace: str = "default"
    ) -> Object:
        """Change an object as another client would (a node going NotReady, a pod starting)."""
        return self.store.update(resource, namespace if resource.namespaced else "", name, change, manager="")

    def remove(self, resource: Resource, name: str, namespace: str = "default") -> None:
        """Delete an object as another client would (a node leaving the cluster)."""
        self.store.delete(resource, namespace if resource.namespaced else "", name)

    def bookmark(self, resource: Resource) -> None:
        self.store.bookmark(resource)

    def expire(self, resource: Resource) -> None:
        self.store.expire(resource)

    def fail_next(self, verb: str, resource: Resource, status: int) -> None:
        """The next ``verb`` on ``resource`` answers ``status`` (a watch: before the stream starts)."""
        with self._lock:
            self._failures.append((verb, resource, status))

    @property
    def calls(self) -> list[Call]:
        with self._lock:
            return list(self._calls)

    # serving -----------------------------------------------------------------------------------

    def handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""  # read first: the connection stays in step
        try:
            request = _parse(handler, method, self.resources)
            self._record(request)
            self._injected_failure(request)
            body = _decode(raw, request.content_type)
            if request.verb == "watch":
                self._watch(handler, request)
                return
            code, payload = 200, self._answer(request, body)
            if request.verb == "create":
                code = 201
        except StatusError as error:
            code, payload = error.code, status_object(error.code, error.reason, error.message)
        except PatchError as error:
            code, payload = error.code, status_object(error.code, "Invalid", str(error))
        _send_json(handler, code, payload)

    def _record(self, request: _Request) -> None:
        call = Call(
            request.verb,
            request.resource.group,
            request.resource.plural,
            request.namespace,
            request.name,
            request.content_type if request.method == "PATCH" else None,
            request.query.get("fieldManager"),
        )
        with self._lock:
            self._calls.append(call)
            self.authorizations.append(request.authorization)

    def _injected_failure(self, request: _Request) -> None:
        with self._lock:
            for index, (verb, resource, status) in enumerate(self._failures):
                if (verb, resource) == (request.verb, request.resource):
                    del self._failures[index]
                    raise StatusError(
                        status, "Injected", f"{verb} {resource.plural}: failure injected by the test"
                    )

    def _answer(self, request: _Request, body: Any) -> Object:
        store, resource, namespace = self.store, request.resource, request.namespace or ""
        name = request.name or ""
        match request.verb:
            case "list":
                items, version = store.list(
                    resource, request.namespace, _selector(request.query.get("labelSelector", ""))
                )
                if not resource.group:  # core list items come without apiVersion and kind
                    items = [
                        {k: v for k, v in item.items() if k not in ("apiVersion", "kind")} for item in items
                    ]
                meta = {"resourceVersion": str(version)}
                return {
                    "apiVersion": resource.api_version,
                    "kind": f"{resource.kind}List",
                    "metadata": meta,
                    "items": items,
                }
            case "get":
                return store.get(resource, namespace, name)
            case "create":
                _check_body(body, resource, request.namespace, None)
                return store.create(resource, namespace, body, request.manager)
            case "update":
                _check_body(body, resource, request.namespace, name)
                return store.update(resource, namespace, name, lambda _: body, request.manager)
            case "delete":
                store.delete(resource, namespace, name)
                return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
        if request.content_type.split(";")[0] == APPLY:
            return self._apply(request, body)
        patcher = _PATCHERS.get(request.content_type.split(";")[0])
        if patcher is None:
            raise StatusError(
                415,
                "UnsupportedMediaType",
                f"the body of the request was in an unknown format: {request.content_type}",
            )
        return store.update(
            resource, namespace, name, lambda current: patcher(current, body), request.manager
        )

    def _apply(self, request: _Request, body: Any) -> Object:
        manager = request.query.get("fieldManager")
        if not manager:
            raise StatusError(422, "Invalid", "fieldManager: Required value: is required for apply patch")
        _check_body(body, request.resource, request.namespace, request.name)
        force = request.query.get("force") == "true"
        if not self.store.exists(request.resource, request.namespace or "", request.name or ""):
            # the API server authorizes an apply that creates its object as a create as well
            self._record(dataclasses.replace(request, method="POST"))
        return self.store.apply(
            request.resource, request.namespace or "", request.name or "", body, manager, force
        )

    def _watch(self, handler: BaseHTTPRequestHandler, request: _Request) -> None:
        store, resource = self.store, request.resource
        bookmarks = request.query.get("allowWatchBookmarks") == "true"
        deadline = time.monotonic() + float(request.query.get("timeoutSeconds") or 60)
        with store.changed:
            try:
                position = store.watch_position(resource, int(request.query.get("resourceVersion") or 0))
            except StatusError as error:
                position, expired = (
                    -1,
                    Event(0, "ERROR", "", status_object(error.code, error.reason, error.message)),
                )
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        try:
            if position < 0:  # the real API server answers 200 and reports the expiry in the stream
                _write_chunk(handler, expired)
            while position >= 0 and not self._closing.is_set():
                with store.changed:
                    events = store.events_from(resource, position)
                    if not events:
                        remaining = deadline - time.monotonic()
                        if remaining <= 0:
                            break
                        store.changed.wait(min(remaining, 0.5))
                        continue
                position += len(events)
                for event in events:
                    if event.type == "BOOKMARK" and not bookmarks:
                        continue
                    if request.namespace not in (None, event.namespace) and event.type in (
                        "ADDED",
                        "MODIFIED",
                        "DELETED",
                    ):
                        continue
                    _write_chunk(handler, event)
                    if event.type == "ERROR":
                        position = -1
                        break
            handler.wfile.write(b"0\r\n\r\n")  # the stream ends; the connection stays open, as
        except (BrokenPipeError, ConnectionResetError):  # the API server's does, for the next request
            handler.close_connection = True  # the client stopped watching


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _double(self) -> KubeTestServer:
        double: KubeTestServer = self.server.double  # type: ignore[attr-defined]
        return double

    def do_GET(self) -> None:
        self._double().handle(self, "GET")

    def do_POST(self) -> None:
        self._double().handle(self, "POST")

    def do_PUT(self) -> None:
        self._double().handle(self, "PUT")

    def do_PATCH(self) -> None:
        self._double().handle(self, "PATCH")

    def do_DELETE(self) -> None:
        self._double().handle(self, "DELETE")

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the recorded calls are the log."""


def _parse(handler: BaseHTTPRequestHandler, method: str, served: tuple[Resource, ...]) -> _Request:
    url = urlsplit(handler.path)
    parts = url.path.strip("/").split("/")
    not_found = StatusError(404, "NotFound", f"the server could not find the requested resource ({url.path})")
    if parts[0] == "api" and len(parts) >= 3:
        group, version, rest = "", parts[1], parts[2:]
    elif parts[0] == "apis" and len(parts) >= 4:
        group, version, rest = parts[1], parts[2], parts[3:]
    else:
        raise not_found
    namespace = None
    if rest[0] == "namespaces" and len(rest) >= 3:
        namespace, rest = rest[1], rest[2:]
    resource = next((r for r in served if (r.group, r.version, r.plural) == (group, version, rest[0])), None)
    if resource is None or len(rest) > 2 or (namespace is not None and not resource.namespaced):
        raise not_found
    return _Request(
        method,
        resource,
        namespace,
        rest[1] if len(rest) == 2 else None,
        dict(parse_qsl(url.query)),
        handler.headers.get("Content-Type", ""),
        handler.headers.get("User-Agent", ""),
        handler.headers.get("Authorization", ""),
    )


def _decode(raw: bytes, content_type: str) -> Any:
    if not raw:
        return None
    try:
        return yaml.safe_load(raw) if content_type.startswith(APPLY) else json.loads(raw)
    except (ValueError, yaml.YAMLError) as exc:
        raise StatusError(400, "BadRequest", f"the body cannot be decoded: {exc}") from exc


def _check_body(body: Any, resource: Resource, namespace: str | None, name: str | None) -> None:
    if not isinstance(body, dict):
        raise StatusError(400, "BadRequest", "the body must be an object")
    meta = body.get("metadata") or {}
    if name is not None and meta.get("name") not in (None, name):
        raise StatusError(400, "BadRequest", "the name of the object does not match the name on the URL")
    if resource.namespaced and meta.get("namespace") not in (None, namespace):
        raise StatusError(
            400,
            "BadRequest",
            "the namespace of the provided object does not match the namespace sent on the request",
        )
    if body.get("kind") not in (None, resource.kind) or body.get("apiVersion") not in (
        None,
        resource.api_version,
    ):
        raise StatusError(400, "BadRequest", f"the object is not a {resource.api_version} {resource.kind}")


def _selector(text: str) -> Callable[[Object], bool]:
    """Equality-based label selectors: ``a=b``, ``a==b``, ``a!=b``, ``a``, ``!a``, comma-separated."""
    terms = [term.strip() for term in text.split(",") if term.strip()]

    def matches(obj: Object) -> bool:
        labels = obj.get("metadata", {}).get("labels") or {}
        for term in terms:
            if "!=" in term:
                key, value = term.split("!=", 1)
                ok = labels.get(key.strip()) != value.strip()
            elif "=" in term:
                key, value = term.replace("==", "=").split("=", 1)
                ok = labels.get(key.strip()) == value.strip()
            else:
                ok = (term[1:] not in labels) if term.startswith("!") else term in labels
            if not ok:
                return False
        return True

    return matches


def _send_json(handler: BaseHTTPRequestHandler, code: int, payload: Object) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(code)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def _write_chunk(handler: BaseHTTPRequestHandler, event: Event) -> None:
    line = json.dumps({"type": event.type, "object": event.object}).encode() + b"\n"
    handler.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
    handler.wfile.flush()
