"""Test double: the patch formats of the Kubernetes API, simplified to what the ungater sends
(what the real API server does with them is tested on it).

- JSON merge patch (RFC 7386): complete.
- Strategic merge patch: SIMPLIFIED. A merge patch, except that lists of maps the controller
  touches are merged by their key (``schedulingGates``, ``containers``, ``conditions`` ... see
  ``MERGE_KEYS``) and ``{"$patch": "delete", key: value}`` removes an element. No ``$retainKeys``,
  no ``$setElementOrder``, no ``$deleteFromPrimitiveList``: a patch using them is rejected (422).
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
