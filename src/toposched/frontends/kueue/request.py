"""One PodSet's TAS annotations → its topology request, with the KEP's per-PodSet validation.

Rules (KEP-2724 "Validation", Kueue's webhook): required / preferred / unconstrained exclude each
other; levels are topology levels; unknown podset-* keys are typos; the group name is not a
number and excludes slices and pod-index-offset; the offset is a non-negative integer. Slice
rules live in ``slices``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from toposched.frontends.kueue import keys
from toposched.frontends.kueue.fields import Problems, at, mapping, type_name, whole
from toposched.frontends.kueue.levels import check_level
from toposched.frontends.kueue.podsets import PodSetSource
from toposched.frontends.kueue.slices import multi_layer, single_layer
from toposched.model import Problem, SliceLayer, Topology

_TRUE = frozenset({"1", "t", "T", "TRUE", "true", "True"})
_FALSE = frozenset({"0", "f", "F", "FALSE", "false", "False"})


@dataclass(frozen=True, slots=True)
class TopologyRequest:
    """What a PodSet asked for. Levels are node label keys (aliases already resolved)."""

    required: str | None = None
    preferred: str | None = None
    unconstrained: bool = False  # an explicit podset-unconstrained-topology: "true"
    annotated: bool = False  # any kueue.x-k8s.io/podset-* annotation is present
    asks_level: bool = False  # a required/preferred annotation is present (even if its value is bad)
    slices: tuple[SliceLayer, ...] = ()
    group: str | None = None
    offset: int | None = None  # an explicit pod-index-offset

    @property
    def level(self) -> str | None:
        return self.required if self.required is not None else self.preferred


def read_annotations(source: PodSetSource, problems: Problems) -> dict[str, str]:
    """The template's annotations as strings. YAML scalars are accepted unquoted (``size: 4``)."""
    metadata = mapping(source.template.get("metadata"), at(source.path, "metadata"), problems)
    raw = mapping(metadata.get("annotations"), source.annotations_path, problems)
    result: dict[str, str] = {}
    for key, value in raw.items():
        if isinstance(value, bool):
            result[str(key)] = "true" if value else "false"
        elif isinstance(value, str | int):
            result[str(key)] = str(value)
        else:
            problems.append(
                Problem(
                    source.annotation_path(str(key)),
                    f"annotation {key} must be a string, got {type_name(value)}",
                    "quote the value",
                )
            )
    return result


def parse_request(source: PodSetSource, topology: Topology | None, problems: Problems) -> TopologyRequest:
    """Validate one PodSet's annotations and return its request; problems are appended."""
    anns = read_annotations(source, problems)
    path = source.annotation_path
    for key in anns:
        if key.startswith(keys.PODSET_PREFIX) and key not in keys.PODSET_ANNOTATIONS:
            problems.append(
                Problem(
                    path(key), f"unknown annotation {key}", "known: " + ", ".join(keys.PODSET_ANNOTATIONS)
                )
            )
    modes = [k for k in (keys.REQUIRED, keys.PREFERRED, keys.UNCONSTRAINED) if k in anns]
    if len(modes) > 1:
        problems.append(
            Problem(
                source.annotations_path,
                " and ".join(f'{k}: "{anns[k]}"' for k in modes) + " are mutually exclusive",
                "keep only one of required, preferred or unconstrained",
            )
        )
    required = _level(anns, keys.REQUIRED, source, topology, problems)
    preferred = _level(anns, keys.PREFERRED, source, topology, problems)
    unconstrained = _boolean(anns, keys.UNCONSTRAINED, source, problems)
    group = _group(anns, source, problems)
    offset = _offset(anns, source, group is not None or keys.GROUP_NAME in anns, problems)
    main = required if required is not None else preferred
    main_key = keys.REQUIRED if required is not None else keys.PREFERRED
    if keys.SLICE_CONSTRAINTS in anns:
        slices = multi_layer(anns, source, topology, (main, main_key), problems)
    else:
        slices = single_layer(anns, source, topology, (main, main_key), problems)
    if keys.GROUP_NAME in anns:
        for key in (keys.SLICE_REQUIRED, keys.SLICE_SIZE, keys.SLICE_CONSTRAINTS):
            if key in anns:
                problems.append(
                    Problem(
                        path(keys.GROUP_NAME),
                        f'{keys.GROUP_NAME} "{anns[keys.GROUP_NAME]}" may not be combined with {key}',
                        "a PodSet group shares one domain; drop the slice annotations",
                    )
                )
    return TopologyRequest(
        required=required,
        preferred=preferred,
        unconstrained=unconstrained,
        annotated=any(k.startswith(keys.PODSET_PREFIX) for k in anns),
        asks_level=keys.REQUIRED in anns or keys.PREFERRED in anns,
        slices=slices,
        group=group,
        offset=offset,
    )


def _level(
    anns: Mapping[str, str], key: str, source: PodSetSource, topology: Topology | None, problems: Problems
) -> str | None:
    """The annotation's level as a label key; None (and a Problem) when absent or invalid."""
    if key not in anns:
        return None
    return check_level(anns[key], key, source.annotation_path(key), topology, problems)


def _boolean(anns: Mapping[str, str], key: str, source: PodSetSource, problems: Problems) -> bool:
    if key not in anns:
        return False
    value = anns[key]
    if value in _TRUE:
        return True
    if value not in _FALSE:
        problems.append(
            Problem(source.annotation_path(key), f'{key} "{value}" is not a boolean', 'write "true"')
        )
    return False


def _group(anns: Mapping[str, str], source: PodSetSource, problems: Problems) -> str | None:
    if keys.GROUP_NAME not in anns:
        return None
    name = anns[keys.GROUP_NAME]
    path = source.annotation_path(keys.GROUP_NAME)
    if not name:
        problems.append(Problem(path, f"{keys.GROUP_NAME} is empty", "name the group, e.g. lws-group"))
        return None
    if name.isascii() and name.isdigit():
        problems.append(
            Problem(path, f'{keys.GROUP_NAME} "{name}" must not be a number', "use a name such as lws-group")
        )
        return None
    return name


def _offset(anns: Mapping[str, str], source: PodSetSource, grouped: bool, problems: Problems) -> int | None:
    if keys.POD_INDEX_OFFSET not in anns:
        return None
    value = anns[keys.POD_INDEX_OFFSET]
    path = source.annotation_path(keys.POD_INDEX_OFFSET)
    number = whole(value)
    if number is None or number < 0:
        problems.append(
            Problem(
                path, f'{keys.POD_INDEX_OFFSET} "{value}" is not a non-negative integer', 'write e.g. "1"'
            )
        )
        return None
    if grouped:
        problems.append(
            Problem(
                path,
                f'{keys.POD_INDEX_OFFSET} "{value}" may not be set together with {keys.GROUP_NAME}',
                "the PodSet group already offsets the workers by the leader count; drop the offset",
            )
        )
        return None
    return number
