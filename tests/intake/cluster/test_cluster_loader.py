"""Loading cluster dumps: kubectl Lists, multi-document streams, Topology objects, warnings."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from toposched.intake.cluster import load_cluster, load_cluster_report
from toposched.model import HOSTNAME, ClusterSpecError, Resources, Taint, TaintEffect

RACK = "cloud.provider.com/topology-rack"
BLOCK = "cloud.provider.com/topology-block"

# As `kubectl get nodes,pods,daemonsets -A -o yaml` prints it (trimmed).
KUBECTL_LIST = """
apiVersion: v1
kind: List
metadata:
  resourceVersion: ""
items:
- apiVersion: v1
  kind: Node
  metadata:
    name: n1
    labels: {cloud.provider.com/topology-block: b1, cloud.provider.com/topology-rack: r1, kubernetes.io/hostname: n1}
  spec:
    taints:
    - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
    - {key: maintenance, effect: PreferNoSchedule}
  status:
    capacity: {cpu: "96", memory: 512Gi, nvidia.com/gpu: "8", pods: "110"}
    allocatable: {cpu: 95500m, memory: 500Gi, nvidia.com/gpu: "8", pods: "110"}
    conditions:
    - {type: MemoryPressure, status: "False"}
    - {type: Ready, status: "True"}
- apiVersion: v1
  kind: Node
  metadata:
    name: n2
    labels: {cloud.provider.com/topology-block: b1, cloud.provider.com/topology-rack: r1, kubernetes.io/hostname: n2}
  spec: {unschedulable: true}
  status:
    allocatable: {cpu: "96", nvidia.com/gpu: "8"}
    conditions:
    - {type: Ready, status: "True"}
- apiVersion: v1
  kind: Node
  metadata:
    name: n3
    labels: {cloud.provider.com/topology-block: b1, cloud.provider.com/topology-rack: r2, kubernetes.io/hostname: n3}
  status:
    allocatable: {cpu: "96", nvidia.com/gpu: "8"}
    conditions:
    - {type: Ready, status: Unknown}
- apiVersion: v1
  kind: Pod
  metadata:
    name: train-0
    namespace: ml
    ownerReferences:
    - {apiVersion: batch/v1, kind: Job, name: train, uid: "1"}
  spec:
    nodeName: n1
    initContainers:
    - name: proxy
      restartPolicy: Always
      resources: {requests: {cpu: 500m, memory: 256Mi}}
    - name: fetch
      resources: {requests: {cpu: "8", memory: 1Gi}}
    containers:
    - name: main
      resources: {requests: {cpu: "4", memory: 64Gi, nvidia.com/gpu: "4"}}
    - name: logger
      resources: {requests: {cpu: 100m}}
    overhead: {cpu: 250m}
  status: {phase: Running}
- apiVersion: v1
  kind: Pod
  metadata: {name: pending-bound, namespace: ml}
  spec:
    nodeName: n3
    containers:
    - {name: c, resources: {requests: {nvidia.com/gpu: "2"}}}
  status: {phase: Pending}
- apiVersion: v1
  kind: Pod
  metadata: {name: unbound, namespace: ml}
  spec:
    containers:
    - {name: c, resources: {requests: {nvidia.com/gpu: "8"}}}
  status: {phase: Pending}
- apiVersion: v1
  kind: Pod
  metadata: {name: done, namespace: ml}
  spec:
    nodeName: n1
    containers:
    - {name: c, resources: {requests: {nvidia.com/gpu: "8"}}}
  status: {phase: Succeeded}
- apiVersion: v1
  kind: Pod
  metadata: {name: crashed, namespace: ml}
  spec:
    nodeName: n1
    containers:
    - {name: c, resources: {requests: {nvidia.com/gpu: "8"}}}
  status: {phase: Failed}
