"""Kubernetes' string formats and field errors, worded as the API server words them.

The format checks return apimachinery's messages (``k8s.io/apimachinery/pkg/api/validate/content``
at v0.37.2) so a refusal reads like ``kubectl apply``'s; ``field_error`` renders one
``field.Error`` body ("Invalid value: \\"x\\": ...", "Required value", "Too many: 2: must have at
most 1 item"). Lengths are counted in bytes, as Go's ``len`` counts them.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum

DNS1123_LABEL_MAX = 63
DNS1123_SUBDOMAIN_MAX = 253
LABEL_KEY_NAME_MAX = 63
LABEL_KEY_MAX = DNS1123_SUBDOMAIN_MAX + 1 + LABEL_KEY_NAME_MAX

_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
_SUBDOMAIN_FMT = _LABEL_FMT + "(\\." + _LABEL_FMT + ")*"
_KEY_NAME_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL = re.compile(_LABEL_FMT)
_SUBDOMAIN = re.compile(_SUBDOMAIN_FMT)
_KEY_NAME = re.compile(_KEY_NAME_FMT)

_LABEL_MSG = (
    "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', "
    "and must start and end with an alphanumeric character"
)
_SUBDOMAIN_MSG = (
    "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
    "and must start and end with an alphanumeric character"
)
_KEY_NAME_MSG = (
    "must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an "
    "alphanumeric character"
)


def _regex_error(message: str, pattern: str, *examples: str) -> str:
    shown = "".join(f"'{e}', " if i == 0 else f" or '{e}', " for i, e in enumerate(examples))
    return f"{message} (e.g. {shown}regex used for validation is '{pattern}')"


def _too_long(limit: int, unit: str = "bytes") -> str:
    return f"must be no more than {limit} {unit}"


def _size(value: str) -> int:
    return len(value.encode("utf-8", "surrogatepass"))


def dns1123_label_errors(value: str, unit: str = "bytes") -> list[str]:
    """``IsDNS1123Label``: a short name (template names, resource claim names). ``unit``: how the
    length limit is worded ("characters" in ``ValidateObjectMeta``'s older helpers)."""
    errors = [_too_long(DNS1123_LABEL_MAX, unit)] if _size(value) > DNS1123_LABEL_MAX else []
    if not _LABEL.fullmatch(value):
        if _SUBDOMAIN.fullmatch(value):
            errors.append("must not contain dots")
        else:
            errors.append(_regex_error(_LABEL_MSG, _LABEL_FMT, "my-name", "123-abc"))
    return errors


def dns1123_subdomain_errors(value: str, unit: str = "bytes") -> list[str]:
    """``IsDNS1123Subdomain``: a long name (object names, references to them, API groups);
    ``unit`` as for ``dns1123_label_errors``."""
    errors = [_too_long(DNS1123_SUBDOMAIN_MAX, unit)] if _size(value) > DNS1123_SUBDOMAIN_MAX else []
    if not _SUBDOMAIN.fullmatch(value):
        errors.append(_regex_error(_SUBDOMAIN_MSG, _SUBDOMAIN_FMT, "example.com"))
    return errors


_VALID_KEY = re.compile(f"({_SUBDOMAIN_FMT}/)?{_KEY_NAME_FMT}")


def label_key_errors(value: str) -> list[str]:
    """``IsLabelKey``: an optional DNS-subdomain prefix of at most 253 bytes, '/', and a name of at
    most 63 bytes (so at most 317 in all)."""
    if _VALID_KEY.fullmatch(value) and value.isascii():  # the common case, in one match
        prefix, _, name = value.rpartition("/")
        if len(prefix) <= DNS1123_SUBDOMAIN_MAX and len(name) <= LABEL_KEY_NAME_MAX:
            return []
    errors: list[str] = []
    parts = value.split("/")
    if len(parts) > 2:
        return [
            "a valid label key "
            + _regex_error(_KEY_NAME_MSG, _KEY_NAME_FMT, "MyName", "my.name", "123-abc")
            + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"
        ]
    name = parts[-1]
    if len(parts) == 2:
        prefix = parts[0]
        if not prefix:
            errors.append("prefix part must be non-empty")
        else:
            errors += [f"prefix part {m}" for m in dns1123_subdomain_errors(prefix)]
    if not name:
        errors.append("name part must be non-empty")
    elif _size(name) > LABEL_KEY_NAME_MAX:
        errors.append(f"name part {_too_long(LABEL_KEY_NAME_MAX)}")
    if not _KEY_NAME.fullmatch(name):
        errors.append(
            "name part " + _regex_error(_KEY_NAME_MSG, _KEY_NAME_FMT, "MyName", "my.name", "123-abc")
        )
    return errors


_LABEL_VALUE_FMT = "(" + _KEY_NAME_FMT + ")?"
_LABEL_VALUE = re.compile(_LABEL_VALUE_FMT)
_LABEL_VALUE_MSG = (
    "a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
    "and must start and end with an alphanumeric character"
)


def label_value_errors(value: str) -> list[str]:
    """``IsValidLabelValue``: empty, or at most 63 bytes of a name part's characters."""
    errors = [_too_long(LABEL_KEY_NAME_MAX)] if _size(value) > LABEL_KEY_NAME_MAX else []
    if not _LABEL_VALUE.fullmatch(value):
        errors.append(_regex_error(_LABEL_VALUE_MSG, _LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errors


def is_label_key(value: str) -> bool:
    """Whether ``value`` is a Kubernetes label key (``label_key_errors`` finds nothing)."""
    return _size(value) <= LABEL_KEY_MAX and not label_key_errors(value)


def path_segment_errors(value: str) -> list[str]:
    """``IsPathSegmentName``: a kind or name that can stand in a URL path."""
    if value in (".", ".."):
        return [f"may not be '{value}'"]
    return [f"may not contain '{c}'" for c in ("/", "%") if c in value]


class FieldErrorType(StrEnum):
    """``field.ErrorType`` as ``ErrorBody`` prints it."""

    REQUIRED = "Required value"
    FORBIDDEN = "Forbidden"
    INVALID = "Invalid value"
    DUPLICATE = "Duplicate value"
    NOT_SUPPORTED = "Unsupported value"
    TOO_MANY = "Too many"
    TOO_LONG = "Too long"


OMITTED = object()  # a field error printed without its value ("Invalid value: ..." keeps it)
_WITHOUT_VALUE = (FieldErrorType.REQUIRED, FieldErrorType.FORBIDDEN, FieldErrorType.TOO_LONG)
_SHOWN_CHARS = 120  # the API server prints the whole value; a huge one is cut in toposched's message


def field_error(kind: FieldErrorType, value: object = OMITTED, detail: str = "") -> str:
    """One ``field.Error`` body: ``<type>[: <value>][: <detail>]``, the value as Go prints it
    (strings quoted, numbers plain, anything else as JSON)."""
    text = kind.value
    if kind not in _WITHOUT_VALUE and value is not OMITTED:
        text += f": {_go_value(value)}"
    return f"{text}: {detail}" if detail else text


def _go_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        shown = value if len(value) <= _SHOWN_CHARS else value[: _SHOWN_CHARS - 3] + "..."
        return json.dumps(shown, ensure_ascii=False)
    if value is None:
        return "null"
    rendered = json.dumps(value, separators=(",", ":"), sort_keys=True, default=str)
    return rendered if len(rendered) <= _SHOWN_CHARS else rendered[: _SHOWN_CHARS - 3] + "..."


def supported_values(values: tuple[str, ...]) -> str:
    """``field.NotSupported``'s detail: the values quoted, in the order given."""
    return "supported values: " + ", ".join(json.dumps(v) for v in values)
