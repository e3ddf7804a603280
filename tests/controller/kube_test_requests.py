"""TEST DOUBLE of the Kubernetes API server, its wire side: requests as they arrive (path, query,
headers, body) and answers as they leave (JSON, a chunked watch stream, a reset connection).
``kube_test_server`` serves with it; see there."""

from __future__ import annotations

import json
import re
import socket
import struct
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from tests.controller.kube_test_store import Event, StatusError

from toposched.controller.kubeapi import Object, Resource


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
class Write:
    """One write the server applied, as its audit log has it."""

    resource_version: int  # the object's (for a delete: of its deletion)
    verb: str
    resource: str  # plural
    namespace: str | None
    name: str
    user: str  # the bearer token the request carried ("" without one)


@dataclass(frozen=True, slots=True)
class Request:
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
    def user(self) -> str:
        return self.authorization.removeprefix("Bearer ").strip()


def parse_request(handler: BaseHTTPRequestHandler, method: str, served: tuple[Resource, ...]) -> Request:
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
    return Request(
        method,
        resource,
        namespace,
        rest[1] if len(rest) == 2 else None,
        dict(parse_qsl(url.query)),
        handler.headers.get("Content-Type", ""),
        handler.headers.get("User-Agent", ""),
        handler.headers.get("Authorization", ""),
    )


def reset_connection(handler: BaseHTTPRequestHandler) -> None:
    """Close the connection with a TCP reset and no answer, as a dying server or proxy does."""
    handler.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    handler.close_connection = True


def duration(text: str) -> float | None:
    """Seconds of a Go duration of seconds or milliseconds (``1.5s``, ``300ms``); None if absent."""
    found = re.fullmatch(r"([0-9.]+)(ms|s)", text.strip())
    if found is None:
        return None
    value = float(found.group(1))
    return value / 1000 if found.group(2) == "ms" else value


def decode_body(raw: bytes, content_type: str) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError as exc:
        raise StatusError(400, "BadRequest", f"the body cannot be decoded: {exc}") from exc


def check_body(body: Any, resource: Resource, namespace: str | None, name: str | None) -> None:
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


def send_json(handler: BaseHTTPRequestHandler, code: int, payload: Object) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(code)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def write_chunk(handler: BaseHTTPRequestHandler, event: Event) -> None:
    line = json.dumps({"type": event.type, "object": event.object}).encode() + b"\n"
    handler.wfile.write(f"{len(line):x}\r\n".encode() + line + b"\r\n")
    handler.wfile.flush()
