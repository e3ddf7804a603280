"""Malformed cluster dumps: every problem is reported with its field path, message and hint."""

from __future__ import annotations

import pytest

from toposched.intake.cluster import load_cluster
from toposched.model import ClusterSpecError

NODE = "apiVersion: v1\nkind: Node\nmetadata: {{name: n1}}\n{rest}\n"
KUEUE_TOPOLOGY = (
    "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {{name: t}}\nspec:\n{levels}\n"
)
KAI_TOPOLOGY = "apiVersion: kai.scheduler/v1alpha1\nkind: Topology\nmetadata: {{name: t}}\nspec:\n{levels}\n"
SEVENTEEN = "\n".join(f"  - nodeLabel: example.com/l{i}" for i in range(17))

CASES: list[tuple[str, str, str, str]] = [
    ("yaml-syntax", "kind: Node\nmetadata: {name: n1\nspec: {}\n", "dump.yaml:3:5", "invalid YAML at line 3"),
    ("document-is-a-list", "- kind: Node\n- kind: Pod\n", "document", "must be a mapping"),
    (
        "second-document-is-text",
        "kind: Node\nmetadata: {name: a}\n---\njust text\n",
        "documents[1]",
        "got a string",
    ),
    ("list-items-not-a-list", "kind: List\nitems: {a: 1}\n", "items", "items must be a list"),
    ("list-item-without-kind", "kind: List\nitems:\n- metadata: {name: a}\n", "items[0].kind", "has no kind"),
    (
        "node-without-name",
        "kind: List\nitems:\n- {kind: Node, metadata: {}}\n",
        "items[0].metadata.name",
        "without",
    ),
    (
        "duplicate-node",
        "kind: Node\nmetadata: {name: n1}\n---\nkind: Node\nmetadata: {name: n1}\n",
        "nodes[n1]",
        "appears 2 times",
    ),
    (
        "bad-cpu-quantity",
        NODE.format(rest="status:\n  allocatable: {cpu: lots}"),
        "nodes[n1].status.allocatable.cpu",
        "invalid quantity 'lots'",
    ),
    (
        "bad-taint-effect",
        NODE.format(rest="spec:\n  taints: [{key: gpu, effect: NoScheduleX}]"),
        "nodes[n1].spec.taints[0].effect",
        "unknown taint effect 'NoScheduleX'",
    ),
    (
        "taint-without-key",
        NODE.format(rest="spec:\n  taints: [{effect: NoSchedule}]"),
        "nodes[n1].spec.taints[0].key",
        "needs a key",
    ),
    (
        "label-value-is-a-list",
        "kind: Node\nmetadata:\n  name: n1\n  labels: {rack: [r1]}\n",
        "nodes[n1].metadata.labels[rack]",
        "is not a string",
    ),
    (
        "unschedulable-not-boolean",
        NODE.format(rest="spec: {unschedulable: 'yes'}"),
        "nodes[n1].spec.unschedulable",
        "expected true or false",
    ),
    (
        "pod-bad-memory-request",
        "kind: Pod\nmetadata: {name: p, namespace: ml}\nspec:\n  nodeName: n1\n"
        "  containers: [{name: c, resources: {requests: {memory: 12XB}}}]\n",
        "pods[ml/p].spec.containers[0].resources.requests.memory",
        "invalid quantity",
    ),
    (
        "topology-bad-label-key",
        KUEUE_TOPOLOGY.format(levels="  levels: [{nodeLabel: 'Rack Label'}]"),
        "topologies[t].spec.levels[0].nodeLabel",
        "spec.levels[0].nodeLabel in body should match",
    ),
    (
        "topology-duplicate-level",
        KUEUE_TOPOLOGY.format(levels="  levels: [{nodeLabel: rack}, {nodeLabel: rack}]"),
        "topologies[t].spec.levels",
        "Invalid value: must be unique",
    ),
    (
        "topology-seventeen-levels",
        KUEUE_TOPOLOGY.format(levels="  levels:\n" + SEVENTEEN),
        "topologies[t].spec.levels",
        "Too many: 17: must have at most 16 items",
    ),
    (
        "topology-empty-levels",
        KUEUE_TOPOLOGY.format(levels="  levels: []"),
        "topologies[t].spec.levels",
        "spec.levels in body should have at least 1 items",
    ),
    (
        "topology-without-spec",
        "apiVersion: kueue.x-k8s.io/v1beta1\nkind: Topology\nmetadata: {name: t}\n",
        "topologies[t].spec.levels",
        "has no levels",
    ),
    (
        "topology-level-without-node-label",
        KUEUE_TOPOLOGY.format(levels="  levels: [{}]"),
        "topologies[t].spec.levels[0].nodeLabel",
        "Required value",
    ),
    (
        "topology-level-unknown-field",
        KUEUE_TOPOLOGY.format(levels="  levels: [{label: rack}]"),
        "topologies[t].spec.levels[0].label",
        'strict decoding error: unknown field "spec.levels[0].label"',
    ),
    (
        "topology-hostname-not-last",
        KUEUE_TOPOLOGY.format(levels="  levels: [{nodeLabel: kubernetes.io/hostname}, {nodeLabel: rack}]"),
        "topologies[t].spec.levels",
        "the kubernetes.io/hostname label can only be used at the lowest level of topology",
    ),
    (
        "topology-unknown-api-version",
        "apiVersion: kueue.x-k8s.io/v2\nkind: Topology\nmetadata: {name: t}\nspec: {levels: [{nodeLabel: rack}]}\n",
        "topologies[t].apiVersion",
        "unknown apiVersion 'kueue.x-k8s.io/v2'",
    ),
    (
        "topology-without-name",
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {}\nspec: {levels: [{nodeLabel: rack}]}\n",
        "metadata.name",
        "Required value: name or generateName is required",
    ),
    (
        "kai-alias-twice",
        KAI_TOPOLOGY.format(
            levels="  levels: [{nodeLabel: a.io/rack, alias: rack}, {nodeLabel: a.io/host, alias: rack}]"
        ),
        "topologies[t].spec.levels[1].alias",
        "aliases must be unique",
    ),
    (
        "kai-alias-equals-node-label",
        KAI_TOPOLOGY.format(
            levels="  levels: [{nodeLabel: a.io/rack, alias: a.io/host}, {nodeLabel: a.io/host}]"
        ),
        "topologies[t].spec.levels[0].alias",
        "must not equal a nodeLabel",
    ),
    (
        "duplicate-topology",
        KUEUE_TOPOLOGY.format(levels="  levels: [{nodeLabel: rack}]")
        + "---\n"
        + KUEUE_TOPOLOGY.format(levels="  levels: [{nodeLabel: zone}]"),
        "topologies[t]",
        "defined 2 times",
    ),
]


