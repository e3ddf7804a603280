"""What one client asked of the real API server, from its audit log (``tests.realkube.audit``):
the requests made with one kubeconfig's token, told apart by the token's id (its ``jti``)."""

from __future__ import annotations

import base64
import json
from collections import Counter
from pathlib import Path

import yaml
from tests.realkube.audit import AuditEvent, read_events
from tests.realkube.control_plane import ControlPlane


def credential_of(kubeconfig: Path) -> str:
    """The credential id the audit log gives the requests made with ``kubeconfig``'s token."""
    token = str(yaml.safe_load(kubeconfig.read_text())["users"][0]["user"]["token"])
    payload = token.split(".")[1]
    claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    return f"JTI={claims['jti']}"


def requests_with(plane: ControlPlane, kubeconfig: Path) -> list[AuditEvent]:
    """Every request made with ``kubeconfig``'s token so far, in the order the server logged them."""
    credential = credential_of(kubeconfig)
    return [event for event in read_events(plane.audit_log) if event.credential == credential]


def refused(plane: ControlPlane, kubeconfig: Path) -> list[str]:
    """The requests with ``kubeconfig``'s token that RBAC refused (403), one line each."""
    return [
        f"{e.verb} {e.group}/{e.resource} {e.namespace}/{e.name}"
        for e in requests_with(plane, kubeconfig)
        if e.code == 403
    ]


def pod_writes(plane: ControlPlane, kubeconfig: Path, namespace: str) -> Counter[str]:
    """Per pod of ``namespace``: how many writes (patch, update) ``kubeconfig``'s token made to
    it that the server applied."""
    return Counter(
        str(e.name)
        for e in requests_with(plane, kubeconfig)
        if e.resource == "pods"
        and e.namespace == namespace
        and e.verb in ("patch", "update")
        and e.code < 300
    )
