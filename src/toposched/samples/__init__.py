"""Sample data shipped with toposched: the demo cluster and the demo jobs (plain YAML files)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def read_sample(name: str) -> str:
    """The text of a bundled sample file, e.g. ``cluster.yaml`` or ``jobs/rack-16.yaml``."""
    return resources.files(__name__).joinpath(name).read_text(encoding="utf-8")


def sample_names(folder: str) -> list[str]:
    """The YAML files under a bundled folder, in name order, as names ``read_sample`` accepts."""
    root = resources.files(__name__).joinpath(folder)
    return sorted(f"{folder}/{entry.name}" for entry in root.iterdir() if entry.name.endswith(".yaml"))


def sample_path(name: str) -> str:
    """Where a bundled sample file is, as a path to type: relative to the working directory when
    under it (a checkout), else absolute (an installed package)."""
    path = Path(str(resources.files(__name__).joinpath(name))).resolve()
    try:
        return str(path.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


__all__ = ["read_sample", "sample_names", "sample_path"]
