"""The API server's answer for one object: a dry-run create (``dryRun=All``) with strict field
validation (``fieldValidation=Strict``, as ``kubectl`` asks), as ``kubectl apply`` meets an
object that does not exist yet. Nothing is stored.

Answers are normalised to the fields they name: an ``Invalid`` (422) answer by its
``details.causes[].field``; a ``BadRequest`` (400) decoding answer by the fields its message
names (``unknown field "spec.x"``, ``Go struct field T.spec.x of type int32``; a quantity that
does not parse names none); a kind the server does not serve by ``apiVersion`` (kubectl's "no
matches for kind"); a namespace that cannot exist by ``metadata.namespace`` (the request is still
sent: the server decodes the body before it looks the namespace up).
"""

from __future__ import annotations

import http.client
import json
import re
import ssl
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urlsplit

from tests.realkube.accounts import ensure_namespace
from tests.realkube.control_plane import ControlPlane
from tests.realkube.processes import ControlPlaneError

from toposched.model.k8s_content import dns1123_label_errors

HTTP_TIMEOUT = 30.0
_UNKNOWN_FIELD = re.compile(r'unknown field "([^"]*)"')
_GO_FIELD = re.compile(r"Go struct field ([A-Za-z0-9_]+)\.(\S+) of type")
_CEL_SKIPPED = "some validation rules were not checked"
_CHECKED_AT = re.compile(r" in ((?:spec|metadata)\.\S+)$")
_DECODE = re.compile(r"unable to decode|cannot unmarshal|cannot be handled as a", re.I)


@dataclass(frozen=True, slots=True)
class ServerAnswer:
    """What the server said: accepted, or refused with the fields it named. ``stage`` tells
    where: ``valid`` (accepted), ``invalid`` (validation, 422), ``decode`` (the body did not
    decode, 400), ``unserved`` (no such kind at that version), ``namespace`` (the namespace
    cannot exist), ``other``."""

    accepted: bool
    stage: str
    fields: frozenset[str]
    message: str


class DryRunServer:
    """Dry-run creates against a control plane, from several threads, each with its own
    connection; answers are cached by the object's JSON (many inputs share objects)."""

    def __init__(self, plane: ControlPlane) -> None:
        self._plane = plane
        self._tls = ssl.create_default_context(cafile=str(plane.pki.ca.cert))
        self._tls.load_cert_chain(str(plane.pki.admin.cert), str(plane.pki.admin.key))
        self._address = urlsplit(plane.url)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._cache: dict[str, ServerAnswer] = {}
        self._namespaces: set[str] = set()
        self._resources: dict[tuple[str, str], tuple[str, bool] | None] = {}
        self.requests = 0
        self._connections: list[http.client.HTTPSConnection] = []

    def close(self) -> None:
        """Closes every thread's connection."""
        with self._lock:
            connections, self._connections = self._connections, []
        for connection in connections:
            connection.close()

    def answer(self, obj: Mapping[str, Any]) -> ServerAnswer:
        key = json.dumps(obj, sort_keys=True, default=str)
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None:
            return cached
        found = self._ask(obj)
        with self._lock:
            self._cache[key] = found
            self.requests += 1
        return found

    def _ask(self, obj: Mapping[str, Any]) -> ServerAnswer:
        resource = self._resource(str(obj.get("apiVersion")), str(obj.get("kind")))
        if resource is None:
            message = f'no matches for kind "{obj.get("kind")}" in version "{obj.get("apiVersion")}"'
            return ServerAnswer(False, "unserved", frozenset({"apiVersion"}), message)
        plural, namespaced = resource
        metadata = obj.get("metadata")
        namespace = metadata.get("namespace") if isinstance(metadata, Mapping) else None
        namespace = namespace if isinstance(namespace, str) and namespace else "default"
        path = _collection(str(obj["apiVersion"]), plural, namespace if namespaced else None)
        impossible = namespaced and bool(dns1123_label_errors(namespace, "characters"))
        if namespaced and not impossible:
            self._ensure_namespace(namespace)
        code, body = self._post(f"{path}?dryRun=All&fieldValidation=Strict", obj)
        answer = _normalised(code, body)
        if impossible and answer.stage == "other" and code in (404, 500):
            # kubectl sends the namespace in the URL: the server decodes the body, then finds no
            # namespace of that name (404), or no path for it ("a/b": 404; "a%b", "..": 500)
            return ServerAnswer(False, "namespace", frozenset({"metadata.namespace"}), answer.message)
        return answer

    def _resource(self, api_version: str, kind: str) -> tuple[str, bool] | None:
        key = (api_version, kind)
        with self._lock:
            if key in self._resources:
                return self._resources[key]
        try:
            found = self._plane.resource_for(api_version, kind)
            resource: tuple[str, bool] | None = (found.plural, found.namespaced)
        except (ControlPlaneError, KeyError):
            resource = None
        with self._lock:
            self._resources[key] = resource
        return resource

    def _ensure_namespace(self, namespace: str) -> None:
        with self._lock:
            if namespace in self._namespaces:
                return
        ensure_namespace(self._plane, namespace)
        with self._lock:
            self._namespaces.add(namespace)

    def _post(self, path: str, obj: Mapping[str, Any]) -> tuple[int, Any]:
        data = json.dumps(obj, default=str).encode()
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        for attempt in (1, 2):  # a kept-alive connection the server closed: reconnect once
            connection = self._connection()
            try:
                connection.request("POST", path, body=data, headers=headers)
                response = connection.getresponse()
                text = response.read().decode(errors="replace")
            except (OSError, http.client.HTTPException):
                self._local.connection = None
                connection.close()
                if attempt == 2:
                    raise
                continue
            try:
                return response.status, json.loads(text)
            except json.JSONDecodeError:
                return response.status, {"message": text}
        raise AssertionError("unreachable: the second attempt returns or raises")

    def _connection(self) -> http.client.HTTPSConnection:
        connection: http.client.HTTPSConnection | None = getattr(self._local, "connection", None)
        if connection is None:
            host, port = self._address.hostname or "127.0.0.1", self._address.port
            connection = http.client.HTTPSConnection(host, port, context=self._tls, timeout=HTTP_TIMEOUT)
            self._local.connection = connection
            with self._lock:
                self._connections.append(connection)
        return connection


