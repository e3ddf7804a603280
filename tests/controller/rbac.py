"""The RBAC rules in deploy/, read back as ``Permission`` sets per controller mode, and the check
of a recorded request against them (for the RBAC tests and any end-to-end run on the test server)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import yaml
from tests.controller.kube_test_server import Call

from toposched.controller.kubeapi import Resource
from toposched.controller.modes import Mode
from toposched.controller.permissions import Permission, Scope

DEPLOY = Path(__file__).resolve().parents[2] / "deploy"
NAMESPACE = "toposched-system"


def documents(root: Path = DEPLOY) -> Iterator[tuple[Path, dict[str, Any]]]:
    for path in sorted(root.rglob("*.yaml")):
        for document in yaml.safe_load_all(path.read_text()):
            if document:
                yield path, document


def of_kind(kind: str, root: Path = DEPLOY) -> list[dict[str, Any]]:
    return [document for _, document in documents(root) if document["kind"] == kind]


def controller(mode: Mode) -> tuple[dict[str, Any], dict[str, Any]]:
    """The one Deployment with a container running ``--mode=<mode>``, and that container."""
    found = [
        (pod, container)
        for pod in of_kind("Deployment")
        for container in pod["spec"]["template"]["spec"]["containers"]
        if f"--mode={mode}" in container.get("args", ())
    ]
    assert len(found) == 1, f"expected one container running --mode={mode}, found {len(found)}"
    return found[0]


def granted(mode: Mode) -> frozenset[Permission]:
    """Every (group, resource, verb) the mode's ServiceAccount is bound to, with its scope."""
    pod, _ = controller(mode)
    account = (pod["spec"]["template"]["spec"]["serviceAccountName"], pod["metadata"]["namespace"])
    roles = {
        (d["kind"], d["metadata"].get("namespace"), d["metadata"]["name"]): d
        for d in (*of_kind("ClusterRole"), *of_kind("Role"))
    }
    permissions: set[Permission] = set()
    for kind, scope in (("ClusterRoleBinding", Scope.CLUSTER), ("RoleBinding", Scope.NAMESPACE)):
        for binding in of_kind(kind):
            if not any(
                (s["kind"], s["name"], s.get("namespace")) == ("ServiceAccount", *account)
                for s in binding["subjects"]
            ):
                continue
            ref = binding["roleRef"]
            role_namespace = binding["metadata"].get("namespace") if ref["kind"] == "Role" else None
            if scope is Scope.NAMESPACE:
                assert binding["metadata"]["namespace"] == account[1], (
                    "a RoleBinding outside the controller's namespace"
                )
            permissions |= _expand(roles[(ref["kind"], role_namespace, ref["name"])]["rules"], scope)
    return frozenset(permissions)


def _expand(rules: Iterable[dict[str, Any]], scope: Scope) -> set[Permission]:
    out: set[Permission] = set()
    for rule in rules:
        assert "resourceNames" not in rule, "resourceNames are not modelled by this check"
        for value in (*rule["apiGroups"], *rule["resources"], *rule["verbs"]):
            assert value != "*", f"wildcard in an RBAC rule: {rule}"
        out |= {
            Permission(group, resource, verb, scope)
            for group in rule["apiGroups"]
            for resource in rule["resources"]
            for verb in rule["verbs"]
        }
    return out


def permitted(permissions: frozenset[Permission], call: Call, own_namespace: str = NAMESPACE) -> bool:
    """A ClusterRole grant covers every namespace; a Role grant only the controller's own."""
    cluster = Permission(call.group, call.resource, call.verb, Scope.CLUSTER)
    local = Permission(call.group, call.resource, call.verb, Scope.NAMESPACE)
    return cluster in permissions or (call.namespace == own_namespace and local in permissions)


def crd_serves(crd: dict[str, Any], resource: Resource) -> bool:
    spec = crd["spec"]
    versions = {v["name"] for v in spec["versions"] if v.get("served")}
    scope = "Namespaced" if resource.namespaced else "Cluster"
    return (spec["group"], spec["names"]["plural"], spec["names"]["kind"], spec["scope"]) == (
        resource.group,
        resource.plural,
        resource.kind,
        scope,
    ) and resource.version in versions
