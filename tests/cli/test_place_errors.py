"""``toposched place`` with invalid input: exit code 2 and one ``path: message (hint)`` line per
problem on stderr, never a traceback.

The small cluster the mutated cases start from::

    zone z1
    └── rack r1
        ├── n1  4 GPUs
        └── n2  4 GPUs
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pytest

from .conftest import Invoke, sample_path

SMALL_CLUSTER = """\
apiVersion: v1
kind: Node
metadata:
  name: n1
  labels: {topology.kubernetes.io/zone: z1, cloud.provider.com/topology-rack: r1, kubernetes.io/hostname: n1}
status:
  allocatable: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "4", pods: "110"}
---
apiVersion: v1
kind: Node
metadata:
  name: n2
  labels: {topology.kubernetes.io/zone: z1, cloud.provider.com/topology-rack: r1, kubernetes.io/hostname: n2}
status:
  allocatable: {cpu: "64", memory: 256Gi, nvidia.com/gpu: "4", pods: "110"}
---
apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata:
  name: small
spec:
  levels:
  - nodeLabel: topology.kubernetes.io/zone
  - nodeLabel: cloud.provider.com/topology-rack
  - nodeLabel: kubernetes.io/hostname
"""

SMALL_JOB = """\
apiVersion: batch/v1
kind: Job
metadata:
  name: small
spec:
  parallelism: 4
  completions: 4
  template:
    metadata:
      annotations:
        kueue.x-k8s.io/podset-required-topology: cloud.provider.com/topology-rack
    spec:
      restartPolicy: Never
      containers:
      - name: worker
        image: busybox
        resources:
          requests: {cpu: "1", nvidia.com/gpu: "1"}
