"""Whatever the input, the front end returns a Gang or raises WorkloadSpecError, never anything else."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toposched.frontends.kueue import compile_workload
from toposched.frontends.loading import load_workload
from toposched.model import Gang, WorkloadSpecError

from .helpers import BLOCK, RACK, SAMPLE

EXAMPLES = Path(__file__).resolve().parents[3] / "examples" / "kueue"
DOCS = [
    [d for d in yaml.safe_load_all(p.read_text(encoding="utf-8")) if d is not None]
    for p in sorted(EXAMPLES.glob("*.yaml"))
]

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=200),
    st.floats(allow_nan=False, allow_infinity=False, width=16),
    st.text(max_size=6),
    st.sampled_from([RACK, BLOCK, "4", "-1", "0", "[]", "{}", '[{"topology": "x", "size": "2"}]', "true"]),
)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=6,
)


def paths(node: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = []
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else []
    for key, child in items:
        found.append((*prefix, key))
        found.extend(paths(child, (*prefix, key)))
    return found


def outcome(call: Any) -> str:
    try:
        result = call()
    except WorkloadSpecError as exc:
        assert exc.problems and all(p.message for p in exc.problems)
        return "rejected"
    assert isinstance(result, Gang) and result.size > 0
    return "compiled"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_mutated_examples(data: st.DataObject) -> None:
    docs = copy.deepcopy(data.draw(st.sampled_from(DOCS)))
    path = data.draw(st.sampled_from(paths(docs)))
    target: Any = docs
    for key in path[:-1]:
        target = target[key]
    if data.draw(st.booleans()) and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = data.draw(values)
    outcome(lambda: compile_workload(docs, SAMPLE))


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=80))
def test_arbitrary_text(text: str) -> None:
    outcome(lambda: load_workload(text, SAMPLE))
