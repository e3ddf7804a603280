"""Bad simulation input is a typed error naming the field, the line or the parameter."""

from __future__ import annotations

from pathlib import Path

import pytest

from toposched.model import NotFoundError, SpecError
from toposched.sim.clusters import load_sim_cluster, total_gpus
from toposched.sim.config import Mode, TraceLimits, load_config, parse_config
from toposched.sim.gangs import shape_of, sim_job
from toposched.sim.trace import TraceJob, load_trace

from .conftest import HEADER


def _paths(exc: pytest.ExceptionInfo[SpecError]) -> list[str]:
    return [p.path for p in exc.value.problems]


def test_config_errors_name_the_field() -> None:
    with pytest.raises(SpecError) as exc:
        parse_config({"requests": [{"mode": "sometimes"}], "failures": {"seed": 1, "rate": 2}})
    assert set(_paths(exc)) == {"requests[0].mode", "failures.rate"}


def test_a_config_file_with_an_unknown_level_names_the_rule(tmp_path: Path) -> None:
    path = tmp_path / "sim.yaml"
    path.write_text("requests:\n- {wider_than: none, mode: required, level: pod}\n", encoding="utf-8")
    config = load_config(str(path))
    with pytest.raises(SpecError) as exc:
        shape_of(load_sim_cluster("nvl72:racks=1"), config)
    assert _paths(exc) == ["requests[0].level"]


def test_a_missing_config_file_is_named() -> None:
    with pytest.raises(SpecError) as exc:
        load_config("/nonexistent/sim.yaml")
    assert _paths(exc) == ["/nonexistent/sim.yaml"]


def test_trace_rows_in_error_are_named_by_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(HEADER + "a,0,10,1,1\nb,soon,10,1,1\nc,0,10,1,-2\n", encoding="utf-8")
    with pytest.raises(SpecError) as exc:
        load_trace(str(path), TraceLimits())
    assert _paths(exc) == [f"{path}:3", f"{path}:4"]
    assert "submit_time_s" in exc.value.problems[0].message
    assert "gpus_per_pod" in exc.value.problems[1].message