- apiVersion: v1
  kind: Pod
  metadata:
    name: node-exporter-x1
    namespace: monitoring
    ownerReferences:
    - {apiVersion: apps/v1, kind: DaemonSet, name: node-exporter, uid: "2"}
  spec:
    nodeName: n2
    containers:
    - {name: c, resources: {requests: {cpu: 100m, memory: 64Mi}}}
  status: {phase: Running}
- apiVersion: apps/v1
  kind: DaemonSet
  metadata: {name: node-exporter, namespace: monitoring}
  spec: {}
"""


def test_kubectl_list_nodes() -> None:
    cluster = load_cluster(KUBECTL_LIST)
    n1, n2, n3 = cluster.nodes
    assert n1.name == "n1"
    assert n1.labels[RACK] == "r1"
    assert n1.allocatable == Resources(
        {"cpu": 95_500, "memory": 500 * 2**30, "nvidia.com/gpu": 8, "pods": 110}
    )  # allocatable, not capacity
    assert n1.taints == (
        Taint("nvidia.com/gpu", "present", TaintEffect.NO_SCHEDULE),
        Taint("maintenance", "", TaintEffect.PREFER_NO_SCHEDULE),
    )
    assert (n1.ready, n1.unschedulable) == (True, False)
    assert (n2.ready, n2.unschedulable) == (True, True)  # cordoned
    assert (n3.ready, n3.unschedulable) == (False, False)  # Ready: Unknown


def test_kubectl_list_pods_that_use_capacity() -> None:
    cluster = load_cluster(KUBECTL_LIST)
    pods = {pod.name: pod for pod in cluster.pods}
    # Unbound and finished pods use nothing; a bound Pending pod and a DaemonSet pod do.
    assert sorted(pods) == ["node-exporter-x1", "pending-bound", "train-0"]
    train = pods["train-0"]
    assert (train.namespace, train.node, train.owner) == ("ml", "n1", "Job/train")
    # cpu: max(init 8 + the sidecar started before it 0.5, containers 4.1 + sidecar 0.5) + overhead 0.25
    assert train.requests == Resources(
        {"cpu": 8_750, "memory": 64 * 2**30 + 256 * 2**20, "nvidia.com/gpu": 4}
    )
    assert pods["node-exporter-x1"].owner == "DaemonSet/node-exporter"
    assert pods["pending-bound"].requests == Resources({"nvidia.com/gpu": 2})


def test_unknown_kinds_are_skipped_with_a_warning() -> None:
    _, warnings = load_cluster_report(KUBECTL_LIST)
    assert "ignored 1 DaemonSet (apps/v1) object(s)" in warnings


TOPOLOGIES = """
apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata: {name: default}
spec:
  levels:
  - nodeLabel: cloud.provider.com/topology-block
  - nodeLabel: cloud.provider.com/topology-rack
  - nodeLabel: kubernetes.io/hostname
---
apiVersion: kai.scheduler/v1alpha1
kind: Topology
metadata: {name: network}
spec:
  levels:
  - {nodeLabel: cloud.provider.com/topology-rack, alias: rack}
  - {nodeLabel: kubernetes.io/hostname, alias: node}
---
apiVersion: kueue.x-k8s.io/v1alpha1
kind: Topology
metadata: {name: legacy}
spec:
  levels:
  - nodeLabel: cloud.provider.com/topology-block
