"""Rules across the PodSets of one workload: required/preferred everywhere, and PodSet groups."""

from __future__ import annotations

from collections.abc import Sequence

from toposched.frontends.kueue import keys
from toposched.frontends.kueue.fields import Problems
from toposched.frontends.kueue.podsets import PodSetSource
from toposched.frontends.kueue.request import TopologyRequest
from toposched.model import Problem

Entry = tuple[PodSetSource, TopologyRequest]


def check_levels_everywhere(entries: Sequence[Entry], problems: Problems) -> None:
    """KEP: when one PodSet asks for required/preferred, every PodSet must ask for one of them.

    A PodSet with no TAS annotation at all is still accepted and stays unconstrained (DESIGN.md,
    implicit defaulting, as upstream does). So only PodSets that *do* carry podset-* annotations
    but no level are rejected: an explicit ``podset-unconstrained-topology: "true"`` or a
    slice-only request next to required/preferred PodSets. (The engine-level conformance case
    ``kueue-multi-podset-required-and-unconstrained`` bypasses this front end and is unaffected.)
    Members of a PodSet group are left to ``check_groups``, which names the group.
    """
    with_level = [source.name for source, request in entries if request.asks_level]
    if not with_level:
        return
    for source, request in entries:
        if request.asks_level or not request.annotated or request.group is not None:
            continue
        what = f'{keys.UNCONSTRAINED}: "true"' if request.unconstrained else "its annotations name no level"
        problems.append(
            Problem(
                source.annotations_path,
                f'PodSet "{source.name}" has neither {keys.REQUIRED} nor {keys.PREFERRED} ({what}), '
                f'but PodSet "{with_level[0]}" has one',
                "give every PodSet podset-required-topology or podset-preferred-topology, "
                "or remove all podset-* annotations from this one to leave it unconstrained",
            )
        )


def group_members(entries: Sequence[Entry]) -> dict[tuple[int, str], list[Entry]]:
    """PodSets by (unit, group name), in workload order. Groups pair up within one unit."""
    groups: dict[tuple[int, str], list[Entry]] = {}
    for source, request in entries:
        if request.group is not None:
            groups.setdefault((source.unit, request.group), []).append((source, request))
    return groups


def check_groups(entries: Sequence[Entry], problems: Problems) -> None:
    """KEP "Validation" + Kueue's webhook: exactly two PodSets, one of them a single pod, both with
    required or preferred at the same level. A group without a level is rejected (conformance case
    ``kueue-group-unconstrained-split`` records that upstream would place it anyway)."""
    for (_, name), members in group_members(entries).items():
        names = ", ".join(f'"{source.name}"' for source, _ in members)
        if len(members) != 2:
            for source, _ in members:
                problems.append(
                    Problem(
                        source.annotation_path(keys.GROUP_NAME),
                        f'PodSet group "{name}" has {len(members)} PodSet(s) ({names}); a group is exactly two',
                        "give the leader and the workers the same podset-group-name, and no other PodSet",
                    )
                )
            continue
        (first, first_req), (second, second_req) = members
        if first.count_ok and second.count_ok and first.count != 1 and second.count != 1:
            for source, _ in members:
                problems.append(
                    Problem(
                        source.annotation_path(keys.GROUP_NAME),
                        f'PodSet group "{name}": one PodSet must have exactly 1 pod, '
                        f"got {first.count} and {second.count}",
                        "a group is one leader pod plus its workers",
                    )
                )
        for source, request in members:
            if not request.asks_level:
                problems.append(
                    Problem(
                        source.annotation_path(keys.GROUP_NAME),
                        f'PodSet group "{name}": PodSet "{source.name}" has neither {keys.REQUIRED} '
                        f"nor {keys.PREFERRED}",
                        f"give both {names} the same podset-required-topology or podset-preferred-topology",
                    )
                )
        if (
            first_req.level is not None
            and second_req.level is not None
            and (first_req.required != second_req.required or first_req.preferred != second_req.preferred)
        ):
            problems.append(
                Problem(
                    second.annotations_path,
                    f'PodSet group "{name}": "{first.name}" asks for {_describe(first_req)} '
                    f'but "{second.name}" asks for {_describe(second_req)}',
                    "both PodSets of a group need the same annotation with the same level",
                )
            )


def _describe(request: TopologyRequest) -> str:
    if request.required is not None:
        return f'required "{request.required}"'
    return f'preferred "{request.preferred}"'
