"""Builders of kube documents for the front-end tests: a Workload, PodGroups, a
CompositePodGroup and Pods linked by ``spec.schedulingGroup``."""

from __future__ import annotations

from typing import Any

RACK = "cloud.provider.com/topology-rack"
V1BETA1 = "scheduling.k8s.io/v1beta1"
V1ALPHA3 = "scheduling.k8s.io/v1alpha3"


def gang(min_count: int) -> dict[str, Any]:
    return {"gang": {"minCount": min_count}}


def workload(name: str, templates: list[dict[str, Any]], api: str = V1BETA1, **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": api,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": {"podGroupTemplates": templates, **spec},
    }


def pod_group(
    name: str, api: str = V1BETA1, *, policy: Any = None, key: str | None = None, **spec: Any
) -> dict[str, Any]:
    body: dict[str, Any] = {"schedulingPolicy": policy if policy is not None else {"basic": {}}, **spec}
    if key is not None:
        body["schedulingConstraints"] = {"topology": [{"key": key}]}
    return {
        "apiVersion": api,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": body,
    }


def composite(name: str, *, policy: Any = None, key: str | None = None, **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "workloadRef": {"workloadName": "w", "templateName": name},
        "schedulingPolicy": policy if policy is not None else {"basic": {}},
        **spec,
    }
    if key is not None:
        body["schedulingConstraints"] = {"topology": [{"key": key}]}
    return {
        "apiVersion": V1ALPHA3,
        "kind": "CompositePodGroup",
        "metadata": {"name": name, "namespace": "ml"},
        "spec": body,
    }


def children(parent: str, *groups: tuple[str, int], api: str = V1ALPHA3) -> list[dict[str, Any]]:
    """PodGroups under the CompositePodGroup ``parent``, each a gang of its count, stamped from
    Workload ``w`` (a PodGroup with a parent names its Workload template)."""
    return [
        pod_group(
            name,
            api,
            policy=gang(count),
            parentCompositePodGroupName=parent,
            workloadRef={"workloadName": "w", "templateName": name},
        )
        for name, count in groups
    ]


def pods(
    group: str, count: int, *, gpus: int = 4, prefix: str | None = None, **spec: Any
) -> list[dict[str, Any]]:
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"{prefix or group}-{i}", "namespace": "ml"},
            "spec": {
                "schedulingGroup": {"podGroupName": group},
                "containers": [{"name": "c", "resources": {"requests": {"nvidia.com/gpu": str(gpus)}}}],
                **spec,
            },
        }
        for i in range(count)
    ]


def job(name: str = "llm-train", pods: int = 8, scheduling: Any = None, **labels: str) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "completionMode": "Indexed",
        "parallelism": pods,
        "completions": pods,
        "template": {
            "spec": {"containers": [{"name": "w", "resources": {"requests": {"nvidia.com/gpu": "4"}}}]}
        },
    }
    if scheduling is not None:
        spec["scheduling"] = scheduling
    metadata: dict[str, Any] = {"name": name, "namespace": "ml"}
    if labels:
        metadata["labels"] = dict(labels)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": metadata, "spec": spec}
