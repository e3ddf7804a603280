"""One caller's placement options, and the rule that decides between them and a workload's own.

Every caller (``toposched place`` and ``explain``, the service and its cycle, the simulator, the
controller) hands its session one ``PlacementOptions`` value. The defaults are the same for all
of them: the complete search, bounded at 50,000 steps and 2 seconds of the session's clock per
gang, of which one scheduling cycle spends at most ``round_seconds`` on exact searches.

Precedence, written once (``PlacementOptions.policy_for``): what the workload itself says (a
``toposched.io/policy`` annotation: ``Gang.policy``), then what the caller chose (``--policy``,
``SchedulerConfig.policy``, the controller's configuration: ``PlacementOptions.policy``), then
the front end's default (``Gang.default_policy``: binpack for KAI, OSMO, Grove and upstream
PodGroups), then ``mixed``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from toposched.model import Gang, Policy, Problem, Search, SpecError

DEFAULT_STEPS = 50_000  # choices one gang's exact search may try...
DEFAULT_SECONDS = 2.0  # ...and seconds of the session's clock it may take
DEFAULT_ROUND_SECONDS = 0.05  # the exact searches of one scheduling cycle, together


@dataclass(frozen=True, slots=True)
class PlacementOptions:
    """What one caller chose for its placements.

    ``search``: ``complete`` (the faithful answer when there is one, else an exact search) or
    ``faithful`` (each upstream scheduler's own answer, refusals included). ``steps`` and
    ``seconds`` bound one gang's exact search (its seconds on the session's clock);
    ``round_seconds`` bounds the exact searches of one round (a scheduling cycle) together, shared
    among the gangs that need one. ``policy``: the caller's choice of ordering, None for none.
    ``topology``: the topology a workload that names none is placed on (None: the cluster's only
    one).
    """

    search: Search = Search.COMPLETE
    steps: int = DEFAULT_STEPS
    seconds: float = DEFAULT_SECONDS
    round_seconds: float = DEFAULT_ROUND_SECONDS
    policy: str | None = None
    topology: str | None = None

    def __post_init__(self) -> None:
        problems: list[Problem] = []
        if isinstance(self.steps, bool) or not isinstance(self.steps, int) or self.steps < 1:
            problems.append(
                Problem("search_steps", f"{self.steps!r}", "use a whole number of steps, 1 or more")
            )
        for name, value in (("search_seconds", self.seconds), ("round_seconds", self.round_seconds)):
            if not isinstance(value, int | float) or not 0 < value < math.inf:
                problems.append(Problem(name, f"{value!r}", "use a finite number of seconds above 0"))
        if problems:
            raise SpecError(problems)

    def policy_for(self, gang: Gang) -> str:
        """The policy ``gang`` is placed under: what it says, else the caller's choice, else its
        front end's default, else ``mixed``."""
        return gang.policy or self.policy or gang.default_policy or Policy.MIXED