@pytest.mark.parametrize(("text", "path", "message"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_malformed_dump_is_rejected(text: str, path: str, message: str) -> None:
    with pytest.raises(ClusterSpecError) as info:
        load_cluster(text, source="dump.yaml")
    problems = info.value.problems
    assert any(p.path == path and message in p.message for p in problems), problems
    assert all(p.message for p in problems)


def test_every_problem_of_the_dump_is_listed_at_once() -> None:
    text = (
        NODE.format(rest="status:\n  allocatable: {cpu: lots, memory: 1Qi}")
        + "---\n"
        + KUEUE_TOPOLOGY.format(levels="  levels: [{nodeLabel: 'Bad Key'}]")
        + "---\nkind: Pod\nmetadata: {name: p}\nspec: {nodeName: n1, containers: [{resources: {requests: {cpu: x}}}]}\n"
    )
    with pytest.raises(ClusterSpecError) as info:
        load_cluster(text)
    assert [p.path for p in info.value.problems] == [
        "nodes[n1].status.allocatable.cpu",
        "nodes[n1].status.allocatable.memory",
        "topologies[t].spec.levels[0].nodeLabel",
        "pods[default/p].spec.containers[0].resources.requests.cpu",
    ]


def test_problems_carry_hints() -> None:
    with pytest.raises(ClusterSpecError) as info:
        load_cluster(NODE.format(rest="spec:\n  taints: [{key: gpu, effect: Sometimes}]"))
    (problem,) = info.value.problems
    assert problem.hint == "use one of NoSchedule, PreferNoSchedule, NoExecute"
    assert str(problem).startswith("nodes[n1].spec.taints[0].effect: unknown taint effect 'Sometimes'")
