"""Generated gangs: a PodGroup (gang with minCount below or equal to its pod count, or basic; with
or without a topology constraint), a Workload of several independent PodGroups, a
CompositePodGroup tree, or a Job with ``spec.scheduling``.

Each gang is written as the objects a controller creates on the API server: the Workload, its
PodGroups (and CompositePodGroups) copying their templates, and the pods naming their PodGroup in
``spec.schedulingGroup``. A Job is created as it is, and beside it the Workload, PodGroup and pods
the Job controller (kube-controller-manager, not run here) would create for it
(pkg/controller/job/job_scheduling_manager.go, v1.37.2): template ``<job>-pgt-0``, the policy
and constraints of ``spec.scheduling`` (basic when it sets no policy; a gang's minCount defaults
to the parallelism), one pod per completion index named ``<job>-<index>-<suffix>``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from tests.realkube.sidebyside.cluster import (
    ACCELERATOR,
    BLOCK,
    DEDICATED,
    GPU,
    HOST,
    RACK,
    ZONE,
    ClusterSpec,
)

SCHEDULING = "scheduling.k8s.io"
BETA = f"{SCHEDULING}/v1beta1"
ALPHA = f"{SCHEDULING}/v1alpha3"
COMPLETION_INDEX = "batch.kubernetes.io/job-completion-index"


@dataclass(frozen=True, slots=True)
class Leaf:
    """A PodGroup as the comparison reads it: its key and its pods (kube names, toposched names)."""

    name: str
    key: str | None
    pods: tuple[str, ...]
    toposched_pods: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Scope:
    """A PodGroup or CompositePodGroup with a key: the one domain all its pods share."""

    name: str
    key: str
    leaves: tuple[str, ...]  # the PodGroups in it


@dataclass(frozen=True, slots=True)
class Unit:
    """What kube-scheduler schedules in one cycle: a PodGroup, or a CompositePodGroup tree."""

    name: str
    leaves: tuple[Leaf, ...]
    objects: tuple[str, ...]  # names of its PodGroups and CompositePodGroups
    scopes: tuple[Scope, ...]  # every keyed group of it, parents before children


def leaf_unit(leaf: Leaf) -> Unit:
    scopes = (Scope(leaf.name, leaf.key, (leaf.name,)),) if leaf.key else ()
    return Unit(leaf.name, (leaf,), (leaf.name,), scopes)


@dataclass(frozen=True, slots=True)
class GangSpec:
    kind: str  # podgroup, workload, composite, job
    job: dict[str, Any] | None  # created first; toposched's whole input when set
    pods: tuple[dict[str, Any], ...]  # created before any PodGroup: all are known when it is
    groups: tuple[dict[str, Any], ...]  # Workload, PodGroups, CompositePodGroups (roots last)
    units: tuple[Unit, ...]
    summary: str


class Namer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.count = 0

    def __call__(self, stem: str) -> str:
        self.count += 1
        return f"{stem}{self.count}"


def generate_gang(rng: random.Random, cluster: ClusterSpec, namespace: str) -> GangSpec:
    kind = rng.choices(("podgroup", "workload", "composite", "job"), weights=(40, 15, 30, 15))[0]
    build = {"podgroup": _podgroup_gang, "workload": _flat_gang, "composite": _composite_gang, "job": _job}
    return build[kind](rng, cluster, namespace)


# -- pods -----------------------------------------------------------------------------------------


def pod_shape(rng: random.Random, cluster: ClusterSpec) -> dict[str, Any]:
    """One pod's spec (requests, tolerations, selector) for every pod of a PodGroup."""
    requests: dict[str, str] = {}
    if rng.random() < 0.95:
        requests["cpu"] = rng.choice(("250m", "500m", "1", "2", "4", "8"))
    if rng.random() < 0.85:
        requests["memory"] = rng.choice(("512Mi", "1Gi", "2Gi", "4Gi", "8Gi", "16Gi"))
    spec: dict[str, Any] = {}
    if cluster.has_gpus and rng.random() < 0.4:
        requests[GPU] = rng.choice(("1", "2", "4", "8"))
        if rng.random() < 0.4:
            spec["nodeSelector"] = {ACCELERATOR: "gpu"}
    if not requests:
        requests["cpu"] = "1"
    limits = {k: v for k, v in requests.items() if k == GPU}
    resources: dict[str, Any] = {"requests": requests, **({"limits": limits} if limits else {})}
    if rng.random() < 0.25:
        spec["tolerations"] = [
            {"key": DEDICATED, "operator": "Equal", "value": "infer", "effect": "NoSchedule"}
        ]
    elif rng.random() < 0.03:
        spec["tolerations"] = [{"operator": "Exists"}]  # every taint, not-ready and cordoned included
    spec["containers"] = [{"name": "worker", "image": "registry.example/trainer:1", "resources": resources}]
    return spec


