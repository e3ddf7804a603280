"""TopologyAssignment in the compressed v1beta2 shape: the validating decoder."""

from __future__ import annotations

from collections.abc import Mapping

from toposched.emit.kueue._checks import as_list, check_levels, fail, label_value, positive_int, unwrap
from toposched.emit.kueue.v1beta2 import MAX_DOMAINS_PER_SLICE, MAX_ROOT_LENGTH, MAX_SLICES
from toposched.model import DomainCount, Problem, TopologyAssignment


def from_v1beta2(obj: object, *, path: str = "topologyAssignment") -> TopologyAssignment:
    """Decode and validate a v1beta2 TopologyAssignment; slices are concatenated in order.

    Checks every rule of the API: 1..16 levels, at most 1000 slices, ``domainCount`` 1..100 000,
    one ``valuesPerLevel`` entry per level, exactly one of ``universal`` / ``individual`` in each
    entry and in ``podCounts``, ``roots`` and individual counts as long as ``domainCount``,
    non-empty prefix / suffix, roots of at most 63 characters, counts >= 1.

    Individual pod counts are read from the key ``individual``, which is what Kueue's API server
    emits and what ``to_v1beta2`` writes; the KEP's Go type tags that field ``podCounts``, so that
    key is accepted as well. Raises ``WorkloadSpecError`` listing every problem with its path.
    """
    obj = unwrap(obj)
    if not isinstance(obj, Mapping):
        raise fail(
            [Problem(path, "a topology assignment is a mapping", "write {levels: [...], slices: [...]}")]
        )
    problems: list[Problem] = []
    levels = check_levels(obj.get("levels"), f"{path}.levels", problems)
    raw_slices = obj.get("slices", [])
    slices = as_list(raw_slices) if raw_slices is not None else []
    if slices is None:
        problems.append(
            Problem(f"{path}.slices", "slices is not a list", "write slices: [{domainCount: n, ...}]")
        )
        slices = []
    if len(slices) > MAX_SLICES:
        problems.append(
            Problem(
                f"{path}.slices", f"{len(slices)} slices, at most {MAX_SLICES} are allowed", "merge slices"
            )
        )
    domains: list[DomainCount] = []
    for i, raw in enumerate(slices):
        domains.extend(_slice(raw, levels, f"{path}.slices[{i}]", problems))
    if problems or levels is None:
        raise fail(problems)
    return TopologyAssignment(levels, tuple(domains))


def _slice(
    raw: object, levels: tuple[str, ...] | None, path: str, problems: list[Problem]
) -> list[DomainCount]:
    if not isinstance(raw, Mapping):
        problems.append(
            Problem(path, "a slice is a mapping", "write {domainCount, valuesPerLevel, podCounts}")
        )
        return []
    before = len(problems)
    count = positive_int(raw.get("domainCount"))
    if count is None or count > MAX_DOMAINS_PER_SLICE:
        problems.append(
            Problem(
                f"{path}.domainCount",
                f"domainCount must be a whole number from 1 to {MAX_DOMAINS_PER_SLICE}, got {raw.get('domainCount')!r}",
                "give the number of domains this slice covers",
            )
        )
        count = None
    per_level = _values_per_level(
        raw.get("valuesPerLevel"), levels, count, f"{path}.valuesPerLevel", problems
    )
    pods = _pod_counts(raw.get("podCounts"), count, f"{path}.podCounts", problems)
    if len(problems) > before or count is None or per_level is None or pods is None:
        return []
    return [DomainCount(values, pods[i]) for i, values in enumerate(zip(*per_level, strict=True))]


def _values_per_level(
    raw: object, levels: tuple[str, ...] | None, count: int | None, path: str, problems: list[Problem]
) -> list[list[str]] | None:
    entries = as_list(raw)
    if entries is None:
        problems.append(Problem(path, "valuesPerLevel is missing or not a list", "give one entry per level"))
        return None
    if levels is not None and len(entries) != len(levels):
        problems.append(
            Problem(
                path, f"{len(entries)} entries for {len(levels)} levels", "give one entry per level, in order"
            )
        )
    out: list[list[str]] = []
    for j, entry in enumerate(entries):
        values = _level(entry, count, f"{path}[{j}]", problems)
        if values is not None:
            out.append(values)
    return out if len(out) == len(entries) and (levels is None or len(out) == len(levels)) else None


