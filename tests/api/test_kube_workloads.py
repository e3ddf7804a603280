"""The service accepts upstream Kubernetes objects like the other kinds: a Workload with its
PodGroups and Pods, placed by the registry's kube front end."""

from __future__ import annotations

import json

from tests.api.conftest import ALICE, Api, bearer
from tests.api.specs import RACK


def kube_yaml(workers: int = 3) -> str:
    pods = "".join(
        f"""---
apiVersion: v1
kind: Pod
metadata: {{name: worker-{i}, namespace: ml}}
spec:
  schedulingGroup: {{podGroupName: infer-workers}}
  containers: [{{name: c, resources: {{requests: {{nvidia.com/gpu: '8'}}}}}}]
"""
        for i in range(workers)
    )
    return f"""apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {{name: infer, namespace: ml}}
spec:
  podGroupTemplates:
  - {{name: workers, schedulingPolicy: {{gang: {{minCount: {workers}}}}}, schedulingConstraints: {{topology: [{{key: {RACK}}}]}}}}
---
apiVersion: scheduling.k8s.io/v1beta1
kind: PodGroup
metadata: {{name: infer-workers, namespace: ml}}
spec:
  workloadRef: {{workloadName: infer, templateName: workers}}
  schedulingPolicy: {{gang: {{minCount: {workers}}}}}
  schedulingConstraints: {{topology: [{{key: {RACK}}}]}}
{pods}"""


def test_workload_with_podgroup_and_pods_is_placed_in_one_rack(api: Api) -> None:
    response = api.client.post("/v1/workloads", json={"spec": kube_yaml()}, headers=bearer(ALICE))
    assert response.status_code == 201, response.text
    record = response.json()
    assert record["name"] == "infer"
    api.scheduler.cycle()
    got = api.client.get(f"/v1/workloads/{record['id']}", headers=bearer(ALICE)).json()
    assert got["state"] == "admitted"
    nodes = [p["node"] for p in got["placement"]["pods"]]
    assert len(nodes) == 3
    assert len({n.rsplit("-", 1)[0] for n in nodes}) == 1  # one rack
    assert json.loads(got["spec"])["frontend"] == "kube"


def test_invalid_podgroup_is_refused_with_its_field(api: Api) -> None:
    spec = kube_yaml().replace(
        "minCount: 3}}, schedulingConstraints: {topology: [{key",
        "minCount: 0}}, schedulingConstraints: {topology: [{key",
        1,
    )
    response = api.client.post("/v1/workloads", json={"spec": spec}, headers=bearer(ALICE))
    assert response.status_code == 422, response.text
    assert "workloads[infer].spec.podGroupTemplates[0].schedulingPolicy.gang.minCount" in response.text
