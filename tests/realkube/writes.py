"""Objects written to a test control plane in bulk, each twice: the way toposched writes it
(server-side apply as field manager ``toposched``, on the object or its ``status``; a pod patch as
the ungater sends it), then the same request again, which must change nothing. The server's
refusal is a finding (``Write.refused``), not an exception. Several requests are in flight at once
over one pooled connection set."""

from __future__ import annotations

import contextlib
import json
import ssl
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import httpx
from tests.realkube.control_plane import ControlPlane
from tests.realkube.processes import ControlPlaneError

FIELD_MANAGER = "toposched"
WORKERS = 4  # requests in flight: the API server and the tests share two cores
APPLY = "application/apply-patch+yaml"
STRATEGIC = "application/strategic-merge-patch+json"
TIMEOUT = httpx.Timeout(60.0, connect=5.0)


class RefusedError(Exception):
    """The API server answered with an error status; the message is its ``Status`` message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(f"{status}: {message}")
        self.status = status


@dataclass(frozen=True)
class Write:
    """One object written twice by ``source`` (what emitted it) and what the server made of it."""

    source: str
    kind: str
    name: str
    refused: str = ""  # the server's message
    changed: str = ""  # what the second, identical write changed

    def __str__(self) -> str:
        verdict = f"refused: {self.refused}" if self.refused else f"changed by a second write: {self.changed}"
        return f"{self.source}: {self.kind} {self.name} {verdict}"


class Writer:
    """The admin's pooled client on ``plane``, and the objects written through it."""

    def __init__(self, plane: ControlPlane) -> None:
        # Plain HTTP over the admin's certificate: thousands of writes, so no client library work
        # per request beyond one JSON encode and decode.
        tls = ssl.create_default_context(cafile=str(plane.pki.ca.cert))
        tls.load_cert_chain(str(plane.pki.admin.cert), str(plane.pki.admin.key))
        self._http = httpx.Client(
            base_url=plane.url, verify=tls, timeout=TIMEOUT, limits=httpx.Limits(max_connections=WORKERS)
        )
        self._plane = plane
        self._served: dict[tuple[str, str], bool] = {}

    def close(self) -> None:
        self._http.close()

    # -- paths -----------------------------------------------------------------------------------

    def serves(self, api_version: str, kind: str) -> bool:
        """Whether the server serves ``kind`` at ``api_version`` (its discovery says so)."""
        if (api_version, kind) not in self._served:
            try:
                self._plane.resource_for(api_version, kind)
            except ControlPlaneError:
                self._served[(api_version, kind)] = False
            else:
                self._served[(api_version, kind)] = True
        return self._served[(api_version, kind)]

    def path(self, obj: Mapping[str, Any], subresource: str | None = None) -> str:
        resource = self._plane.resource_for(str(obj["apiVersion"]), str(obj["kind"]))
        metadata = obj["metadata"]
        namespace = str(metadata.get("namespace") or "default") if resource.namespaced else None
        path = resource.path(namespace, str(metadata["name"]))
        return f"{path}/{subresource}" if subresource else path

    # -- requests --------------------------------------------------------------------------------

    def request(
        self,
        method: str,
        path: str,
        body: Any = None,
        *,
        content_type: str = "application/json",
        query: Sequence[tuple[str, str]] = (),
    ) -> dict[str, Any]:
        """One call; ``RefusedError`` when the server answers with an error."""
        headers = {"Accept": "application/json"}
        if body is not None:
            headers["Content-Type"] = content_type
        data = json.dumps(body).encode() if body is not None else None
        response = self._http.request(method, path, params=list(query), content=data, headers=headers)
        decoded = json.loads(response.content) if response.content else {}
        if not response.is_success:
            message = decoded.get("message") if isinstance(decoded, dict) else None
            raise RefusedError(response.status_code, str(message or response.reason_phrase))
        return decoded if isinstance(decoded, dict) else {}

    def apply(
        self, obj: Mapping[str, Any], *, subresource: str | None = None, manager: str = FIELD_MANAGER
    ) -> dict[str, Any]:
        """Server-side apply of ``obj`` (to its ``subresource``, e.g. ``status``)."""
        query = (("fieldManager", manager), ("force", "false"))
        return self.request("PATCH", self.path(obj, subresource), dict(obj), content_type=APPLY, query=query)

    def ensure_namespace(self, name: str, *, pods: bool = True) -> None:
        """The namespace and, for ``pods``, its ``default`` ServiceAccount (the admission of pods
        wants it; kube-controller-manager, which would make it, does not run)."""
        writes = [("/api/v1/namespaces", {"metadata": {"name": name}})]
        if pods:
            writes.append((f"/api/v1/namespaces/{name}/serviceaccounts", {"metadata": {"name": "default"}}))
        for path, body in writes:
            try:
                self.request("POST", path, body)
            except RefusedError as exc:
                if exc.status != 409:  # already there
                    raise

    def delete(self, path: str) -> None:
        with contextlib.suppress(RefusedError):  # gone already
            self.request("DELETE", path)

    # -- written twice ---------------------------------------------------------------------------

    def apply_once(
        self, source: str, obj: Mapping[str, Any], *, manager: str, subresource: str | None = None
    ) -> Write:
        """``obj`` applied by ``manager``: what another controller (or the user) writes first."""
        try:
            self.apply(obj, subresource=subresource, manager=manager)
        except RefusedError as exc:
            return Write(source, str(obj["kind"]), str(obj["metadata"]["name"]), refused=str(exc))
        return Write(source, str(obj["kind"]), str(obj["metadata"]["name"]))

    def apply_twice(self, source: str, obj: Mapping[str, Any], *, subresource: str | None = None) -> Write:
        """``obj`` applied, then applied again unchanged."""
        return self._twice(source, obj, lambda: self.apply(obj, subresource=subresource))

    def patch_twice(self, source: str, obj: Mapping[str, Any], patch: Mapping[str, Any]) -> Write:
        """A strategic merge patch of the existing ``obj``, then the same patch again."""
        path = self.path(obj)
        return self._twice(
            source, obj, lambda: self.request("PATCH", path, dict(patch), content_type=STRATEGIC)
        )

    def _twice(self, source: str, obj: Mapping[str, Any], write: Callable[[], dict[str, Any]]) -> Write:
        kind, name = str(obj["kind"]), str(obj["metadata"]["name"])
        try:
            first = write()
            second = write()
        except RefusedError as exc:
            return Write(source, kind, name, refused=str(exc))
        return Write(source, kind, name, changed=difference(first, second))

    def run(self, jobs: Iterable[Callable[[], list[Write]]]) -> list[Write]:
        """Every job (a sequence of writes that belong together), ``WORKERS`` at a time."""
        with ThreadPoolExecutor(WORKERS) as pool:
            return [write for done in pool.map(lambda job: job(), jobs) for write in done]


def difference(first: Mapping[str, Any], second: Mapping[str, Any]) -> str:
    """ "" when a second write left the object as the first did: the same resourceVersion, or (some
    kinds, a Job, are stored again by a no-op update) the same object and managedFields otherwise;
    else the top-level fields that differ."""
    if first.get("metadata", {}).get("resourceVersion") == second.get("metadata", {}).get("resourceVersion"):
        return ""

    def without_version(obj: Mapping[str, Any]) -> dict[str, Any]:
        metadata = {k: v for k, v in obj.get("metadata", {}).items() if k != "resourceVersion"}
        return {**obj, "metadata": metadata}

    a, b = without_version(first), without_version(second)
    changed = [key for key in sorted(set(a) | set(b)) if key != "metadata" and a.get(key) != b.get(key)]
    ma, mb = a["metadata"], b["metadata"]
    changed += [f"metadata.{key}" for key in sorted(set(ma) | set(mb)) if ma.get(key) != mb.get(key)]
    return ", ".join(changed)
