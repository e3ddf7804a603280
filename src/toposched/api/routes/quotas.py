"""Per-user quotas on pending work: the default (``toposched serve --quota-*``) and users' own
(admin); each user may read their own quota and pending work."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Path

from toposched.api.auth import AdminUser, CurrentUser
from toposched.api.bodies import QuotaBody, quota_json, usage_json
from toposched.api.deps import SchedulerDep, StoreDep
from toposched.model import PermissionDeniedError
from toposched.scheduler import Scheduler
from toposched.store import Store

router = APIRouter(prefix="/v1/quotas", tags=["quotas"])

UserName = Annotated[str, Path(min_length=1, max_length=253, description="A user name")]


@router.get("")
def list_quotas(_: AdminUser, scheduler: SchedulerDep, store: StoreDep) -> dict[str, Any]:
    """The default quota (null: no bound) and every user's own."""
    own = {user: quota_json(quota) for user, quota in store.list_quotas().items()}
    return {"default": quota_json(scheduler.config.quota), "users": own}


@router.get("/{user}")
def get_quota(
    user: UserName, caller: CurrentUser, scheduler: SchedulerDep, store: StoreDep
) -> dict[str, Any]:
    """A user's quota (their own, else the default; null: no bound) and their pending work now.
    Users may read only their own."""
    if not caller.is_admin and caller.name != user:
        raise PermissionDeniedError(f"user {caller.name!r} may read only their own quota")
    return _quota_of(user, scheduler, store)


@router.put("/{user}")
def put_quota(
    user: UserName, body: QuotaBody, _: AdminUser, scheduler: SchedulerDep, store: StoreDep
) -> dict[str, Any]:
    """Give a user a quota of their own. Pending work already over it stays; new submissions
    past it are refused (429)."""
    store.put_quota(user, body.to_quota())
    return _quota_of(user, scheduler, store)


@router.delete("/{user}")
def delete_quota(user: UserName, _: AdminUser, scheduler: SchedulerDep, store: StoreDep) -> dict[str, Any]:
    """Drop a user's own quota: the default applies again (404 when they had none)."""
    store.delete_quota(user)
    return _quota_of(user, scheduler, store)


def _quota_of(user: str, scheduler: Scheduler, store: Store) -> dict[str, Any]:
    own = store.list_quotas().get(user)
    quota = own if own is not None else scheduler.config.quota
    return {
        "user": user,
        "quota": quota_json(quota),
        "own": own is not None,
        "pending": usage_json(store.pending_usage(user)),
    }
