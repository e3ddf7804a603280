"""A custom resource's structural schema (OpenAPI v3, as a CRD installs it) and the API server's
check of a value against it: the validators of k8s.io/kube-openapi ``pkg/validation/validate``
as apiextensions-apiserver v0.37.2 runs them, with its messages and field paths (the
apiextensions conversion of each finding to a ``field.Error``).

Only the keywords the CRDs toposched reads use are described: ``type``, ``format``,
``properties``, ``additionalProperties``, ``items``, ``required``, ``nullable``, ``minimum`` /
``maximum``, ``minLength`` / ``maxLength``, ``pattern``, ``enum``, ``minItems`` / ``maxItems``,
``x-kubernetes-validations`` (CEL rules, evaluated by ``toposched.wire.crd``) and
``x-kubernetes-int-or-string`` / ``x-kubernetes-preserve-unknown-fields``. String formats
(``date-time``) appear only in status, which a create does not validate.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from toposched.model import Problem
from toposched.model.k8s_content import OMITTED, FieldErrorType, field_error, supported_values

INT32 = (-(2**31), 2**31 - 1)
INT64 = (-(2**63), 2**63 - 1)
MAX_NESTING = 100  # deeper than any object the parser lets through (64 levels)


@dataclass(frozen=True, slots=True)
class Rule:
    """One ``x-kubernetes-validations`` entry: a CEL expression and the message of its failure."""

    rule: str
    message: str


@dataclass(frozen=True, slots=True)
class Schema:
    """One node of a structural schema; empty and None values are keywords not set."""

    type: str = ""
    format: str = ""
    properties: Mapping[str, Schema] = field(default_factory=dict)
    additional: Schema | None = None  # additionalProperties
    items: Schema | None = None
    required: tuple[str, ...] = ()
    nullable: bool = False
    minimum: int | None = None
    maximum: int | None = None
    min_length: int | None = None
    max_length: int | None = None
    pattern: str = ""
    enum: tuple[str, ...] = ()
    min_items: int | None = None
    max_items: int | None = None
    rules: tuple[Rule, ...] = ()
    int_or_string: bool = False
    preserve_unknown: bool = False


@dataclass(frozen=True, slots=True)
class CustomResource:
    """One served version of a CRD: its kind, scope, whether status is a subresource (a create
    then drops it after decoding it) and its schema."""

    api_version: str
    kind: str
    namespaced: bool
    status_subresource: bool
    schema: Schema


@dataclass
class Findings:
    """What a check found; ``blocking``: one of the error types that keep the API server from
    evaluating CEL rules (Required, Unsupported, Too long, Too many, a wrong type)."""

    problems: list[Problem] = field(default_factory=list)
    blocking: bool = False

    def add(self, where: str, message: str, hint: str, *, blocking: bool = False) -> None:
        self.problems.append(Problem(where, message, hint))
        self.blocking = self.blocking or blocking


def join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def validate(value: object, schema: Schema, path: str, findings: Findings, *, base: str = "") -> None:
    """``value`` (at ``path`` of its object, reported under ``base``) against ``schema``, as
    kube-openapi's ``SchemaValidator`` does: every validator that applies to the value's kind
    runs, and list items and properties are checked whatever their owner's findings."""
    _validate(value, schema, path, findings, base, 0)


def _validate(value: object, schema: Schema, path: str, out: Findings, base: str, depth: int) -> None:
    where = join(base, path) if path else base
    if depth > MAX_NESTING:
        out.add(where, field_error(FieldErrorType.INVALID, OMITTED, "nested too deeply"), "flatten it")
        return
    if value is None:
        if schema.type and not schema.nullable:
            _wrong_type(out, where, path, schema.type, "null")
        if schema.enum:
            _not_supported(out, where, value, schema.enum)
        return
    _check_type(value, schema, path, where, out)
    if isinstance(value, str):
        _check_string(value, schema, path, where, out)
    elif isinstance(value, int | float) and not isinstance(value, bool):
        _check_number(value, schema, path, where, out)
    elif isinstance(value, list):
        if schema.items is not None:
            for i, item in enumerate(value):
                _validate(item, schema.items, f"{path}[{i}]", out, base, depth + 1)
        if schema.min_items is not None and len(value) < schema.min_items:
            detail = f"{path} in body should have at least {schema.min_items} items"
            out.add(
                where,
                field_error(FieldErrorType.INVALID, len(value), detail),
                f"list at least {schema.min_items}",
            )
        if schema.max_items is not None and len(value) > schema.max_items:
            detail = f"must have at most {schema.max_items} {'item' if schema.max_items == 1 else 'items'}"
            out.add(
                where,
                field_error(FieldErrorType.TOO_MANY, len(value), detail),
                f"list at most {schema.max_items}",
                blocking=True,
            )
    if schema.enum and value not in schema.enum:
        _not_supported(out, where, value, schema.enum)
    if isinstance(value, Mapping):
        _check_object(value, schema, path, out, base, depth)


