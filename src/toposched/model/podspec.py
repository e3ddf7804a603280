"""Reading scheduling facts out of a Kubernetes pod spec (a plain mapping, as YAML gives it)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from toposched.model.errors import Problem, SpecError
from toposched.model.k8s_content import FieldErrorType, field_error, label_key_errors, label_value_errors
from toposched.model.node import TaintEffect, Toleration, TolerationOperator
from toposched.model.resources import EMPTY, Resources


def effective_requests(spec: Mapping[str, Any], *, path: str = "spec") -> Resources:
    """What a pod reserves: containers summed, max'ed with each init container, plus overhead.

    Sidecar init containers (``restartPolicy: Always``) run beside the app containers, so they
    are added to the sum as Kubernetes does. Containers, resources and requests of the wrong
    shape are problems with their field paths, like bad quantities.
    """
    problems: list[Problem] = []

    def requests_of(container: object, where: str) -> Resources:
        if not isinstance(container, Mapping):
            problems.append(_not_a(where, "a container", "mapping", container))
            return EMPTY
        resources = container.get("resources")
        if resources is not None and not isinstance(resources, Mapping):
            problems.append(_not_a(f"{where}.resources", "resources", "mapping", resources))
            return EMPTY
        try:
            return Resources.parse((resources or {}).get("requests"), path=f"{where}.resources.requests")
        except SpecError as exc:
            problems.extend(exc.problems)
            return EMPTY

    def containers(name: str) -> Sequence[Any]:
        raw = spec.get(name)
        if raw is not None and not isinstance(raw, list):
            problems.append(_not_a(f"{path}.{name}", name, "list", raw))
        return _list(raw)

    total = EMPTY
    for i, container in enumerate(containers("containers")):
        total = total + requests_of(container, f"{path}.containers[{i}]")
    init_peak = EMPTY
    sidecars = EMPTY
    for i, container in enumerate(containers("initContainers")):
        req = requests_of(container, f"{path}.initContainers[{i}]")
        if isinstance(container, Mapping) and container.get("restartPolicy") == "Always":
            sidecars = sidecars + req
        else:
            init_peak = init_peak.maximum(sidecars + req)
    total = (total + sidecars).maximum(init_peak)
    overhead = spec.get("overhead")
    if overhead:
        try:
            total = total + Resources.parse(overhead, path=f"{path}.overhead")
        except SpecError as exc:
            problems.extend(exc.problems)
    if problems:
        raise SpecError(problems)
    return total


def _not_a(where: str, what: str, shape: str, value: object) -> Problem:
    return Problem(where, f"{what} must be a {shape}, got {type(value).__name__}", "check the indentation")


def parse_tolerations(raw: object, *, path: str = "spec.tolerations") -> tuple[Toleration, ...]:
    problems: list[Problem] = []
    result: list[Toleration] = []
    for i, item in enumerate(_list(raw)):
        where = f"{path}[{i}]"
        if not isinstance(item, Mapping):
            problems.append(
                Problem(where, "a toleration is a mapping", "write {key, operator, value, effect}")
            )
            continue
        operator = item.get("operator") or "Equal"
        effect = item.get("effect") or None
        if operator not in TolerationOperator.__members__.values():
            problems.append(
                Problem(f"{where}.operator", f"unknown operator {operator!r}", "use Equal or Exists")
            )
            continue
        if effect is not None and effect not in TaintEffect.__members__.values():
            problems.append(
                Problem(
                    f"{where}.effect",
                    f"unknown effect {effect!r}",
                    "use NoSchedule, PreferNoSchedule or NoExecute",
                )
            )
            continue
        seconds = item.get("tolerationSeconds")
        if seconds is not None and (isinstance(seconds, bool) or not isinstance(seconds, int)):
            problems.append(
                Problem(f"{where}.tolerationSeconds", f"must be a whole number, got {seconds!r}", "")
            )
            continue
        found = toleration_rules(item, operator, effect, where)
        if found:
            problems += found
            continue
        result.append(
            Toleration(
                key=str(item.get("key") or ""),
                operator=TolerationOperator(operator),
                value=str(item.get("value") or ""),
                effect=TaintEffect(effect) if effect else None,
                toleration_seconds=int(seconds) if seconds is not None else None,
            )
        )
    if problems:
        raise SpecError(problems)
    return tuple(result)


def toleration_rules(item: Mapping[str, Any], operator: str, effect: str | None, where: str) -> list[Problem]:
    """The API server's rules for one toleration (``ValidateTolerations``, k8s.io/kubernetes
    v1.37.2), with its fields and messages: the key a label key, an empty key only with
    Exists, tolerationSeconds only with NoExecute, an Equal value a label value (reported at
    the operator, as upstream does), no value with Exists."""
    problems: list[Problem] = []
    key, value = item.get("key") or "", item.get("value") or ""
    if not isinstance(key, str) or not isinstance(value, str):
        bad = "key" if not isinstance(key, str) else "value"
        return [Problem(f"{where}.{bad}", f"must be a string, got {item.get(bad)!r}", "quote it")]
    if key:
        problems += [
            Problem(
                f"{where}.key",
                field_error(FieldErrorType.INVALID, key, m),
                "use a taint's key, e.g. nvidia.com/gpu",
            )
            for m in label_key_errors(key)
        ]
    elif operator != TolerationOperator.EXISTS:
        detail = 'operator must be Exists when `key` is empty, which means "match all values and all keys"'
        problems.append(
            Problem(
                f"{where}.operator",
                field_error(FieldErrorType.INVALID, operator, detail),
                "set operator: Exists",
            )
        )
    if item.get("tolerationSeconds") is not None and effect != TaintEffect.NO_EXECUTE:
        detail = "effect must be 'NoExecute' when `tolerationSeconds` is set"
        problems.append(
            Problem(
                f"{where}.effect",
                field_error(FieldErrorType.INVALID, effect or "", detail),
                "set effect: NoExecute",
            )
        )
    if operator == TolerationOperator.EXISTS and value:
        detail = "value must be empty when `operator` is 'Exists'"
        problems.append(
            Problem(
                f"{where}.operator", field_error(FieldErrorType.INVALID, value, detail), "leave value out"
            )
        )
    elif operator != TolerationOperator.EXISTS and (errors := label_value_errors(value)):
        problems.append(
            Problem(
                f"{where}.operator",
                field_error(FieldErrorType.INVALID, value, ";".join(errors)),
                "use a label value",
            )
        )
    return problems


def _list(raw: object) -> Sequence[Any]:
    return raw if isinstance(raw, list) else []