def test_trace_bounds_refuse_large_inputs(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(HEADER + "a,0,10,1,1\nb,1,10,1,1\nc,2,10,1,1\n", encoding="utf-8")
    with pytest.raises(SpecError, match="more than 2 rows"):
        load_trace(str(path), TraceLimits(max_rows=2))
    with pytest.raises(SpecError, match="the limit is 10"):
        load_trace(str(path), TraceLimits(max_bytes=10))
    missing = tmp_path / "m.csv"
    missing.write_text("job_id,submit_time_s\n", encoding="utf-8")
    with pytest.raises(SpecError, match="missing column"):
        load_trace(str(missing), TraceLimits())


def test_a_named_trace_needs_its_folder() -> None:
    with pytest.raises(SpecError) as exc:
        load_trace("philly", TraceLimits())
    assert _paths(exc) == ["traces.directory"]


def test_the_alibaba_format_simulates_gpu_sharing_pods_as_whole_gpus(tmp_path: Path) -> None:
    (tmp_path / "alibaba_openb_default.csv").write_text(
        HEADER.strip() + ",gpu_milli\nshare,5,10,1,0,500\ncpu,6,10,1,0,0\nfull,7,10,1,2,1000\n",
        encoding="utf-8",
    )
    trace = load_trace("alibaba", TraceLimits(directory=tmp_path))
    assert [(j.job_id, j.gpus) for j in trace.jobs] == [("share", 1), ("full", 2)]
    assert trace.skipped == 1


def test_rows_are_replayed_in_arrival_order(tmp_path: Path) -> None:
    path = tmp_path / "t.csv"
    path.write_text(HEADER + "late,50,1,1,1\nearly,5,1,1,1\ntie,50,1,1,1\n", encoding="utf-8")
    assert [j.job_id for j in load_trace(str(path), TraceLimits()).jobs] == ["early", "late", "tie"]


def test_cluster_generators_build_the_named_shapes() -> None:
    nvl = load_sim_cluster("nvl72:racks=4,racks_per_block=2")
    assert (len(nvl.nodes), total_gpus(nvl)) == (72, 288)
    assert len({n.labels["cloud.provider.com/topology-block"] for n in nvl.nodes}) == 2
    dgx = load_sim_cluster("dgx:racks=3")
    assert (len(dgx.nodes), total_gpus(dgx), dgx.topology().levels[-2]) == (
        12,
        96,
        "cloud.provider.com/topology-rack",
    )


@pytest.mark.parametrize(
    ("spec", "path"),
    [
        ("nvl72", "--cluster nvl72"),
        ("nvl72:racks=0", "--cluster nvl72:racks"),
        ("dgx:racks=2,floors=3", "--cluster dgx:floors"),
        ("nvl72:racks=99999", "--cluster nvl72"),
    ],
)
def test_bad_cluster_parameters_are_named(spec: str, path: str) -> None:
    with pytest.raises(SpecError) as exc:
        load_sim_cluster(spec)
    assert _paths(exc) == [path]


def test_a_cluster_dump_is_read_by_the_cluster_loader(tmp_path: Path) -> None:
    with pytest.raises(SpecError):
        load_sim_cluster(str(tmp_path / "missing.yaml"))
    empty = tmp_path / "nodes.yaml"
    empty.write_text("apiVersion: v1\nkind: List\nitems: []\n", encoding="utf-8")
    with pytest.raises(NotFoundError):  # no topology in the dump
        load_sim_cluster(str(empty))


@pytest.mark.parametrize(
    ("gpus", "pods", "per_pod", "mode", "level"),
    [
        (1, 1, 1, Mode.UNCONSTRAINED, None),
        (3, 1, 3, Mode.UNCONSTRAINED, None),
        (6, 2, 3, Mode.PREFERRED, "cloud.provider.com/topology-rack"),
        (12, 3, 4, Mode.PREFERRED, "cloud.provider.com/topology-rack"),
        (76, 19, 4, Mode.REQUIRED, "cloud.provider.com/topology-block"),
    ],
)
def test_gpu_counts_become_gangs_of_node_wide_pods(
    gpus: int, pods: int, per_pod: int, mode: Mode, level: str | None
) -> None:
    shape = shape_of(load_sim_cluster("nvl72:racks=2"), parse_config(None))
    job = sim_job(0, TraceJob("x", 0.0, 1.0, gpus), shape)
    assert (job.pods, job.gpus_per_pod, job.request.mode, job.request.level) == (pods, per_pod, mode, level)
    annotations = (job.document["spec"]["template"].get("metadata") or {}).get("annotations", {})
    assert not any("slice" in key for key in annotations)  # the default rules cut no slices


def test_a_configured_slice_level_cuts_equal_slices() -> None:
    config = parse_config(
        {"requests": [{"wider_than": "rack", "mode": "required", "level": "block", "slice_level": "rack"}]}
    )
    shape = shape_of(load_sim_cluster("nvl72:racks=2"), config)
    job = sim_job(0, TraceJob("x", 0.0, 1.0, 76), shape)
    # 19 pods: the largest slice size dividing 19 that fits a rack of 18 is 1.
    annotations = job.document["spec"]["template"]["metadata"]["annotations"]
    assert annotations["kueue.x-k8s.io/podset-slice-size"] == "1"


def test_the_example_config_is_valid() -> None:
    example = Path(__file__).resolve().parents[2] / "examples" / "sim" / "config.yaml"
    config = load_config(str(example))
    assert config.requests[1].mode is Mode.PREFERRED
    assert config.failures.node_failures_per_day == 0.05


def test_a_trace_read_stops_at_the_size_limit() -> None:
    """``--trace /dev/zero`` was read whole (forever) before its size was checked."""
    with pytest.raises(SpecError) as exc:
        load_trace("/dev/zero", TraceLimits(max_bytes=1 << 20))
    [problem] = exc.value.problems
    assert problem.path == "/dev/zero"
    assert problem.message.startswith("is more than 1048576 bytes")
    assert problem.hint == "raise traces.max_bytes"


def test_a_csv_field_over_the_field_limit_names_the_line(tmp_path: Path) -> None:
    """A 200 KiB field (here an unclosed quote swallowing the rest) ended in a csv.Error traceback."""
    path = tmp_path / "t.csv"
    path.write_text(HEADER + "a,0,10,1,1\n" + 'b,"' + "9" * 200_000 + "\n", encoding="utf-8")
    with pytest.raises(SpecError) as exc:
        load_trace(str(path), TraceLimits())
    [problem] = exc.value.problems
    assert problem.path == f"{path}:3"
    assert "field larger than field limit" in problem.message
    assert "quotes" in problem.hint


@pytest.mark.parametrize("value", ["nan", "inf", "1e300", "-1"])
def test_trace_times_must_be_finite_and_below_the_bound(tmp_path: Path, value: str) -> None:
    path = tmp_path / "t.csv"
    path.write_text(HEADER + f"a,{value},10,1,1\n", encoding="utf-8")
    with pytest.raises(SpecError) as exc:
        load_trace(str(path), TraceLimits())
    assert _paths(exc) == [f"{path}:2"]
    assert "less than 1e+12 seconds" in exc.value.problems[0].message


@pytest.mark.parametrize(
    ("section", "field"),
    [
        ("scheduler", "backoff_seconds"),
        ("scheduler", "node_grace_seconds"),
        ("failures", "node_failures_per_day"),
        ("failures", "recovery_seconds"),
    ],
)
@pytest.mark.parametrize("value", [".nan", ".inf"])
def test_config_numbers_must_be_finite(tmp_path: Path, section: str, field: str, value: str) -> None:
    """.inf was accepted and written to metrics.json as Infinity, which is not JSON."""
    path = tmp_path / "sim.yaml"
    path.write_text(f"{section}:\n  {field}: {value}\n", encoding="utf-8")
    with pytest.raises(SpecError) as exc:
        load_config(str(path))
    assert _paths(exc) == [f"{section}.{field}"]
    assert "finite number" in exc.value.problems[0].message
    assert ".nan or .inf" in exc.value.problems[0].hint
