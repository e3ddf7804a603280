"""One request to the API server and its answer, for ``rest.RestKubeApi``: the query and body
serialised by the client library, bounded connect and read timeouts, a server-side deadline for
writes, and any non-2xx status or transport failure turned into a typed ``KubeApiError`` naming
the call."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

import urllib3
from kubernetes.client import ApiClient, Configuration
from kubernetes.client.rest import RESTResponse

from toposched.controller.kubeapi import (
    ApiConflictError,
    ApiNotFoundError,
    KubeApiError,
    Object,
    WatchExpiredError,
)

CONNECT_TIMEOUT: Final = 5.0
WRITE_READ_MARGIN: Final = 5.0  # a write past its deadline is answered 504 by the server; allow that

_ERRORS: Final = {
    404: ApiNotFoundError,
    409: ApiConflictError,
    410: WatchExpiredError,
}


def api_error(status: int, call: str, detail: str) -> KubeApiError:
    """The typed error for an HTTP status (or an in-stream watch ``Status``), naming the call."""
    error: type[KubeApiError] = _ERRORS.get(status, KubeApiError)
    return error(status, f"{call}: {detail}")


class RestTransport:
    """Requests through one ``ApiClient`` built from ``configuration``, with urllib3's retries
    off; ``request_timeout`` bounds the wait for each answer unless the call sets its own."""

    def __init__(self, configuration: Configuration, *, request_timeout: float) -> None:
        # Retries are the reconcilers' decision; urllib3 must not repeat a PATCH behind their back.
        configuration.retries = False
        self._client = ApiClient(configuration)
        self._timeout = (CONNECT_TIMEOUT, request_timeout)

    def close(self) -> None:
        self._client.close()  # type: ignore[no-untyped-call]  # unannotated in the library

    def call(
        self,
        method: str,
        path: str,
        query: Mapping[str, str] | None = None,
        *,
        body: Any = None,
        content_type: str = "application/json",
        call: str,
        deadline: float | None = None,
    ) -> Object:
        """One request; ``deadline`` (seconds) goes to the server as its ``timeout`` parameter."""
        headers = {"Content-Type": content_type} if body is not None else {}
        query = dict(query or {})
        timeout = self._timeout
        if deadline is not None:
            query["timeout"] = f"{max(deadline, 0.001):.3f}s"  # a Go duration, as the server parses it
            timeout = (CONNECT_TIMEOUT, deadline + WRITE_READ_MARGIN)
        response = self.send(method, path, query, body, headers, timeout, call)
        try:
            data = response.read()  # type: ignore[no-untyped-call]  # unannotated in the library
        except urllib3.exceptions.HTTPError as exc:
            raise KubeApiError(0, f"{call}: reading the response failed: {exc}") from exc
        finally:
            response.response.release_conn()
        try:
            decoded: Object = json.loads(data) if data else {}
        except ValueError as exc:
            raise KubeApiError(response.status, f"{call}: the response is not JSON: {exc}") from exc
        return decoded

    def send(
        self,
        method: str,
        path: str,
        query: Mapping[str, str],
        body: Any,
        headers: dict[str, str],
        timeout: tuple[float, float],
        call: str,
    ) -> RESTResponse:
        """One request; a non-2xx status or a transport failure becomes a typed error."""
        request = self._client.param_serialize(
            method,
            path,
            query_params=list(query.items()),
            header_params={"Accept": "application/json", **headers},
            body=body,
            auth_settings=["BearerToken"],
        )
        try:
            response = self._client.call_api(*request, _request_timeout=timeout)
        except urllib3.exceptions.HTTPError as exc:
            raise KubeApiError(
                0, f"{call}: no response from {self._client.configuration.host}: {exc}"
            ) from exc
        if not 200 <= response.status <= 299:
            detail = _status_message(response.read(), response.reason)  # type: ignore[no-untyped-call]
            response.response.release_conn()
            raise api_error(response.status, call, detail)
        return response


def _status_message(data: bytes | None, reason: str | None) -> str:
    """The ``message`` of the API server's ``Status`` body, else the HTTP reason."""
    try:
        status = json.loads(data or b"")
    except ValueError:
        status = None
    if isinstance(status, dict) and status.get("message"):
        return str(status["message"])
    return reason or "no reason given"
