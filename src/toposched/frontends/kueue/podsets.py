"""What every workload kind is reduced to before validation: Kueue PodSets with their pod templates."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from toposched.frontends.kueue.fields import Problems, at, key_at, mapping, sequence, type_name
from toposched.model import EMPTY, Problem, Resources, SpecError, Toleration
from toposched.model.podspec import effective_requests, parse_tolerations


@dataclass(frozen=True, slots=True)
class PodSetSource:
    """One Kueue PodSet as the owning controller would create its pods.

    ``index_values`` hold the value of the pod's index label, pod by pod (for a JobSet the job
    index is folded in: ``podIndex + jobIndex x pods per job``). The rank the engine sees is that
    value minus the PodSet's pod index offset.
    """

    name: str
    path: str  # field path of the pod template ("spec.template"; "" for a lone Pod)
    template: Mapping[str, Any]
    pod_names: tuple[str, ...] = ()
    index_values: tuple[int, ...] = ()
    count_ok: bool = True  # False when the replica count itself was invalid (count checks are skipped)
    implied_offset: int = 0  # pod-index-offset a Kueue webhook adds when no PodSet group is used
    unit: int = 0  # PodSet groups pair up within one unit: one LeaderWorkerSet replica
    default_slice_size: int | None = None  # JobSet: a slice is one Job (its parallelism)

    @property
    def count(self) -> int:
        return len(self.pod_names)

    @property
    def annotations_path(self) -> str:
        return at(self.path, "metadata.annotations")

    def annotation_path(self, key: str) -> str:
        return key_at(self.annotations_path, key)


@dataclass(frozen=True, slots=True)
class Workload:
    """A workload reduced to its PodSets. ``units`` > 1 only for a LeaderWorkerSet with replicas."""

    name: str
    namespace: str
    kind: str
    podsets: tuple[PodSetSource, ...]
    units: int = 1
    queue: str = ""  # the queue-name label ("" when the workload names no LocalQueue)


@dataclass(frozen=True, slots=True)
class Shape:
    """The scheduling facts of one pod template, and its ``spec`` as written (``PodSpec.template``)."""

    requests: Resources = EMPTY
    tolerations: tuple[Toleration, ...] = ()
    node_selector: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    spec: Mapping[str, Any] | None = None


def read_shape(template: Mapping[str, Any], path: str, problems: Problems) -> Shape:
    """Requests, tolerations and node selector of a pod template; every problem is collected."""
    spec_path = at(path, "spec")
    spec = mapping(template.get("spec"), spec_path, problems, required=True)
    if not spec:
        return Shape()
    ok = _check_containers(spec, spec_path, problems)
    requests = EMPTY
    if ok:
        try:
            requests = effective_requests(spec, path=spec_path)
        except SpecError as exc:
            problems.extend(exc.problems)
    tolerations = _read_tolerations(spec.get("tolerations"), at(spec_path, "tolerations"), problems)
    selector = _read_selector(spec.get("nodeSelector"), at(spec_path, "nodeSelector"), problems)
    return Shape(requests, tolerations, selector, spec)


def _check_containers(spec: Mapping[str, Any], path: str, problems: Problems) -> bool:
    """The container fields ``effective_requests`` walks must have the right types."""
    before = len(problems)
    raw = spec.get("containers")
    containers = sequence(raw, at(path, "containers"), problems, required=True)
    if isinstance(raw, list) and not raw:
        problems.append(Problem(at(path, "containers"), "is empty", "a pod needs at least one container"))
    init_containers = sequence(spec.get("initContainers"), at(path, "initContainers"), problems)
    for field_name, items in (("containers", containers), ("initContainers", init_containers)):
        for i, container in enumerate(items):
            where = f"{at(path, field_name)}[{i}]"
            if not isinstance(container, Mapping):
                problems.append(
                    Problem(
                        where,
                        f"a container is a mapping, got {type_name(container)}",
                        "check the indentation",
                    )
                )
                continue
            resources = mapping(container.get("resources"), at(where, "resources"), problems)
            mapping(resources.get("requests"), at(where, "resources.requests"), problems)
    mapping(spec.get("overhead"), at(path, "overhead"), problems)
    return len(problems) == before


def _read_tolerations(raw: object, path: str, problems: Problems) -> tuple[Toleration, ...]:
    items = sequence(raw, path, problems)
    for i, item in enumerate(items):
        seconds = item.get("tolerationSeconds") if isinstance(item, Mapping) else None
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int)):
            problems.append(
                Problem(
                    f"{path}[{i}].tolerationSeconds",
                    f"must be a whole number, got {seconds!r}",
                    "write e.g. 300",
                )
            )
            return ()
    try:
        return parse_tolerations(list(items), path=path)
    except SpecError as exc:
        problems.extend(exc.problems)
        return ()


def _read_selector(raw: object, path: str, problems: Problems) -> Mapping[str, str]:
    selector: dict[str, str] = {}
    for key, value in mapping(raw, path, problems).items():
        if not isinstance(value, str):
            problems.append(
                Problem(
                    key_at(path, str(key)),
                    f"node selector value must be a string, got {value!r}",
                    'quote it, e.g. "true"',
                )
            )
            continue
        selector[str(key)] = value
    return MappingProxyType(selector)
