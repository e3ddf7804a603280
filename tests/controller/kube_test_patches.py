"""Test double: the patch formats of the Kubernetes API, simplified to what the controller sends.

- JSON merge patch (RFC 7386): complete.
- Strategic merge patch: SIMPLIFIED. A merge patch, except that lists of maps the controller
  touches are merged by their key (``schedulingGates``, ``containers``, ``conditions`` ... see
  ``MERGE_KEYS``) and ``{"$patch": "delete", key: value}`` removes an element. No ``$retainKeys``,
  no ``$setElementOrder``, no ``$deleteFromPrimitiveList``: a patch using them is rejected (422).
- JSON patch (RFC 6902): ``add``, ``remove``, ``replace``, ``test``; ``move`` and ``copy`` are
  rejected (422) because the controller does not send them.
"""

from __future__ import annotations

import copy
from typing import Any

# list field name -> the key its elements merge on (from the Kubernetes API's patchMergeKey tags)
MERGE_KEYS = {
    "schedulingGates": "name",
    "containers": "name",
    "initContainers": "name",
    "env": "name",
    "volumes": "name",
    "conditions": "type",
    "ownerReferences": "uid",
}


class PatchError(Exception):
    """The patch cannot be applied: the server answers 422 (or 409 for a failed JSON ``test``)."""

    def __init__(self, message: str, code: int = 422) -> None:
        super().__init__(message)
        self.code = code


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386: maps merge, ``null`` deletes, everything else replaces."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def strategic_merge_patch(target: Any, patch: Any) -> Any:
    """The simplified strategic merge described in the module docstring."""
    if not isinstance(patch, dict):
        return copy.deepcopy(patch)
    result = dict(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if key.startswith("$"):
            raise PatchError(f"strategic merge directive {key!r} is not supported by the test double")
        if value is None:
            result.pop(key, None)
        elif key in MERGE_KEYS and isinstance(value, list):
            result[key] = _merge_list(result.get(key) or [], value, MERGE_KEYS[key])
        else:
            result[key] = strategic_merge_patch(result.get(key), value)
    return result


def _merge_list(current: list[Any], patch: list[Any], merge_key: str) -> list[Any]:
    merged = [copy.deepcopy(item) for item in current]
    for item in patch:
        if not isinstance(item, dict) or merge_key not in item:
            raise PatchError(f"list elements must be maps with {merge_key!r} to merge strategically")
        index = next((i for i, old in enumerate(merged) if old.get(merge_key) == item[merge_key]), None)
        if item.get("$patch") == "delete":
            if index is not None:
                del merged[index]
        elif index is None:
            merged.append(strategic_merge_patch({}, item))
        else:
            merged[index] = strategic_merge_patch(merged[index], item)
    return merged


def json_patch(target: Any, operations: Any) -> Any:
    """RFC 6902 ``add``/``remove``/``replace``/``test`` on a copy of ``target``."""
    if not isinstance(operations, list):
        raise PatchError("a JSON patch is a list of operations")
    document = copy.deepcopy(target)
    for operation in operations:
        op, path = operation.get("op"), operation.get("path", "")
        if op not in ("add", "remove", "replace", "test"):
            raise PatchError(f"JSON patch op {op!r} is not supported by the test double")
        parent, last = _resolve(document, path)
        if op == "test":
            if _get(parent, last) != operation.get("value"):
                raise PatchError(f"JSON patch test failed at {path}")
        elif op == "remove":
            _get(parent, last)  # must exist
            del parent[int(last) if isinstance(parent, list) else last]
        elif op == "replace":
            _get(parent, last)
            parent[int(last) if isinstance(parent, list) else last] = operation.get("value")
        elif isinstance(parent, list):
            parent.insert(len(parent) if last == "-" else int(last), operation.get("value"))
        else:
            parent[last] = operation.get("value")
    return document


def _resolve(document: Any, path: str) -> tuple[Any, str]:
    if not path.startswith("/"):
        raise PatchError(f"JSON patch path {path!r} must start with /")
    tokens = [token.replace("~1", "/").replace("~0", "~") for token in path[1:].split("/")]
    node = document
    for token in tokens[:-1]:
        node = _get(node, token)
    if not isinstance(node, dict | list):
        raise PatchError(f"JSON patch path {path!r} does not lead into an object or a list")
    return node, tokens[-1]


def _get(node: Any, token: str) -> Any:
    try:
        return node[int(token)] if isinstance(node, list) else node[token]
    except (KeyError, IndexError, ValueError, TypeError) as exc:
        raise PatchError(f"JSON patch path element {token!r} does not exist") from exc
