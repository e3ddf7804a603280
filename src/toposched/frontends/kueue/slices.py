"""Slice annotations → slice layers: the single-layer pair (podset-slice-required-topology +
podset-slice-size) or the multi-layer JSON list (podset-slice-required-topology-constraints).

A slice level sits at or below the PodSet level; a slice size is a whole number >= 1 that divides
the PodSet's pod count (DESIGN.md: reject what does not divide); multi-layer lists run coarsest
first, at most 3 layers, each strictly finer than the one above with a size dividing its size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toposched.frontends.kueue import keys
from toposched.frontends.kueue.fields import Problems, type_name, whole
from toposched.frontends.kueue.levels import below_main, check_level
from toposched.frontends.kueue.podsets import PodSetSource
from toposched.intake.parse import parse_json
from toposched.model import Problem, SliceLayer, SpecError, Topology

_LAYER_EXAMPLE = '[{"topology": "cloud.provider.com/topology-block", "size": 32}, ...]'


def _divisors(n: int) -> str:
    return ", ".join(str(d) for d in range(1, n + 1) if n % d == 0)


def _check_size(size: int, what: str, path: str, source: PodSetSource, problems: Problems) -> bool:
    """Size ≤ pod count and divides it (DESIGN.md: reject what does not divide)."""
    if not source.count_ok or source.count == 0:
        return True
    n = source.count
    if size > n:
        problems.append(
            Problem(
                path, f"{what} is larger than the PodSet's {n} pods", f"use a divisor of {n}: {_divisors(n)}"
            )
        )
        return False
    if n % size:
        problems.append(
            Problem(
                path,
                f"{what} does not evenly divide the PodSet's {n} pods",
                f"use a divisor of {n}: {_divisors(n)}",
            )
        )
        return False
    return True


def single_layer(
    anns: Mapping[str, str],
    source: PodSetSource,
    topology: Topology | None,
    main: tuple[str | None, str],
    problems: Problems,
) -> tuple[SliceLayer, ...]:
    """The one layer of podset-slice-required-topology + podset-slice-size (the size defaults to
    the PodSet's own default, a JobSet Job's parallelism); () when absent or invalid."""
    path = source.annotation_path
    size: int | None = None
    if keys.SLICE_SIZE in anns:
        value = anns[keys.SLICE_SIZE]
        size = whole(value)
        if size is None or size < 1:
            problems.append(
                Problem(
                    path(keys.SLICE_SIZE),
                    f'{keys.SLICE_SIZE} "{value}" is not a whole number >= 1',
                    'write the pods per slice, e.g. "4"',
                )
            )
            size = None
        elif not _check_size(size, f'{keys.SLICE_SIZE} "{value}"', path(keys.SLICE_SIZE), source, problems):
            size = None
        if keys.SLICE_REQUIRED not in anns:
            problems.append(
                Problem(
                    path(keys.SLICE_SIZE),
                    f'{keys.SLICE_SIZE} "{value}" needs {keys.SLICE_REQUIRED}',
                    "add the slice level or drop the slice size",
                )
            )
            return ()
    if keys.SLICE_REQUIRED not in anns:
        return ()
    level = check_level(
        anns[keys.SLICE_REQUIRED], keys.SLICE_REQUIRED, path(keys.SLICE_REQUIRED), topology, problems
    )
    if keys.SLICE_SIZE not in anns:
        size = source.default_slice_size
        if size is None:
            problems.append(
                Problem(
                    path(keys.SLICE_SIZE),
                    f'{keys.SLICE_REQUIRED} "{anns[keys.SLICE_REQUIRED]}" is set but {keys.SLICE_SIZE} is missing',
                    "add the number of pods per slice; it must divide the PodSet's pod count",
                )
            )
    if level is None:
        return ()
    below_main(level, keys.SLICE_REQUIRED, path(keys.SLICE_REQUIRED), main, topology, problems)
    return (SliceLayer(level, size),) if size is not None else ()


def multi_layer(
    anns: Mapping[str, str],
    source: PodSetSource,
    topology: Topology | None,
    main: tuple[str | None, str],
    problems: Problems,
) -> tuple[SliceLayer, ...]:
    """The layers of podset-slice-required-topology-constraints, coarsest first; () when invalid.
    ``main`` is the PodSet's own (level, annotation key)."""
    key = keys.SLICE_CONSTRAINTS
    path = source.annotation_path(key)
    for other in (keys.SLICE_REQUIRED, keys.SLICE_SIZE):
        if other in anns:
            problems.append(
                Problem(
                    path,
                    f"{key} may not be combined with {other}",
                    "keep the multi-layer list and drop " + other,
                )
            )
    raw = anns[key]
    try:
        parsed: Any = parse_json(str(raw), source=path)
    except SpecError as exc:
        problems.append(
            Problem(
                path,
                f"{key} is not valid JSON ({exc.problems[0].message})",
                f"write a JSON list such as {_LAYER_EXAMPLE}; no trailing commas",
            )
        )
        return ()
    if not isinstance(parsed, list) or not 1 <= len(parsed) <= keys.MAX_SLICE_LAYERS:
        got = f"{len(parsed)} layers" if isinstance(parsed, list) else type_name(parsed)
        problems.append(
            Problem(
                path,
                f"{key} must be a list of 1 to {keys.MAX_SLICE_LAYERS} layers, got {got}",
                f"write e.g. {_LAYER_EXAMPLE}",
            )
        )
        return ()
    if topology is not None and len(parsed) > len(topology.levels):
        problems.append(
            Problem(
                path,
                f'{key} has {len(parsed)} layers but topology "{topology.name}" has {len(topology.levels)} levels',
                "use at most one layer per topology level",
            )
        )
    found = [_layer(item, f"{path}[{i}]", topology, problems) for i, item in enumerate(parsed)]
    good = [layer for layer in found if layer is not None]
    if len(good) != len(found):
        return ()
    first = good[0]
    below_main(first.level, key, f"{path}[0].topology", main, topology, problems)
    _check_size(first.size, f"{key}: first layer size {first.size}", f"{path}[0].size", source, problems)
    _check_layer_order(good, path, topology, problems)
    return tuple(good)


