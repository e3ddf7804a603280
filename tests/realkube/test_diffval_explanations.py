"""The differential validation's explanations cover exactly the differences they name, so a
new defect cannot hide behind one (no server needed: the differences are written out)."""

from __future__ import annotations

from typing import Any

import pytest
from tests.realkube.diffval.compare import Difference
from tests.realkube.diffval.run import EXPLAINED
from tests.realkube.diffval.server import ServerAnswer

JOB: dict[str, Any] = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"}, "spec": {}}
POD: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}}
PRIORITY = (
    'HTTP 403: pods "p" is forbidden: the integer value of priority (100) must not be provided in pod '
    "spec; priority admission controller computed 0 from the given PriorityClass name"
)


def invalid(*fields: str) -> ServerAnswer:
    return ServerAnswer(False, "invalid", frozenset(fields), "invalid")


def decode(*fields: str) -> ServerAnswer:
    return ServerAnswer(False, "decode", frozenset(fields), "cannot be handled as a Job")


def why(difference: Difference) -> list[str]:
    return [e.why.split(":")[0] for e in EXPLAINED if e.covers(difference)]


@pytest.mark.parametrize(
    ("difference", "covered"),
    [
        (Difference("Pod", "unnamed", POD, ServerAnswer(False, "other", frozenset(), PRIORITY)), True),
        (
            Difference(
                "Pod", "unnamed", POD, ServerAnswer(False, "other", frozenset(), "HTTP 403: forbidden")
            ),
            False,
        ),
        (Difference("Pod", "took", POD, ServerAnswer(False, "other", frozenset(), PRIORITY)), False),
        (
            Difference(
                "Job",
                "took",
                JOB,
                invalid("spec.template.spec.containers[0].name"),
                frozenset({"spec.template.spec.containers[0].name"}),
            ),
            True,
        ),
        (
            Difference(
                "Job",
                "took",
                JOB,
                invalid("spec.scheduling.schedulingPolicy"),
                frozenset({"spec.scheduling.schedulingPolicy"}),
            ),
            False,
        ),
        (
            Difference(
                "Job",
                "took",
                JOB,
                invalid("spec.template.spec.tolerations[0].key"),
                frozenset({"spec.template.spec.tolerations[0].key"}),
            ),
            False,
        ),
        (Difference("Job", "took", JOB, invalid("metadata.name"), frozenset({"metadata.name"})), False),
        (
            Difference(
                "Job",
                "fields",
                JOB,
                invalid("spec.selector"),
                frozenset({"spec.selector"}),
                frozenset({"spec.parallelism"}),
            ),
            False,
        ),
        (
            Difference(
                "Job",
                "fields",
                JOB,
                decode("spec.bogus"),
                frozenset({"spec.bogus"}),
                frozenset({"spec.parallelism"}),
            ),
            True,
        ),
        (
            Difference(
                "Job",
                "fields",
                JOB,
                invalid("spec.template.spec.containers"),
                frozenset({"spec.template.spec.containers"}),
                frozenset({"spec.template.spec"}),
            ),
            True,
        ),
        (
            Difference(
                "Job",
                "refused",
                JOB,
                ServerAnswer(True, "valid", frozenset(), ""),
                extra=frozenset({"spec.template"}),
            ),
            False,
        ),
        (
            Difference(
                "Pod", "took", POD, invalid("spec.containers[0].name"), frozenset({"spec.containers[0].name"})
            ),
            False,
        ),
    ],
    ids=[
        "priority-admission",
        "another-403",
        "priority-message-but-toposched-took-it",
        "job-pod-template",
        "job-scheduling-is-read",
        "job-tolerations-are-read",
        "job-name-is-read",
        "job-extra-field-not-above",
        "job-decode-stops-validation",
        "job-same-fault-one-level-up",
        "job-refused-by-toposched-alone",
        "pod-is-no-job",
    ],
)
def test_an_explanation_covers_its_cases_only(difference: Difference, covered: bool) -> None:
    assert bool(why(difference)) is covered