def member_pods(
    rng: random.Random, cluster: ClusterSpec, namespace: str, group: str, count: int
) -> list[dict[str, Any]]:
    spec = pod_shape(rng, cluster)
    return [
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"{group}-{i}", "namespace": namespace},
            "spec": {**spec, "schedulingGroup": {"podGroupName": group}},
        }
        for i in range(count)
    ]


# -- PodGroups ------------------------------------------------------------------------------------


def _size(rng: random.Random) -> int:
    return rng.randint(1, 6) if rng.random() < 0.6 else rng.randint(6, 16 if rng.random() < 0.8 else 24)


def _policy(rng: random.Random, count: int) -> dict[str, Any]:
    if rng.random() < 0.25:
        return {"basic": {}}
    low = count if rng.random() < 0.6 else rng.randint(1, count)
    return {"gang": {"minCount": low}}


def _constraints(key: str | None) -> dict[str, Any]:
    return {"schedulingConstraints": {"topology": [{"key": key}]}} if key else {}


def _template(name: str, policy: dict[str, Any], key: str | None) -> dict[str, Any]:
    return {"name": name, "schedulingPolicy": policy, **_constraints(key)}


def _podgroup(
    name: str, namespace: str, workload: str, template: dict[str, Any], parent: str | None = None
) -> dict[str, Any]:
    spec = {
        "workloadRef": {"workloadName": workload, "templateName": template["name"]},
        "schedulingPolicy": template["schedulingPolicy"],
        **{k: v for k, v in template.items() if k == "schedulingConstraints"},
        **({"parentCompositePodGroupName": parent} if parent else {}),
    }
    return {
        "apiVersion": BETA,
        "kind": "PodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


def _workload(name: str, namespace: str, templates: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": BETA,
        "kind": "Workload",
        "metadata": {"name": name, "namespace": namespace},
        "spec": templates,
    }


def _key(rng: random.Random, keys: tuple[str | None, ...], weights: tuple[int, ...]) -> str | None:
    return rng.choices(keys, weights=weights)[0]


PG_KEYS: tuple[str | None, ...] = (None, ZONE, BLOCK, RACK, HOST)


def _leaf_group(
    rng: random.Random, cluster: ClusterSpec, namespace: str, name: str, key: str | None
) -> tuple[dict[str, Any], list[dict[str, Any]], Leaf]:
    count = _size(rng)
    template = _template(name, _policy(rng, count), key)
    pods = member_pods(rng, cluster, namespace, name, count)
    names = tuple(p["metadata"]["name"] for p in pods)
    return template, pods, Leaf(name, key, names, names)


def _describe(template: dict[str, Any], count: int) -> str:
    policy = template["schedulingPolicy"]
    rule = f"gang {policy['gang']['minCount']}/{count}" if "gang" in policy else f"basic {count}"
    key = template.get("schedulingConstraints", {}).get("topology", [{}])[0].get("key")
    return f"{rule} @{key.rsplit('/', 1)[-1] if key else '-'}"


def _podgroup_gang(rng: random.Random, cluster: ClusterSpec, namespace: str) -> GangSpec:
    key = _key(rng, PG_KEYS, (2, 1, 2, 4, 1))
    template, pods, leaf = _leaf_group(rng, cluster, namespace, "pg", key)
    group = _podgroup("pg", namespace, "wl", template)
    return GangSpec(
        "podgroup",
        None,
        tuple(pods),
        (_workload("wl", namespace, {"podGroupTemplates": [template]}), group),
        (leaf_unit(leaf),),
        f"podgroup {_describe(template, len(pods))}",
    )


def _flat_gang(rng: random.Random, cluster: ClusterSpec, namespace: str) -> GangSpec:
    templates, pods, groups, units, parts = [], [], [], [], []
    for i in range(rng.randint(2, 3)):
        name = f"pg{i + 1}"
        template, members, leaf = _leaf_group(
            rng, cluster, namespace, name, _key(rng, PG_KEYS, (1, 1, 2, 4, 1))
        )
        templates.append(template)
        pods += members
        groups.append(_podgroup(name, namespace, "wl", template))
        units.append(leaf_unit(leaf))
        parts.append(_describe(template, len(members)))
    return GangSpec(
        "workload",
        None,
        tuple(pods),
        (_workload("wl", namespace, {"podGroupTemplates": templates}), *groups),
        tuple(units),
        "workload " + " + ".join(parts),
    )


# -- CompositePodGroups ---------------------------------------------------------------------------


def _composite_policy(rng: random.Random, children: int) -> dict[str, Any]:
    if rng.random() < 0.2:
        return {"basic": {}}
    low = children if rng.random() < 0.6 else rng.randint(1, children)
    return {"gang": {"minGroupCount": low}}


def _composite(name: str, namespace: str, template: dict[str, Any], parent: str | None) -> dict[str, Any]:
    spec = {
        "workloadRef": {"workloadName": "wl", "templateName": template["name"]},
        "schedulingPolicy": template["schedulingPolicy"],
        **{k: v for k, v in template.items() if k == "schedulingConstraints"},
        **({"parentCompositePodGroupName": parent} if parent else {}),
    }
    return {
        "apiVersion": ALPHA,
        "kind": "CompositePodGroup",
        "metadata": {"name": name, "namespace": namespace},
        "spec": spec,
    }


class _Tree:
    """A CompositePodGroup tree being built: objects children first, pods, leaves in order."""

    def __init__(self, rng: random.Random, cluster: ClusterSpec, namespace: str) -> None:
        self.rng, self.cluster, self.namespace = rng, cluster, namespace
        self.objects: list[dict[str, Any]] = []
        self.pods: list[dict[str, Any]] = []
        self.leaves: list[Leaf] = []
        self.names: list[str] = []
        self.words: list[str] = []
        self.scopes: list[Scope | None] = []

    def composite(self, name: str, key: str | None, parent: str | None, depth: int) -> dict[str, Any]:
        """Builds the CompositePodGroup ``name`` and its subtree; returns its template."""
        rng = self.rng
        first_leaf, here = len(self.leaves), len(self.scopes)
        self.scopes.append(None)  # filled in once its leaves are known: parents come first
        groups: list[dict[str, Any]] = []
        composites: list[dict[str, Any]] = []
        count = rng.randint(2, 3)
        # kube-scheduler takes siblings by creation time, then name: names out of creation
        # order check that toposched reads the same order.
        suffixes = [str(i + 1) for i in range(count)]
        if rng.random() < 0.3:
            rng.shuffle(suffixes)
        self.words.append(f"{name}@{key.rsplit('/', 1)[-1] if key else '-'}[")
        for suffix in suffixes:
            child = f"{name}-{suffix}"
            if depth < 2 and rng.random() < 0.25:
                composites.append(self.composite(child, _key(rng, (BLOCK, RACK), (1, 2)), name, depth + 1))
                continue
            key_ = _key(rng, (None, BLOCK, RACK, HOST), (2, 1, 4, 1))
            template, pods, leaf = _leaf_group(rng, self.cluster, self.namespace, child, key_)
            self.pods += pods
            self.leaves.append(leaf)
            if key_:
                self.scopes.append(Scope(child, key_, (child,)))
            self.objects.append(_podgroup(child, self.namespace, "wl", template, parent=name))
            self.names.append(child)
            self.words.append(_describe(template, len(pods)))
            groups.append(template)
        policy = _composite_policy(rng, count)
        template: dict[str, Any] = {"name": name, "schedulingPolicy": policy, **_constraints(key)}
        if groups:
            template["podGroupTemplates"] = groups
        if composites:
            template["compositePodGroupTemplates"] = composites
        self.objects.append(_composite(name, self.namespace, template, parent))
        self.names.append(name)
        if key:
            self.scopes[here] = Scope(name, key, tuple(leaf.name for leaf in self.leaves[first_leaf:]))
        rule = f"{policy['gang']['minGroupCount']}/{count}" if "gang" in policy else "basic"
        self.words.append(f"] {rule}")
        return template


def _composite_gang(rng: random.Random, cluster: ClusterSpec, namespace: str) -> GangSpec:
    tree = _Tree(rng, cluster, namespace)
    root = tree.composite("cpg", _key(rng, (None, ZONE, BLOCK, RACK), (1, 2, 3, 1)), None, 0)
    workload = _workload("wl", namespace, {"compositePodGroupTemplates": [root]})
    return GangSpec(
        "composite",
        None,
        tuple(tree.pods),
        (workload, *tree.objects),
        (Unit("cpg", tuple(tree.leaves), tuple(tree.names), tuple(s for s in tree.scopes if s)),),
        "composite " + " ".join(tree.words).replace("[ ", "[").replace(" ]", "]"),
    )


# -- Jobs -----------------------------------------------------------------------------------------


def _job(rng: random.Random, cluster: ClusterSpec, namespace: str) -> GangSpec:
    name = "train"
    parallelism = _size(rng)
    scheduling: dict[str, Any] = {}
    choice = rng.random()
    if choice < 0.45:
        scheduling["schedulingPolicy"] = {"gang": {}}  # minCount defaults to the parallelism
    elif choice < 0.75:
        scheduling["schedulingPolicy"] = {"gang": {"minCount": rng.randint(1, parallelism)}}
    elif choice < 0.9:
        scheduling["schedulingPolicy"] = {"basic": {}}
    key = _key(rng, PG_KEYS, (2, 1, 2, 4, 1))
    if key:
        scheduling["schedulingConstraints"] = {"topology": [{"key": key}]}
    spec = pod_shape(rng, cluster)
    job = {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {
            "completionMode": "Indexed",
            "parallelism": parallelism,
            "completions": parallelism,
            "scheduling": scheduling,
            "template": {"spec": {**spec, "restartPolicy": "Never"}},
        },
    }
    policy = scheduling.get("schedulingPolicy") or {"basic": {}}
    if "gang" in policy and "minCount" not in policy["gang"]:
        policy = {"gang": {"minCount": max(1, parallelism)}}
    template = _template(f"{name}-pgt-0", policy, key)
    workload_name, group = f"{name}-wl", f"{name}-pg"
    pods, kube_names, names = [], [], []
    for index in range(parallelism):
        suffix = "".join(rng.choice("bcdfghjklmnpqrstvwxz2456789") for _ in range(5))
        pod_name = f"{name}-{index}-{suffix}"
        labels = {COMPLETION_INDEX: str(index), "batch.kubernetes.io/job-name": name}
        pods.append(
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": pod_name,
                    "namespace": namespace,
                    "labels": labels,
                    "annotations": {COMPLETION_INDEX: str(index)},
                },
                "spec": {
                    **spec,
                    "restartPolicy": "Never",
                    "hostname": f"{name}-{index}",
                    "schedulingGroup": {"podGroupName": group},
                },
            }
        )
        kube_names.append(pod_name)
        names.append(f"{name}-{index}")
    workload = _workload(
        workload_name,
        namespace,
        {
            "controllerRef": {"apiGroup": "batch", "kind": "Job", "name": name},
            "podGroupTemplates": [template],
        },
    )
    leaf = Leaf(group, key, tuple(kube_names), tuple(names))
    return GangSpec(
        "job",
        job,
        tuple(pods),
        (workload, _podgroup(group, namespace, workload_name, template)),
        (leaf_unit(leaf),),
        f"job {_describe(template, parallelism)}",
    )
