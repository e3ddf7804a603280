"""Differential validation against the real API server (``tests/realkube/diffval``): every input
of the corpus (examples, conformance objects, 2,400 seeded mutations) is dry-run on the server
and read by toposched; they agree on every object, or the difference is one toposched documents
or one ``EXPLAINED`` lists. ``python -m tests.realkube.diffval`` prints the whole report."""

from __future__ import annotations

from tests.realkube.control_plane import ControlPlane
from tests.realkube.diffval.run import MUTATIONS, corpus, run


def test_toposched_and_the_api_server_agree_on_the_corpus(real_apiserver: ControlPlane) -> None:
    inputs = corpus()
    report = run(real_apiserver, inputs)
    assert len(inputs) - MUTATIONS > 500 and len(report.verdicts) == len(inputs)
    counts = report.counts()
    assert sum(n for (_, outcome), n in counts.items() if outcome == "agree-reject") > 1500
    assert sum(n for (_, outcome), n in counts.items() if outcome == "agree-accept") > 250
    assert not report.unexplained, "\n".join(report.lines())
