"""Topology levels named in annotations: resolving them and checking their order."""

from __future__ import annotations

from toposched.frontends.kueue.fields import Problems
from toposched.model import Problem, Topology, is_label_key


def check_level(value: str, key: str, path: str, topology: Topology | None, problems: Problems) -> str | None:
    """``value`` as a label key of ``topology`` (aliases resolved); without a topology only its
    syntax is checked. None (and a Problem) when invalid."""
    if topology is not None:
        resolved = topology.resolve(value)
        if resolved is None:
            problems.append(
                Problem(
                    path,
                    f'{key} "{value}" is not a level of topology "{topology.name}"',
                    "use one of: " + ", ".join(topology.levels),
                )
            )
        return resolved
    if not is_label_key(value):
        problems.append(
            Problem(
                path,
                f'{key} "{value}" is not a node label key',
                "write e.g. cloud.provider.com/topology-rack",
            )
        )
        return None
    return value


def below_main(
    level: str,
    what: str,
    path: str,
    main: tuple[str | None, str],
    topology: Topology | None,
    problems: Problems,
) -> None:
    """A slice level must be at or below the PodSet's own level (only checkable with a topology)."""
    main_level, main_key = main
    if topology is None or main_level is None:
        return
    if topology.index(level) < topology.index(main_level):
        finer = topology.levels[topology.index(main_level) :]
        problems.append(
            Problem(
                path,
                f'{what} "{level}" is above the PodSet level "{main_level}" ({main_key})',
                "choose a slice level at or below it: " + ", ".join(finer),
            )
        )
