"""The cluster the kubeconfig names, read once as a cluster dump would be: for the commands that
read a cluster (``place``, ``explain``, ``topology lint|show``, ``defrag``) when no file is given.

The kubeconfig is found as kubectl finds it (``kubeconfig.client_configuration``). Nodes, the
pods bound to them and not finished (the server filters them: ``spec.nodeName`` set, phase
neither Succeeded nor Failed, as kube-scheduler's own pod informer asks), and the Topology kinds
toposched reads (Kueue, KAI, Grove) are listed in pages of ``PAGE_SIZE`` objects, as kubectl
lists in chunks, and at most ``MAX_LISTED`` of each resource, so neither one answer nor the whole
listing is unbounded. Each page goes straight into the one cluster loader the dump files use
(``intake.cluster.cluster_from_objects``), so a live cluster and a dump of the same objects are
the same ``Cluster``. A Topology kind the server does not serve (its CRD not installed) is
skipped; any other failure is a ``KubeApiError`` naming the call.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Final

from toposched.controller.kubeapi import (
    GROVE_CLUSTER_TOPOLOGIES,
    KAI_TOPOLOGIES,
    KUEUE_TOPOLOGIES,
    NODES,
    PODS,
    ApiNotFoundError,
    KubeApiError,
    Object,
    Resource,
)
from toposched.controller.kubeconfig import client_configuration
from toposched.controller.rest import RestKubeApi
from toposched.intake.cluster import cluster_from_objects
from toposched.model import Cluster

PAGE_SIZE: Final = 500  # kubectl's default --chunk-size
MAX_LISTED: Final = 1_000_000  # objects of one resource: ten times the largest cluster Kubernetes supports
BOUND_PODS: Final = "spec.nodeName!=,status.phase!=Succeeded,status.phase!=Failed"
TOPOLOGY_RESOURCES: Final = (KUEUE_TOPOLOGIES, KAI_TOPOLOGIES, GROVE_CLUSTER_TOPOLOGIES)


@dataclass(frozen=True, slots=True)
class LiveCluster:
    """What was read, the loader's warnings, and where it came from (``context`` of ``source``)."""

    cluster: Cluster
    warnings: list[str]
    source: str


def read_live_cluster(
    kubeconfig: str | None = None, *, context: str | None = None, page_size: int = PAGE_SIZE
) -> LiveCluster:
    """The cluster of ``context`` (else the current one) of the kubeconfig kubectl would use.
    ``SpecError`` for a kubeconfig at fault, ``ClusterSpecError`` for objects the loader refuses,
    ``KubeApiError`` when the API server cannot be reached or refuses a list."""
    configuration, found = client_configuration(kubeconfig, context=context)
    api = RestKubeApi(configuration)
    where = f"{configuration.host} ({found.describe()})"
    try:
        cluster, warnings = cluster_from_objects(_objects(api, page_size), source=where)
    finally:
        api.close()
    return LiveCluster(cluster, warnings, where)


def _objects(api: RestKubeApi, page_size: int) -> Iterator[Object]:
    yield from listed(api, NODES, page_size=page_size)
    yield from listed(api, PODS, page_size=page_size, field_selector=BOUND_PODS)
    for resource in TOPOLOGY_RESOURCES:
        try:
            yield from listed(api, resource, page_size=page_size)
        except ApiNotFoundError:
            continue  # the kind is not served here: the cluster has none of these topologies


def listed(
    api: RestKubeApi,
    resource: Resource,
    *,
    page_size: int = PAGE_SIZE,
    field_selector: str | None = None,
    max_listed: int = MAX_LISTED,
) -> Iterator[Object]:
    """Every object of ``resource`` across namespaces, page by page; a ``KubeApiError`` past
    ``max_listed`` objects rather than a listing without end."""
    token, count = "", 0
    while True:
        listing, token = api.list_page(
            resource, limit=page_size, continue_token=token, field_selector=field_selector
        )
        count += len(listing.items)
        if count > max_listed:
            raise KubeApiError(
                0,
                f"list {resource.plural}: more than {max_listed} objects; toposched reads at most "
                f"that many (give a dump of the part to read: --cluster FILE)",
            )
        yield from listing.items
        if not token:
            return
