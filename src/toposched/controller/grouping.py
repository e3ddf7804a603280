"""Pods into gangs, pass after pass: ``gangs.group_pods`` under the front ends' membership rules,
re-reading only the pods whose resourceVersion changed. A pod's gang can follow the objects that
group pods (an upstream PodGroup joining a CompositePodGroup tree), so any change to those
objects makes every pod be read again."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from toposched.controller.gangs import GangPods, MemberMemo, group_pods
from toposched.controller.informer import Change, Informer
from toposched.controller.kubeapi import Object
from toposched.frontends.membership import GangKey, GroupCaches, Membership, kind_of


class PodGrouper:
    """The controller's pods by gang, with what was read of each pod kept between passes."""

    def __init__(self) -> None:
        self.memo: MemberMemo = {}

    def group(
        self,
        pods: Iterable[Object],
        grouping: Sequence[Informer],
        changes: Sequence[Change],
        memberships: Sequence[Membership],
    ) -> dict[GangKey, GangPods]:
        """``pods`` by gang, read against the caches of the ``grouping`` informers (one per kind,
        so upstream PodGroups come from the version watched); ``changes``: this pass's news."""
        watched = {informer.resource for informer in grouping}
        if any(change.resource in watched for change in changes):
            self.memo.clear()
        caches = GroupCaches({kind_of(i.resource.group, i.resource.kind): i.objects for i in grouping})
        return group_pods(pods, caches, memberships, self.memo)