---
"""


def test_multi_document_stream_mixes_lists_and_topologies() -> None:
    cluster, warnings = load_cluster_report(KUBECTL_LIST + "---\n" + TOPOLOGIES)
    assert [n.name for n in cluster.nodes] == ["n1", "n2", "n3"]
    assert [t.name for t in cluster.topologies] == ["default", "network", "legacy"]
    default, network, legacy = cluster.topologies
    assert default.levels == (BLOCK, RACK, HOSTNAME)
    assert network.levels == (RACK, HOSTNAME)
    assert network.resolve("rack") == RACK
    assert network.resolve("node") == HOSTNAME
    assert legacy.levels == (BLOCK,)
    assert cluster.topology("default") is default
    assert not any("outside" in w for w in warnings)


def test_typed_lists_imply_the_kind_of_their_items() -> None:
    node_list = {
        "apiVersion": "v1",
        "kind": "NodeList",
        "items": [{"metadata": {"name": "a"}}, {"metadata": {"name": "b"}}],
    }
    assert [n.name for n in load_cluster(yaml.safe_dump(node_list)).nodes] == ["a", "b"]


def test_json_as_kubectl_prints_it() -> None:
    as_json = json.dumps(yaml.safe_load(KUBECTL_LIST), indent=4)
    assert load_cluster(as_json) == load_cluster(KUBECTL_LIST)


def test_hand_written_node_without_status_is_ready_and_empty() -> None:
    cluster, warnings = load_cluster_report("kind: Node\nmetadata: {name: bare}\n")
    (node,) = cluster.nodes
    assert node.ready and not node.unschedulable
    assert len(node.allocatable) == 0
    assert warnings == ["nodes[bare]: no status.allocatable, the node can take no pods"]


def test_capacity_is_used_when_allocatable_is_missing() -> None:
    text = "kind: Node\nmetadata: {name: n}\nstatus: {capacity: {cpu: '2', pods: '10'}}\n"
    cluster, warnings = load_cluster_report(text)
    assert cluster.nodes[0].allocatable == Resources({"cpu": 2000, "pods": 10})
    assert warnings == ["nodes[n]: no status.allocatable, using status.capacity"]


def test_conditions_without_ready_mean_not_ready() -> None:
    text = "kind: Node\nmetadata: {name: n}\nstatus:\n  conditions: [{type: DiskPressure, status: 'False'}]\n"
    cluster, warnings = load_cluster_report(text)
    assert cluster.nodes[0].ready is False
    assert any("no Ready condition" in w for w in warnings)


def test_pod_on_a_node_outside_the_dump_is_kept_and_reported() -> None:
    text = "kind: Pod\nmetadata: {name: p}\nspec: {nodeName: ghost, containers: []}\n"
    cluster, warnings = load_cluster_report(text)
    assert cluster.pods[0].namespace == "default"
    assert warnings == ["pods[default/p]: bound to node 'ghost', which is not in the dump"]


def test_label_problems_are_reported_as_warnings() -> None:
    text = (
        TOPOLOGIES.split("---")[0] + "---\nkind: Node\nmetadata: {name: half, labels: {" + RACK + ": r1}}\n"
    )
    _, warnings = load_cluster_report(text)
    assert any("half" in w and "outside" in w for w in warnings)


def test_kueue_topology_alias_is_an_unknown_field() -> None:
    """Kueue's Topology has no alias: the API server refuses the field (strict decoding), and so
    does toposched (it used to ignore it with a warning)."""
    text = (
        "apiVersion: kueue.x-k8s.io/v1beta2\nkind: Topology\nmetadata: {name: t}\n"
        "spec:\n  levels: [{nodeLabel: kubernetes.io/hostname, alias: node}]\n"
    )
    with pytest.raises(ClusterSpecError) as info:
        load_cluster_report(text)
    assert [p.path for p in info.value.problems] == ["topologies[t].spec.levels[0].alias"]
    assert 'unknown field "spec.levels[0].alias"' in info.value.problems[0].message


def test_empty_text_is_an_empty_cluster() -> None:
    cluster, warnings = load_cluster_report("", source="empty.yaml")
    assert cluster.nodes == () and cluster.topologies == ()
    assert warnings == ["empty.yaml: no objects found"]


SAMPLE = Path(__file__).resolve().parents[3] / "src" / "toposched" / "samples" / "cluster.yaml"


@pytest.mark.skipif(not SAMPLE.exists(), reason="sample cluster not present")
def test_the_bundled_sample_cluster_loads() -> None:
    cluster, _ = load_cluster_report(SAMPLE.read_text(), source=SAMPLE.name)
    assert cluster.nodes and cluster.topologies
    assert all(HOSTNAME in node.labels for node in cluster.nodes)
