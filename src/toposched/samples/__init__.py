"""Sample data shipped with toposched: the demo cluster and the demo jobs (plain YAML files)."""

from __future__ import annotations

from importlib import resources


def read_sample(name: str) -> str:
    """The text of a bundled sample file, e.g. ``cluster.yaml`` or ``jobs/rack-16.yaml``."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def sample_names(folder: str) -> list[str]:
    """The YAML files under a bundled folder, in name order, as names ``read_sample`` accepts."""
    root = resources.files(__name__).joinpath(folder)
    return sorted(f"{folder}/{entry.name}" for entry in root.iterdir() if entry.name.endswith(".yaml"))
