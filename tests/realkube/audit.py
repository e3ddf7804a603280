"""The test control plane's audit log: what ServiceAccounts (the controllers under test) asked of
the API server, as the server itself recorded it.

The policy leaves out the tests' own admin (``system:masters``, the API server's loopback
client included) and every other identity, records each ServiceAccount request at ``Metadata``
level (user, verb, resource, namespace, name, URI, status), and its writes of pods and Leases at
``RequestResponse`` level, whose response body holds the resourceVersion the write got. Each
request is one event, logged when its response is complete (``blocking`` mode: before the client
has the response).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

POLICY: dict[str, Any] = {
    "apiVersion": "audit.k8s.io/v1",
    "kind": "Policy",
    "omitStages": ["RequestReceived", "ResponseStarted"],
    "rules": [
        {"level": "None", "userGroups": ["system:masters"]},
        {
            "level": "RequestResponse",
            "userGroups": ["system:serviceaccounts"],
            "verbs": ["create", "update", "patch", "delete"],
            "resources": [
                {"group": "", "resources": ["pods"]},
                {"group": "coordination.k8s.io", "resources": ["leases"]},
            ],
        },
        {"level": "Metadata", "userGroups": ["system:serviceaccounts"]},
        {"level": "None"},
    ],
}
CREDENTIAL = "authentication.kubernetes.io/credential-id"  # "JTI=<the token's jti>" for a bound token


def write_policy(folder: Path) -> Path:
    path = folder / "audit-policy.yaml"
    path.write_text(yaml.safe_dump(POLICY, sort_keys=False))
    return path


@dataclass(frozen=True, slots=True)
class AuditEvent:
    """One request a ServiceAccount made, as the audit log has it."""

    user: str
    credential: str  # which token: two replicas of one ServiceAccount have a token each
    verb: str  # the RBAC verb: get, list, watch, create, update, patch, delete
    group: str
    resource: str
    subresource: str
    namespace: str | None
    name: str | None
    code: int
    uri: str
    response: dict[str, Any] | None  # the response body of a write logged at RequestResponse

    @property
    def resource_version(self) -> int | None:
        """The resourceVersion the written object got (its response's)."""
        version = ((self.response or {}).get("metadata") or {}).get("resourceVersion")
        return int(version) if version else None


def read_events(log: Path) -> Iterator[AuditEvent]:
    """Every event in the log so far, in the order the server wrote them."""
    if not log.is_file():
        return
    with log.open(encoding="utf-8") as lines:
        for line in lines:
            if line.strip():
                yield _event(json.loads(line))


def _event(raw: dict[str, Any]) -> AuditEvent:
    user = raw.get("user") or {}
    ref = raw.get("objectRef") or {}
    credential = ((user.get("extra") or {}).get(CREDENTIAL) or [""])[0]
    return AuditEvent(
        user=str(user.get("username", "")),
        credential=str(credential),
        verb=str(raw.get("verb", "")),
        group=str(ref.get("apiGroup", "")),
        resource=str(ref.get("resource", "")),
        subresource=str(ref.get("subresource", "")),
        namespace=ref.get("namespace"),
        name=ref.get("name"),
        code=int((raw.get("responseStatus") or {}).get("code", 0)),
        uri=str(raw.get("requestURI", "")),
        response=raw.get("responseObject"),
    )
