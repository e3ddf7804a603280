"""Lifecycle guards for the service's managed topologies and OSMO pools, the GREP-369 rules of
the Grove operator (``operator``) applied to stored objects:

* a topology referenced by a pending, admitted or running workload, or by a pool, cannot be
  deleted. The service refuses the delete (409, naming the references) instead of marking it for
  deletion: an API caller then knows at once what still uses it, and nothing is deleted later
  behind their back;
* the levels of a topology cannot change while a referencing workload holds capacity (its
  placement is written in those levels); aliases (metadata) may always change;
* the topology keys of a pool follow the same rule for the workloads submitted to the pool.
"""

from __future__ import annotations

from collections.abc import Sequence

from toposched.model import ConflictError, Topology


def _listed(ids: Sequence[int]) -> str:
    shown = ", ".join(str(i) for i in ids[:5])
    return shown + (f" and {len(ids) - 5} more" if len(ids) > 5 else "")


def check_topology_update(old: Topology | None, new: Topology, holding: Sequence[int]) -> None:
    """Refuse a level change of ``old`` while the workloads ``holding`` capacity on it exist."""
    if old is None or old.levels == new.levels or not holding:
        return
    raise ConflictError(
        f"topology {new.name!r} levels cannot change while workloads {_listed(holding)} hold capacity "
        "on it (wait for them to finish, or add a new topology)"
    )


def check_pool_update(
    name: str, old_keys: Sequence[str], new_keys: Sequence[str], holding: Sequence[int]
) -> None:
    """Refuse a change of a pool's topology keys (or their order) while its workloads hold capacity."""
    if list(old_keys) == list(new_keys) or not holding:
        return
    raise ConflictError(
        f"pool {name!r} topology keys cannot change while workloads {_listed(holding)} hold capacity "
        "in it (wait for them to finish, or add a new pool)"
    )
