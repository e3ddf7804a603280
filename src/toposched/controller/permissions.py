"""The Kubernetes API calls the controller makes, per mode: the one list deploy/'s RBAC must grant.

A test reads deploy/ and checks that its rules grant exactly these (group, resource, verb) and
nothing more, and that every request the client sends while the controller runs is listed here.
Add a call here when the code starts making it, in the same change as the RBAC rule.

Verbs are RBAC verbs: a server-side apply is a ``patch``, and because an apply may create the
object, it needs ``create`` as well. Leases are the only namespaced grant (leader election in the
controller's own namespace); everything else is cluster-wide.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_PODGROUPS,
    KAI_TOPOLOGIES,
    KUBE_COMPOSITE_PODGROUPS,
    KUBE_PODGROUPS,
    KUBE_WORKLOADS,
    KUEUE_TOPOLOGIES,
    LEASES,
    NODES,
    PODS,
    Resource,
)
from toposched.controller.modes import Mode


class Scope(StrEnum):
    CLUSTER = "cluster"  # a ClusterRole bound cluster-wide
    NAMESPACE = "namespace"  # a Role in the controller's own namespace


@dataclass(frozen=True, slots=True, order=True)
class Permission:
    group: str
    resource: str
    verb: str
    scope: Scope = Scope.CLUSTER


READ = ("list", "watch")  # informers: list, then watch from the listing (no single gets)
APPLY = ("create", "patch")  # server-side apply, which creates what does not exist yet
LEADER_ELECTION = ("get", "create", "update")


def grants(resource: Resource, verbs: Iterable[str], scope: Scope = Scope.CLUSTER) -> frozenset[Permission]:
    return frozenset(Permission(resource.group, resource.plural, verb, scope) for verb in verbs)


_LEASES = grants(LEASES, LEADER_ELECTION, Scope.NAMESPACE)

PERMISSIONS: dict[Mode, frozenset[Permission]] = {
    Mode.UNGATER: _LEASES
    | grants(NODES, READ)
    | grants(PODS, (*READ, "patch", "delete"))  # patch: assign and ungate; delete: evict from a failed node
    | grants(KAI_PODGROUPS, READ)  # gang membership of KAI, OSMO and Grove pods
    | grants(KUBE_PODGROUPS, READ)  # upstream gangs: pods name them by spec.schedulingGroup (any version)
    | grants(KUBE_COMPOSITE_PODGROUPS, READ)  # the trees PodGroups with a parent belong to
    | grants(KUBE_WORKLOADS, READ)  # the templates 1.35 pods name by spec.workloadRef
    | grants(KAI_TOPOLOGIES, READ)
    | grants(KUEUE_TOPOLOGIES, READ)
    | grants(GROVE_CLUSTER_TOPOLOGIES, READ),
    Mode.SYNC: _LEASES
    | grants(KAI_TOPOLOGIES, (*APPLY, "list", "delete"))  # immutable levels: a changed one is replaced
    | grants(KAI_PODGROUPS, APPLY)
    | grants(GROVE_CLUSTER_TOPOLOGIES, APPLY),
}