def _layer(item: object, path: str, topology: Topology | None, problems: Problems) -> SliceLayer | None:
    key = keys.SLICE_CONSTRAINTS
    if not isinstance(item, dict):
        problems.append(
            Problem(
                path,
                f"{key}: a layer is an object, got {type_name(item)}",
                'write {"topology": ..., "size": ...}',
            )
        )
        return None
    extra = sorted(set(item) - {"topology", "size"})
    if extra:
        problems.append(
            Problem(
                path, f"{key}: unknown field(s) {', '.join(extra)}", 'a layer has only "topology" and "size"'
            )
        )
    level_value, size_value = item.get("topology"), item.get("size")
    level: str | None = None
    if not isinstance(level_value, str) or not level_value:
        problems.append(
            Problem(f"{path}.topology", f"{key}: layer topology is missing", "name a topology level")
        )
    else:
        level = check_level(level_value, key, f"{path}.topology", topology, problems)
    size = whole(size_value) if isinstance(size_value, str) else size_value
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        problems.append(
            Problem(
                f"{path}.size",
                f"{key}: layer size {size_value!r} is not a whole number >= 1",
                "write e.g. 16",
            )
        )
        return None
    return SliceLayer(level, size) if level is not None and not extra else None


def _check_layer_order(
    chain: list[SliceLayer], path: str, topology: Topology | None, problems: Problems
) -> None:
    """Each layer strictly finer than the one above, its size dividing the size above."""
    key = keys.SLICE_CONSTRAINTS
    for i in range(1, len(chain)):
        upper, lower = chain[i - 1], chain[i]
        if lower.level == upper.level or (
            topology is not None and topology.index(lower.level) <= topology.index(upper.level)
        ):
            problems.append(
                Problem(
                    f"{path}[{i}].topology",
                    f'{key}: layer "{lower.level}" must be strictly finer than the layer above ("{upper.level}")',
                    "order the layers coarsest first, one level per layer",
                )
            )
        if upper.size % lower.size:
            problems.append(
                Problem(
                    f"{path}[{i}].size",
                    f"{key}: layer size {lower.size} does not evenly divide the layer above ({upper.size})",
                    f"use a divisor of {upper.size}: {_divisors(upper.size)}",
                )
            )
