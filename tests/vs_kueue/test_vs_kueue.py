"""A few generated cases of each profile through Kueue's own manager and through toposched: each
must agree, in placement or in the words of a refusal, or differ only as documented (the full
report is ``python -m tests.vs_kueue``)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from tests.realkube.binaries import find_binaries
from tests.realkube.control_plane import ControlPlane
from tests.vs_kueue.__main__ import case_key
from tests.vs_kueue.cases import PROFILES, generate
from tests.vs_kueue.compare import Verdict
from tests.vs_kueue.manager import KueueBuild, install_kueue_crds, running_manager
from tests.vs_kueue.report import describe
from tests.vs_kueue.runner import ensure_namespaces, run_batch

from toposched.controller.rest import RestKubeApi

pytestmark = [pytest.mark.vs_kueue, pytest.mark.slow]
SEED = 20260
CASES_PER_PROFILE = 8


@pytest.fixture(scope="module")
def kueue_build(real_apiserver: ControlPlane) -> KueueBuild:
    build = KueueBuild.beside(find_binaries().folder)
    missing = build.missing()
    if missing and _ci():
        pytest.fail(f"CI=true and {missing}", pytrace=False)
    if missing:
        pytest.skip(missing)
    install_kueue_crds(real_apiserver, build)
    ensure_namespaces(real_apiserver)
    return build


def _ci() -> bool:
    return os.environ.get("CI") == "true"


@pytest.fixture()
def api(real_apiserver: ControlPlane) -> Iterator[RestKubeApi]:
    client = real_apiserver.admin_api()
    yield client
    client.close()


@pytest.mark.parametrize("profile", PROFILES)
def test_generated_cases_agree(
    real_apiserver: ControlPlane, kueue_build: KueueBuild, api: RestKubeApi, profile: str
) -> None:
    start = PROFILES.index(profile) * CASES_PER_PROFILE
    cases = [(case_key(SEED, i), generate(SEED, i, profile)) for i in range(start, start + CASES_PER_PROFILE)]
    with running_manager(real_apiserver, kueue_build, profile):
        outcomes = run_batch(api, cases)
    assert len(outcomes) == CASES_PER_PROFILE
    # A documented difference carries its explanation; anything else, a placement or the words
    # of a refusal, is a disagreement to fix or explain.
    different = [
        o
        for o in outcomes
        if not o.explanation
        and (o.verdict is Verdict.DIFFERENT or (o.verdict is Verdict.BOTH_REFUSE and not o.same_message))
    ]
    assert not different, "\n".join(
        f"{o.case['id']}: kueue {describe(o.kueue)} / toposched {describe(o.toposched)}" for o in different
    )
