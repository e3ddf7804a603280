"""TEST DOUBLE of the Kubernetes API server: never run it against anything real.

Kept only for the controller's error paths a real API server cannot be made to produce on demand:
an injected status on one call (``fail_next``: a 500, or an HTTP 410 on a watch, which a server
with its watch cache on never answers), a server slow for every client or for one (``latency``,
``slow`` by bearer token) with the request deadline honoured as the API server does (a write whose
``timeout`` passed since it was received is answered 504 and not applied), watch connections reset
before any answer (``broken``), a bookmark at a moment of the test's choosing (``bookmark``), and
what these tests read back: every request as RBAC sees it (``calls``) and an audit record of every
write applied (``writes``, with the Lease's history in ``lease_holders``). Everything else about
the API server (validation, admission, RBAC, server-side apply, strategic merge, watches and their
410, conflicts) is tested on the real one (``real_apiserver``).

A stdlib HTTP server on 127.0.0.1 (one thread per connection) that answers the REST calls the
ungater makes, so ``RestKubeApi`` and the official client library underneath it send real
requests and read real responses: list, watch (a chunked stream of JSON lines), get, create,
replace (409 on a stale ``resourceVersion``), merge and strategic merge patch (simplified: see
``kube_test_patches``) and delete (honouring its preconditions), for the kinds the controller
reads. Anything else is 404, as on a cluster where that API is not installed.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Callable, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.controller.kube_test_patches import PatchError, merge_patch, strategic_merge_patch
from tests.controller.kube_test_requests import (
    Call,
    Request,
    Write,
    check_body,
    decode_body,
    duration,
    parse_request,
    reset_connection,
    send_json,
    write_chunk,
)
from tests.controller.kube_test_store import ObjectStore, StatusError, status_object

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
_PATCHERS: dict[str, Callable[[Any, Any], Any]] = {
    PatchType.MERGE.value: merge_patch,
    PatchType.STRATEGIC.value: strategic_merge_patch,
}


class KubeTestServer:
    """The test double; ``start()`` it, point a client at ``url``, ``stop()`` it."""

    def __init__(self, resources: tuple[Resource, ...] = RESOURCES) -> None:
        """``resources``: the APIs this server serves; the others are 404, as when a CRD is not installed."""
        self.resources = resources
        self.store = ObjectStore()
        self._calls: list[Call] = []
        self._failures: list[tuple[str, Resource, int]] = []
        self.writes: list[Write] = []  # the audit record of applied writes, in order
        self.latency = 0.0  # seconds every request waits before it is served
        self.slow: dict[str, float] = {}  # more seconds for the requests of one user (token)
        self.broken: set[Resource] = set()  # kinds whose watch connections are reset
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
        return self.store.update(resource, namespace if resource.namespaced else "", name, change)

    def remove(self, resource: Resource, name: str, namespace: str = "default") -> None:
        """Delete an object as another client would (a node leaving the cluster)."""
        self.store.delete(resource, namespace if resource.namespaced else "", name)

    def bookmark(self, resource: Resource) -> None:
        self.store.bookmark(resource)

    def fail_next(self, verb: str, resource: Resource, status: int) -> None:
        """The next ``verb`` on ``resource`` answers ``status`` (a watch: before the stream starts)."""
        with self._lock:
            self._failures.append((verb, resource, status))

    @property
    def calls(self) -> list[Call]:
        with self._lock:
            return list(self._calls)

    def lease_holders(self, name: str, namespace: str) -> list[tuple[int, str]]:
        """(resourceVersion, holderIdentity) of each version the Lease had, in order."""
        with self.store.changed:
            log = self.store.events_from(LEASES, 0)
            return [
                (e.resource_version, str((e.object.get("spec") or {}).get("holderIdentity") or ""))
                for e in log
                if e.type in ("ADDED", "MODIFIED", "DELETED")
                and (e.namespace, e.object.get("metadata", {}).get("name")) == (namespace, name)
            ]

    # serving -----------------------------------------------------------------------------------

    def handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        received = time.monotonic()
        length = int(handler.headers.get("Content-Length") or 0)
        raw = handler.rfile.read(length) if length else b""  # read first: the connection stays in step
        try:
            request = parse_request(handler, method, self.resources)
            self._record(request)
            self._wait(request, received)
            self._injected_failure(request)
            body = decode_body(raw, request.content_type)
            if request.verb == "watch":
                if request.resource in self.broken:
                    reset_connection(handler)
                    return
                self._watch(handler, request)
                return
            code, payload = 200, self._answer(request, body)
            if request.verb == "create":
                code = 201
        except StatusError as error:
            code, payload = error.code, status_object(error.code, error.reason, error.message)
        except PatchError as error:
            code, payload = error.code, status_object(error.code, "Invalid", str(error))
        send_json(handler, code, payload)

    def _record(self, request: Request) -> None:
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

    def _wait(self, request: Request, received: float) -> None:
        """The latency, then the request deadline: a write not served within its ``timeout``
        (from when it was received) fails with 504 and is not applied."""
        delay = self.latency + self.slow.get(request.user, 0.0)
        if delay > 0:
            time.sleep(delay)
        limit = duration(request.query.get("timeout", ""))
        if request.verb != "watch" and limit and time.monotonic() - received > limit:
            raise StatusError(
                504,
                "Timeout",
                "Timeout: request did not complete within requested timeout - context deadline exceeded",
            )

    def _audit(self, request: Request, written: Object) -> Object:
        version = int(written.get("metadata", {}).get("resourceVersion") or 0)
        entry = Write(
            version,
            request.verb,
            request.resource.plural,
            request.namespace,
            request.name or "",
            request.user,
        )
        if not entry.name:
            entry = dataclasses.replace(entry, name=str(written.get("metadata", {}).get("name", "")))
        with self._lock:
            self.writes.append(entry)
        return written

    def _injected_failure(self, request: Request) -> None:
        with self._lock:
            for index, (verb, resource, status) in enumerate(self._failures):
                if (verb, resource) == (request.verb, request.resource):
                    del self._failures[index]
                    raise StatusError(
                        status, "Injected", f"{verb} {resource.plural}: failure injected by the test"
                    )

    def _answer(self, request: Request, body: Any) -> Object:
        store, resource, namespace = self.store, request.resource, request.namespace or ""
        name = request.name or ""
        match request.verb:
            case "list":
                items, version = store.list(resource, request.namespace, lambda _: True)
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
                check_body(body, resource, request.namespace, None)
                return self._audit(request, store.create(resource, namespace, body))
            case "update":
                check_body(body, resource, request.namespace, name)
                return self._audit(request, store.update(resource, namespace, name, lambda _: body))
            case "delete":
                wanted = (body or {}).get("preconditions") or {}
                self._audit(request, store.delete(resource, namespace, name, wanted))
                return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Success"}
        patcher = _PATCHERS.get(request.content_type.split(";")[0])
        if patcher is None:
            raise StatusError(
                415,
                "UnsupportedMediaType",
                f"the body of the request was in an unknown format: {request.content_type}",
            )
        return self._audit(
            request,
            store.update(resource, namespace, name, lambda current: patcher(current, body)),
        )

    def _watch(self, handler: BaseHTTPRequestHandler, request: Request) -> None:
        store, resource = self.store, request.resource
        bookmarks = request.query.get("allowWatchBookmarks") == "true"
        deadline = time.monotonic() + float(request.query.get("timeoutSeconds") or 60)
        with store.changed:
            position = store.watch_position(resource, int(request.query.get("resourceVersion") or 0))
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Transfer-Encoding", "chunked")
        handler.end_headers()
        try:
            while not self._closing.is_set():
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
                    write_chunk(handler, event)
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