def _collection(api_version: str, plural: str, namespace: str | None) -> str:
    root = f"/apis/{api_version}" if "/" in api_version else f"/api/{api_version}"
    return f"{root}/namespaces/{quote(namespace, safe='')}/{plural}" if namespace else f"{root}/{plural}"


def _cause_field(cause: Mapping[str, Any]) -> str | None:
    """A cause's field; a CRD's schema names some only in the message (``<nil>``: "... in
    spec.x"); the note that CEL rules were skipped after other errors names none."""
    field, message = str(cause.get("field", "")).lstrip("."), str(cause.get("message", ""))
    if field not in ("", "<nil>"):
        return field
    if _CEL_SKIPPED in message:
        return None
    found = _CHECKED_AT.search(message)
    return found.group(1) if found else field


def _meta(go_type: str, path: str) -> str:
    """Go's decoder names a custom resource's metadata fields from ObjectMeta alone
    (``ObjectMeta.labels``), a built-in kind's from the object (``ObjectMeta.metadata.labels``,
    ``ObjectMeta.spec.template.metadata.labels``)."""
    return f"metadata.{path}" if go_type == "ObjectMeta" and "." not in path else path


def _normalised(code: int, body: Any) -> ServerAnswer:
    body = body if isinstance(body, Mapping) else {}
    message = str(body.get("message", ""))
    if code in (200, 201):
        return ServerAnswer(True, "valid", frozenset(), "")
    if code == 422:
        causes = body.get("details", {}).get("causes") or []
        fields = {f for c in causes if isinstance(c, Mapping) and (f := _cause_field(c))}
        return ServerAnswer(False, "invalid", frozenset(fields), message)
    if code == 400:
        fields = set(_UNKNOWN_FIELD.findall(message)) | {_meta(t, p) for t, p in _GO_FIELD.findall(message)}
        if fields or _DECODE.search(message):  # some name no field ("quantities must match ...")
            return ServerAnswer(False, "decode", frozenset(f.lstrip(".") for f in fields), message)
    return ServerAnswer(False, "other", frozenset(), f"HTTP {code}: {message}")
