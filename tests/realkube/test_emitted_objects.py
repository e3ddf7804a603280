"""What ``toposched compile`` writes, applied to the real API server with server-side apply: each
object is accepted (schema, validation and admission of the real server) and a second apply of
the same objects changes nothing, except the objects the server is known to refuse today
(``KNOWN_REJECTED``: each one a defect to fix in toposched, after which this test fails until the
entry goes)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from tests.realkube.accounts import ensure_namespace
from tests.realkube.binaries import REPO
from tests.realkube.control_plane import ControlPlane
from typer.testing import CliRunner

from toposched.cli.main import app
from toposched.controller.kubeapi import KubeApiError

EXAMPLES = REPO / "examples"
FIELD_MANAGER = "toposched"
JOB = EXAMPLES / "kube" / "job-one-rack.yaml"
KUBE_CLUSTER = EXAMPLES / "kube" / "cluster.yaml"
# One compile per target, and the Grove front end's own objects: together every kind toposched
# writes (KAI Topology and PodGroup, Kueue Topology, Grove ClusterTopology, PodCliqueSet and
# PodGang, scheduling.k8s.io Workload, PodGroup and CompositePodGroup, Pods, Jobs).
COMPILES: dict[str, tuple[str | Path, ...]] = {
    "to-kai": (JOB, "--cluster", KUBE_CLUSTER, "--to", "kai"),
    "to-kueue": (JOB, "--cluster", KUBE_CLUSTER, "--to", "kueue"),
    "to-grove": (JOB, "--cluster", KUBE_CLUSTER, "--to", "grove"),
    "to-kube-v1beta1": (EXAMPLES / "kube" / "leader-workers.yaml", "--cluster", KUBE_CLUSTER, "--to", "kube"),
    "to-kube-v1alpha3": (
        EXAMPLES / "kube" / "composite.yaml",
        "--cluster",
        KUBE_CLUSTER,
        "--to",
        "kube",
        "--api-version",
        "scheduling.k8s.io/v1alpha3",
    ),
    "grove-podgangs": (
        EXAMPLES / "grove" / "llama-70b-h100.yaml",
        "--topology",
        EXAMPLES / "grove" / "topologies.yaml",
    ),
}


# case -> kind -> a fragment of the server's refusal.
KNOWN_REJECTED: dict[str, dict[str, str]] = {
    # Written pods and pod templates have no image, GPU requests without limits (extended
    # resources cannot be overcommitted) and, in a Job, no restartPolicy.
    "to-kai": {"Pod": "spec.containers[0].image: Required value"},
    "to-kueue": {"Job": "spec.template.spec.restartPolicy: Required value"},
    "to-kube-v1beta1": {"Pod": "spec.containers[0].resources.limits: Required value"},
    "to-kube-v1alpha3": {"Pod": "spec.containers[0].resources.limits: Required value"},
    # GREP-369's draft field: Grove's PodCliqueSet CRD (main) has no spec.template.clusterTopologyName.
    "to-grove": {"PodCliqueSet": ".spec.template.clusterTopologyName: field not declared in schema"},
    # wire/grove.py writes metadata.ownerReference (no such field), and the KAI PodGroups' owner
    # references have no uid, which the server requires.
    "grove-podgangs": {
        "PodGang": ".metadata.ownerReference: field not declared in schema",
        "PodGroup": "metadata.ownerReferences[0].uid: Required value",
    },
}


def compiled(args: tuple[str | Path, ...]) -> list[dict[str, Any]]:
    result = CliRunner().invoke(app, ["compile", *map(str, args)])
    assert result.exit_code == 0, result.stderr
    return [document for document in yaml.safe_load_all(result.stdout) if document]


def in_namespace(obj: dict[str, Any], namespace: str) -> dict[str, Any]:
    """``obj`` moved to ``namespace`` (each case has its own, so equal names never meet)."""
    if "namespace" not in obj["metadata"]:
        return obj
    return {**obj, "metadata": {**obj["metadata"], "namespace": namespace}}


@pytest.mark.parametrize("case", list(COMPILES))
def test_compiled_objects_are_accepted_and_a_second_apply_changes_nothing(
    real_apiserver: ControlPlane, case: str
) -> None:
    namespace = f"emit-{case}"
    ensure_namespace(real_apiserver, namespace)
    objects = [in_namespace(obj, namespace) for obj in compiled(COMPILES[case])]
    api = real_apiserver.admin_api()
    versions: list[tuple[str, str]] = []
    rejected: dict[str, str] = {}
    for obj in objects:
        resource = real_apiserver.resource_for(obj["apiVersion"], obj["kind"])
        try:
            first = api.apply(resource, obj, field_manager=FIELD_MANAGER)
            second = api.apply(resource, obj, field_manager=FIELD_MANAGER)
        except KubeApiError as exc:
            rejected.setdefault(obj["kind"], str(exc))
            continue
        versions.append((first["metadata"]["resourceVersion"], second["metadata"]["resourceVersion"]))
    api.close()

    known = KNOWN_REJECTED.get(case, {})
    assert objects
    assert all(first == second for first, second in versions), "a second apply of the same object changed it"
    assert rejected.keys() == known.keys(), rejected
    assert all(known[kind] in message for kind, message in rejected.items()), rejected
