"""The CRDs toposched reads and writes, installed into a control plane and waited for.

From the repository where it keeps a copy (deploy/crds: KAI Topology and PodGroup, Grove
ClusterTopology; testenv/crds: Kueue Topology and Workload, JobSet) and from the specification beside it
(../shared/schemas/grove: Grove PodCliqueSet and PodGang, as Grove's main branch ships them).
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

import yaml
from tests.realkube.binaries import REPO
from tests.realkube.control_plane import ControlPlane
from tests.realkube.processes import ControlPlaneError

from toposched.controller.kubeapi import ApiConflictError, KubeApiError, Resource
from toposched.controller.rest import RestKubeApi

CRDS = Resource(
    "apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", namespaced=False
)
SHARED_SCHEMAS = REPO.parent / "shared" / "schemas"
CRD_FILES = (
    REPO / "deploy" / "crds" / "topologies.kai.scheduler.yaml",
    REPO / "deploy" / "crds" / "podgroups.scheduling.run.ai.yaml",
    REPO / "deploy" / "crds" / "clustertopologies.grove.io.yaml",
    REPO / "testenv" / "crds" / "kueue.x-k8s.io_topologies.yaml",
    REPO / "testenv" / "crds" / "kueue.x-k8s.io_workloads.yaml",
    REPO / "testenv" / "crds" / "jobset.x-k8s.io_jobsets.yaml",
    SHARED_SCHEMAS / "grove" / "podcliquesets.grove.io.head.yaml",
    SHARED_SCHEMAS / "grove" / "podgangs.scheduler.grove.io.head.yaml",
)
READY_TIMEOUT = 60.0  # for all of them together


def crd_documents(files: tuple[Path, ...] = CRD_FILES) -> Iterator[dict[str, Any]]:
    """Every CRD in ``files``; ``ControlPlaneError`` naming a file that is missing."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # Kueue's Workload CRD is 1.4 MB
    for path in files:
        if not path.is_file():
            raise ControlPlaneError(
                f"CRD file {path} is missing (../shared is the specification beside the clone)"
            )
        for document in yaml.load_all(path.read_text(), Loader=loader):
            if document:
                yield document


def install_crds(plane: ControlPlane, files: tuple[Path, ...] = CRD_FILES) -> list[str]:
    """Creates every CRD (one already there is kept) and waits until each is Established and
    each served version answers a list (its storage starts a moment after Established: until
    then the server says 429 "storage is (re)initializing"). Returns the CRDs' names."""
    api = plane.admin_api()
    try:
        documents = list(crd_documents(files))
        for document in documents:
            with contextlib.suppress(ApiConflictError):  # installed by an earlier call on this plane
                api.create(CRDS, document)
        deadline = time.monotonic() + READY_TIMEOUT
        for document in documents:
            name = str(document["metadata"]["name"])
            _wait(partial(_established, api, name), deadline, f"CRD {name} Established")
            for resource in served_resources(document):
                _wait(
                    partial(_lists, api, resource),
                    deadline,
                    f"{resource.plural}.{resource.api_version} listed",
                )
        return [str(document["metadata"]["name"]) for document in documents]
    finally:
        api.close()


def served_resources(crd: dict[str, Any]) -> list[Resource]:
    """The resource of each version the CRD serves."""
    spec = crd["spec"]
    return [
        Resource(
            spec["group"],
            version["name"],
            spec["names"]["plural"],
            spec["names"]["kind"],
            spec["scope"] == "Namespaced",
        )
        for version in spec["versions"]
        if version.get("served")
    ]


def _wait(done: Callable[[], bool], deadline: float, what: str) -> None:
    while not done():
        if time.monotonic() > deadline:
            raise ControlPlaneError(f"{what}: not after {READY_TIMEOUT:.0f} s")
        time.sleep(0.2)


def _lists(api: RestKubeApi, resource: Resource) -> bool:
    try:
        api.list(resource)
    except KubeApiError as exc:
        if exc.status == 429:
            return False
        raise
    return True


def _established(api: RestKubeApi, name: str) -> bool:
    conditions = api.get(CRDS, name).get("status", {}).get("conditions") or ()
    return any(c.get("type") == "Established" and c.get("status") == "True" for c in conditions)