def _level(raw: object, count: int | None, path: str, problems: list[Problem]) -> list[str] | None:
    if not isinstance(raw, Mapping):
        problems.append(
            Problem(path, "a valuesPerLevel entry is a mapping", "write {universal: v} or {individual: ...}")
        )
        return None
    if ("universal" in raw) == ("individual" in raw):
        problems.append(
            Problem(path, "exactly one of universal and individual must be set", "keep one of them")
        )
        return None
    if "universal" in raw:
        value = label_value(raw["universal"])
        if value is None:
            problems.append(
                Problem(f"{path}.universal", f"{raw['universal']!r} is not a label value", "write a string")
            )
            return None
        return [value] * (count or 0)
    return _individual(raw["individual"], count, f"{path}.individual", problems)


def _individual(raw: object, count: int | None, path: str, problems: list[Problem]) -> list[str] | None:
    if not isinstance(raw, Mapping):
        problems.append(Problem(path, "individual is a mapping", "write {prefix?, suffix?, roots: [...]}"))
        return None
    before = len(problems)
    affixes: dict[str, str] = {}
    for key in ("prefix", "suffix"):
        if key not in raw or raw[key] is None:
            continue
        text = raw[key]
        if not isinstance(text, str) or not text or len(text) > MAX_ROOT_LENGTH:
            problems.append(
                Problem(
                    f"{path}.{key}",
                    f"{key} must be a non-empty string of at most {MAX_ROOT_LENGTH} characters, got {text!r}",
                    f"omit {key} when there is none",
                )
            )
            continue
        affixes[key] = text
    roots = as_list(raw.get("roots"))
    if roots is None:
        problems.append(
            Problem(f"{path}.roots", "roots is missing or not a list", "give one root per domain")
        )
        return None
    if count is not None and len(roots) != count:
        problems.append(
            Problem(
                f"{path}.roots", f"{len(roots)} roots for domainCount {count}", "give one root per domain"
            )
        )
    prefix, suffix = affixes.get("prefix", ""), affixes.get("suffix", "")
    values: list[str] = []
    for k, item in enumerate(roots):
        root = label_value(item)
        if root is None or len(root) > MAX_ROOT_LENGTH:
            problems.append(
                Problem(
                    f"{path}.roots[{k}]",
                    f"{item!r} is not a root: a string of at most {MAX_ROOT_LENGTH} characters",
                    "",
                )
            )
            continue
        values.append(prefix + root + suffix)
    return values if len(problems) == before else None


def _pod_counts(raw: object, count: int | None, path: str, problems: list[Problem]) -> list[int] | None:
    if not isinstance(raw, Mapping):
        problems.append(
            Problem(
                path, "podCounts is missing or not a mapping", "write {universal: n} or {individual: [...]}"
            )
        )
        return None
    # Both keys name the individual list: see from_v1beta2's docstring.
    individual_keys = [k for k in ("individual", "podCounts") if k in raw]
    if len(individual_keys) > 1:
        problems.append(
            Problem(path, "individual and podCounts are both set", "write the list once, as individual")
        )
        return None
    if ("universal" in raw) == bool(individual_keys):
        problems.append(
            Problem(path, "exactly one of universal and individual must be set", "keep one of them")
        )
        return None
    if "universal" in raw:
        value = positive_int(raw["universal"])
        if value is None:
            problems.append(
                Problem(
                    f"{path}.universal", f"a pod count is a whole number >= 1, got {raw['universal']!r}", ""
                )
            )
            return None
        return [value] * (count or 0)
    key = individual_keys[0]
    items = as_list(raw[key])
    if items is None:
        problems.append(
            Problem(f"{path}.{key}", "individual pod counts must be a list", "give one count per domain")
        )
        return None
    if count is not None and len(items) != count:
        problems.append(
            Problem(
                f"{path}.{key}",
                f"{len(items)} pod counts for domainCount {count}",
                "give one count per domain",
            )
        )
        return None
    out: list[int] = []
    for k, item in enumerate(items):
        value = positive_int(item)
        if value is None:
            problems.append(
                Problem(f"{path}.{key}[{k}]", f"a pod count is a whole number >= 1, got {item!r}", "")
            )
        else:
            out.append(value)
    return out if len(out) == len(items) else None