"""

REQUIRED = '["kueue.x-k8s.io/podset-required-topology"]'


@dataclass(frozen=True)
class Case:
    """Files to write (name → text), the arguments after ``place`` ({name} = that file's path),
    and what stderr must contain ({name} likewise)."""

    args: tuple[str, ...]
    want: tuple[str, ...]
    files: dict[str, str]


def case(
    *args: str, want: str | tuple[str, ...], job: str = SMALL_JOB, cluster: str = SMALL_CLUSTER, **extra: str
) -> Case:
    return Case(
        args, (want,) if isinstance(want, str) else want, {"job.yaml": job, "cluster.yaml": cluster, **extra}
    )


BASE = ("{job.yaml}", "--cluster", "{cluster.yaml}")
DUPLICATE_NODE = SMALL_CLUSTER + "---\n" + SMALL_CLUSTER.split("---\n")[0]
BAD_TOPOLOGY = """\
apiVersion: kueue.x-k8s.io/v1beta1
kind: Topology
metadata: {name: twice}
spec:
  levels:
  - nodeLabel: cloud.provider.com/topology-rack
  - nodeLabel: cloud.provider.com/topology-rack
"""

CASES = [
    pytest.param(
        case(*BASE, job="apiVersion: batch/v1\nkind: Job\nspec: [unclosed\n", want="{job.yaml}:"),
        id="job is not valid YAML",
    ),
    pytest.param(
        case(*BASE, cluster="apiVersion: v1\nkind: List\nitems: [\n", want="{cluster.yaml}:"),
        id="cluster is not valid YAML",
    ),
    pytest.param(
        case(*BASE, "--topology", "nope", want="--topology: topology 'nope' not found"),
        id="unknown topology name",
    ),
    pytest.param(
        case(*BASE, "--policy", "fastest", want="--policy: unknown policy 'fastest'"), id="unknown policy"
    ),
    pytest.param(case(*BASE, "-o", "xml", want="--output: unknown format 'xml'"), id="unknown output format"),
    pytest.param(
        case("{job.yaml}", want="--cluster: is missing, and there is no live cluster to read instead"),
        id="no --cluster option and no kubeconfig",
    ),
    pytest.param(
        case("missing.yaml", "--cluster", "{cluster.yaml}", want="missing.yaml: file not found"),
        id="job file missing",
    ),
    pytest.param(
        case("{job.yaml}", "--cluster", "nowhere.yaml", want="nowhere.yaml: file not found"),
        id="cluster file missing",
    ),
    pytest.param(
        case("{folder}", "--cluster", "{cluster.yaml}", want="{folder}: is a directory"),
        id="job is a directory",
    ),
    pytest.param(
        case(
            "missing.yaml",
            "--cluster",
            "nowhere.yaml",
            "-p",
            "x",
            want=("missing.yaml", "nowhere.yaml", "--policy"),
        ),
        id="every problem with the command line at once",
    ),
    pytest.param(
        case(
            *BASE,
            "--topology",
            "topologies/racks.yaml",
            want="--topology: topologies/racks.yaml: file not found",
        ),
        id="topology file missing",
    ),
    pytest.param(
        case(
            *BASE,
            cluster=SMALL_CLUSTER
            + "---\n"
            + BAD_TOPOLOGY.replace("twice", "other").rsplit("  - nodeLabel", 1)[0],
            want="--topology: is needed: the cluster defines small, other",
        ),
        id="two topologies and no --topology",
    ),
    pytest.param(case(*BASE, cluster=DUPLICATE_NODE, want="nodes[n1]"), id="duplicate node names"),
    pytest.param(
        case(
            *BASE,
            job=SMALL_JOB.replace('cpu: "1"', "cpu: lots"),
            want="spec.template.spec.containers[0].resources.requests.cpu",
        ),
        id="bad quantity in the job",
    ),
    pytest.param(
        case(
            *BASE,
            cluster=SMALL_CLUSTER.replace('cpu: "64"', "cpu: 64 cores", 1),
            want=("status.allocatable.cpu", "64 cores"),
        ),
        id="bad quantity on a node",
    ),
    pytest.param(
        case(
            *BASE,
            job=SMALL_JOB.replace("cloud.provider.com/topology-rack", "cloud.provider.com/topology-block"),
            want=(f"spec.template.metadata.annotations{REQUIRED}", "cloud.provider.com/topology-block"),
        ),
        id="annotation names a level the topology lacks",
    ),
    pytest.param(
        case(
            *BASE,
            job=SMALL_JOB.replace(
                "podset-required-topology: cloud.provider.com/topology-rack",
                'podset-unconstrained-topology: "maybe"',
            ),
            want=(
                'spec.template.metadata.annotations["kueue.x-k8s.io/podset-unconstrained-topology"]',
                "maybe",
            ),
        ),
        id="annotation value is not a boolean",
    ),
    pytest.param(
        case(
            *BASE,
            job=SMALL_JOB.replace(
                "topology-rack\n",
                "topology-rack\n"
                "        kueue.x-k8s.io/podset-slice-required-topology: kubernetes.io/hostname\n"
                '        kueue.x-k8s.io/podset-slice-size: "3"\n',
            ),
            want='spec.template.metadata.annotations["kueue.x-k8s.io/podset-slice-size"]',
        ),
        id="slice size does not divide the pod count",
    ),
    pytest.param(
        case(
            *BASE,
            job=SMALL_JOB.replace("podset-required-topology", "podset-requried-topology"),
            want="podset-requried-topology",
        ),
        id="misspelt annotation key",
    ),
    pytest.param(
        case(*BASE, job=SMALL_JOB.replace("parallelism: 4", "parallelism: four"), want="spec.parallelism"),
        id="parallelism is not a number",
    ),
    pytest.param(
        case(
            *BASE,
            job=SMALL_JOB.replace("parallelism: 4", "parallelism: 100000000000000000000000"),
            want="spec.parallelism: asks for 100000000000000000000000 pods; the limit is 100000 pods per gang",
        ),
        id="10^23 pods",
    ),
    pytest.param(
        case(
            *BASE,
            "--max-pods",
            "3",
            want=("spec.parallelism: asks for 4 pods", "the limit is 3", "--max-pods"),
        ),
        id="more pods than --max-pods",
    ),
    pytest.param(
        case(
            *BASE,
            "--topology",
            "{topology.yaml}",
            want="spec.levels: Invalid value: must be unique",
            **{"topology.yaml": BAD_TOPOLOGY},
        ),
        id="topology file lists a level twice",
    ),
]


@pytest.mark.parametrize("tc", CASES)
def test_invalid_input_exits_2_with_the_field_path(tc: Case, tmp_path: Path, invoke: Invoke) -> None:
    paths = {"folder": str(tmp_path)}
    for name, text in tc.files.items():
        (tmp_path / name).write_text(text)
        paths[name] = str(tmp_path / name)

    def fill(text: str) -> str:
        for name, path in paths.items():
            text = text.replace("{" + name + "}", path)
        return text

    run = invoke("place", *[fill(a) for a in tc.args])

    assert run.exit_code == 2, run.stdout + run.stderr
    assert run.stdout == ""
    assert "Traceback" not in run.stderr
    for want in tc.want:
        assert fill(want) in run.stderr
    for line in run.stderr.splitlines():
        assert ": " in line, f"not a 'path: message' line: {line!r}"


def test_small_cluster_and_job_are_valid(tmp_path: Path, invoke: Invoke) -> None:
    """The unmutated inputs of the table above place fine, so each row fails for its own reason."""
    (tmp_path / "job.yaml").write_text(SMALL_JOB)
    (tmp_path / "cluster.yaml").write_text(SMALL_CLUSTER)
    run = invoke("place", tmp_path / "job.yaml", "--cluster", tmp_path / "cluster.yaml", "-o", "json")
    assert run.exit_code == 0, run.stderr
    assert run.stderr == ""


def test_node_missing_a_level_label_is_a_warning(tmp_path: Path, invoke: Invoke) -> None:
    cluster = SMALL_CLUSTER.replace(
        "cloud.provider.com/topology-rack: r1, kubernetes.io/hostname: n2", "kubernetes.io/hostname: n2"
    )
    (tmp_path / "job.yaml").write_text(SMALL_JOB)
    (tmp_path / "cluster.yaml").write_text(cluster)
    run = invoke("place", tmp_path / "job.yaml", "--cluster", tmp_path / "cluster.yaml", "-o", "json")
    # n2 drops out of the topology; n1 alone still holds the 4 one-GPU pods.
    assert run.exit_code == 0, run.stderr
    assert "warning: nodes[n2].metadata.labels" in run.stderr
    assert "cloud.provider.com/topology-rack" in run.stderr


def test_sample_job_against_a_cluster_without_topology(tmp_path: Path, invoke: Invoke) -> None:
    nodes_only = SMALL_CLUSTER.rsplit("---\n", 1)[0]
    (tmp_path / "cluster.yaml").write_text(nodes_only)
    run = invoke("place", sample_path("jobs/1-rack-required.yaml"), "--cluster", tmp_path / "cluster.yaml")
    assert run.exit_code == 2
    assert run.stderr.startswith("--topology: ")