def _check_object(
    value: Mapping[str, Any], schema: Schema, path: str, out: Findings, base: str, depth: int
) -> None:
    # A null the schema does not allow was dropped before validation (apiextensions'
    # PruneNonNullableNullsWithoutDefaults): the field counts as absent.
    for key, item in value.items():
        child = schema.properties.get(key, schema.additional)
        if child is None or (item is None and not child.nullable):
            continue
        _validate(item, child, join(path, key), out, base, depth + 1)
    for key in schema.required:
        child = schema.properties.get(key)
        if value.get(key) is None and not (key in value and child is not None and child.nullable):
            where = join(base, join(path, key))
            out.add(where, field_error(FieldErrorType.REQUIRED), "set this field", blocking=True)


def json_type(value: object) -> str:
    """The JSON type of a decoded value, as kube-openapi infers it from Go's."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int) and INT64[0] <= value <= INT64[1]:
        return "integer"
    if _is_number(value):
        return "number"  # a float, or an integer past int64 (Go decodes it as a float64)
    if isinstance(value, str):
        return "string"
    return "array" if isinstance(value, list) else "object"


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _check_type(value: object, schema: Schema, path: str, where: str, out: Findings) -> None:
    """kube-openapi's ``typeValidator``: the value's JSON type (and Go format) against the
    schema's; an integral float is an integer, an integer is a number."""
    if not schema.type and not schema.format:
        return
    given = json_type(value)
    given_format = {"integer": "int64", "number": "float64"}.get(given, "")
    float_int = given == "number" and schema.type == "integer" and _integral(value)
    int_float = given == "integer" and schema.type == "number"
    compatible = given == schema.type or float_int or int_float
    scalar = given not in ("string", "array")
    if scalar and schema.format and not (compatible or given_format == schema.format):
        _wrong_type(out, where, path, schema.format, given_format)
    elif schema.type not in ("integer", "number") and schema.format and not scalar:
        return
    elif not compatible:
        _wrong_type(out, where, path, schema.type, given)


def _integral(value: object) -> bool:
    """A float Go takes for a JSON integer (swag's ``IsFloat64AJSONInteger``: whole, |f| <= 2^53)."""
    return isinstance(value, float) and math.isfinite(value) and value.is_integer() and abs(value) <= 2**53


def _wrong_type(out: Findings, where: str, path: str, wanted: str, given: str) -> None:
    detail = f'{path} in body must be of type {wanted}: "{given}"'
    out.add(
        where,
        field_error(FieldErrorType.INVALID, given, detail),
        f"write a value of type {wanted}",
        blocking=True,
    )


def _not_supported(out: Findings, where: str, value: object, allowed: Sequence[str]) -> None:
    message = field_error(FieldErrorType.NOT_SUPPORTED, value, supported_values(tuple(allowed)))
    out.add(where, message, f"use one of {', '.join(allowed)}", blocking=True)


def _check_string(value: str, schema: Schema, path: str, where: str, out: Findings) -> None:
    """kube-openapi's ``stringValidator``: the first of maxLength, minLength, pattern that fails
    (lengths in characters)."""
    if schema.max_length is not None and len(value) > schema.max_length:
        unit = "byte" if schema.max_length == 1 else "bytes"
        message = field_error(
            FieldErrorType.TOO_LONG, detail=f"may not be more than {schema.max_length} {unit}"
        )
        out.add(where, message, f"use at most {schema.max_length} characters", blocking=True)
    elif schema.min_length is not None and len(value) < schema.min_length:
        detail = f"{path} in body should be at least {schema.min_length} chars long"
        out.add(
            where, field_error(FieldErrorType.INVALID, value, detail), f"write at least {schema.min_length}"
        )
    elif schema.pattern and not _matches(schema.pattern, value):
        detail = f"{path} in body should match '{schema.pattern}'"
        out.add(
            where, field_error(FieldErrorType.INVALID, value, detail), "write a value the pattern matches"
        )


def _matches(pattern: str, value: str) -> bool:
    # Go's '$' is the end of the text; Python's also matches before a final newline.
    anchored = pattern[:-1] + r"\Z" if pattern.endswith("$") and not pattern.endswith("\\$") else pattern
    return re.search(anchored, value) is not None


def _check_number(value: float, schema: Schema, path: str, where: str, out: Findings) -> None:
    """kube-openapi's ``numberValidator``: the value fits its type and format (an integer's
    default format is int64), then the bounds."""
    if schema.type == "integer":
        low, high = INT32 if schema.format == "int32" else INT64
        if not (_integral(value) or isinstance(value, int)) or not low <= value <= high:
            shown = f"with format {schema.format}" if schema.format else "(default format)"
            detail = f"Checked value must be of type integer {shown} in {path}"
            out.add(where, field_error(FieldErrorType.INVALID, "", detail), "write a whole number in range")
    if schema.minimum is not None and value < schema.minimum:
        detail = f"{path} in body should be greater than or equal to {schema.minimum}"
        out.add(where, field_error(FieldErrorType.INVALID, value, detail), f"use at least {schema.minimum}")
    if schema.maximum is not None and value > schema.maximum:
        detail = f"{path} in body should be less than or equal to {schema.maximum}"
        out.add(where, field_error(FieldErrorType.INVALID, value, detail), f"use at most {schema.maximum}")
