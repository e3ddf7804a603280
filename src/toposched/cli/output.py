"""Printing documents as JSON or YAML (the result document itself: ``toposched.emit.result``)."""

from __future__ import annotations

import json
from typing import Any

import yaml


def to_json(document: dict[str, Any]) -> str:
    return json.dumps(document, indent=2)


def to_yaml(document: dict[str, Any]) -> str:
    return yaml.safe_dump(document, sort_keys=False, default_flow_style=False).rstrip("\n")
