"""The OSMO workflow spec as users write it (the parts that matter for scheduling).

Two spellings are accepted (DESIGN.md, OSMO decisions):

* OSMO's: ``{version?, workflow: {..., resources}}`` with exactly one ``lead: true`` task in every
  group of several tasks;
* the design document's examples: ``resources`` beside ``workflow:`` and no ``lead`` (the first
  task then leads; at most one lead may still be marked).

Every model forbids unknown fields, so a typo is reported with its field path.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field


class RequirementType(StrEnum):
    """``required`` blocks scheduling when unmet; ``preferred`` is best effort."""

    REQUIRED = "required"
    PREFERRED = "preferred"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, populate_by_name=True)


class TopologyRequirement(_Strict):
    """Tasks naming the same (key, group) share one domain of that key's level."""

    key: str = Field(min_length=1)
    group: str = "default"
    requirement_type: RequirementType = Field(default=RequirementType.REQUIRED, alias="requirementType")

    @property
    def required(self) -> bool:
        return self.requirement_type is RequirementType.REQUIRED


class ResourceSpec(_Strict):
    """What one task asks for; ``topology`` lists its requirements in any order."""

    cpu: int | float | str | None = None
    gpu: int | None = Field(default=None, ge=0)
    memory: int | str | None = None
    storage: int | str | None = None
    platform: str | None = None
    topology: tuple[TopologyRequirement, ...] = ()


class TaskSpec(_Strict):
    """One task = one pod. Container fields are accepted and ignored by scheduling."""

    name: str = Field(min_length=1)
    image: str | None = None
    command: list[str] | None = None
    args: list[str] | None = None
    environment: dict[str, str] | None = None
    inputs: list[Any] | None = None
    outputs: list[Any] | None = None
    files: list[Any] | None = None
    credentials: dict[str, Any] | None = None
    privileged: bool = False
    host_network: bool = Field(default=False, alias="hostNetwork")
    volume_mounts: list[Any] | None = Field(default=None, alias="volumeMounts")
    exit_actions: dict[str, Any] | None = Field(default=None, alias="exitActions")
    checkpoint: list[Any] | dict[str, Any] | None = None
    lead: bool = False
    resource: str = "default"


class GroupSpec(_Strict):
    """Tasks started together; each group becomes one PodGroup."""

    name: str = Field(min_length=1)
    barrier: bool = True
    ignore_nonlead_status: bool = Field(default=True, alias="ignoreNonleadStatus")
    tasks: tuple[TaskSpec, ...]  # at least one; checked with the other rules


class WorkflowSpec(_Strict):
    """What sits under ``workflow:``. Exactly one of ``groups`` and ``tasks`` is given."""

    name: str = Field(min_length=1)
    labels: dict[str, str] = Field(default_factory=dict)
    pool: str | None = None
    backend: str | None = None
    timeout: Any = None
    groups: tuple[GroupSpec, ...] | None = None
    tasks: tuple[TaskSpec, ...] | None = None
    resources: dict[str, ResourceSpec] | None = None


class Document(_Strict):
    """A whole spec file: ``workflow`` plus, in the design document's spelling, ``resources``."""

    version: int | None = None
    workflow: WorkflowSpec
    resources: dict[str, ResourceSpec] | None = None
