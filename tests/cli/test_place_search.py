"""``toposched place --search``: the OSMO example faithful refuses and the complete search places,
the contract keys that say so, and a bad mode."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from .conftest import REPO, Invoke
from .test_place import place_json

OSMO = REPO / "examples" / "osmo"
FILES = (
    OSMO / "5-complete-search.workflow.yaml",
    "--pool",
    OSMO / "5-complete-search.pool.yaml",
    "--cluster",
    OSMO / "5-complete-search.cluster.yaml",
)
RACK = {"big-1": "rack-big", "big-2": "rack-big", "big-3": "rack-big", "small-1": "rack-small"}


def test_faithful_refuses_the_one_five_two_workflow(invoke: Invoke) -> None:
    code, doc = place_json(invoke, *FILES, "--search", "faithful")
    assert code == 3
    assert (doc["placed"], doc["search"]) == (False, "faithful")
    assert "workflow-group-c-pair" in doc["reason"]
    assert doc["note"] == "a complete search would place it (--search complete)"


def test_by_default_place_searches_as_the_service_does(invoke: Invoke) -> None:
    """``toposched place`` and the service have one default, the complete search: the workflow
    the service admits is placed without ``--search`` (it was refused: faithful was the CLI's)."""
    code, doc = place_json(invoke, *FILES)
    assert (code, doc["placed"], doc["search"], doc["foundBy"]) == (0, True, "complete", "complete")


def test_complete_places_five_plus_one_and_two(invoke: Invoke) -> None:
    code, doc = place_json(invoke, *FILES, "--search", "complete")
    assert code == 0
    assert (doc["placed"], doc["search"], doc["foundBy"]) == (True, "complete", "complete")
    racks = Counter((pod["name"].rsplit("-", 1)[0], RACK[pod["node"]]) for pod in doc["pods"])
    assert racks == {("single", "rack-big"): 1, ("five", "rack-big"): 5, ("pair", "rack-small"): 2}
    assert doc["note"].startswith("faithful placement failed: topology constraint")
    assert doc["note"].endswith("; complete search placed it")


def test_the_table_says_the_complete_search_placed_it(invoke: Invoke) -> None:
    run = invoke("place", *FILES, "--search", "complete")
    assert run.exit_code == 0
    text = " ".join(run.stdout.split())
    assert "placed 8 pods" in text
    assert "faithful placement failed:" in text and "complete search placed it" in text


def test_complete_keeps_the_faithful_reason_when_nothing_fits(invoke: Invoke, tmp_path: Path) -> None:
    # One GPU less on the small rack: the 2-task subgroup fits nowhere once the others are placed.
    text = (OSMO / "5-complete-search.cluster.yaml").read_text()
    small = text.index("name: small-1")
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(text[:small] + text[small:].replace("nvidia.com/gpu: '2'", "nvidia.com/gpu: '1'", 1))
    args = (*FILES[:3], "--cluster", cluster)
    _, faithful = place_json(invoke, *args, "--search", "faithful")
    code, complete = place_json(invoke, *args)  # complete: the default
    assert code == 3
    assert complete["reason"] == faithful["reason"]
    assert faithful["note"] is None  # nothing to suggest: the complete search finds nothing either
    assert complete["note"].startswith("complete search found no placement either")
    assert complete["explanation"]["budgetExhausted"] is False


def test_an_unknown_mode_is_invalid_input(invoke: Invoke) -> None:
    run = invoke("place", *FILES, "--search", "thorough")
    assert run.exit_code == 2
    assert "--search" in run.stderr and "faithful, complete" in run.stderr


def test_serve_refuses_an_unknown_mode(invoke: Invoke, tmp_path: Path) -> None:
    run = invoke("serve", "--search", "thorough", "--db", tmp_path / "t.db")
    assert run.exit_code == 2
    assert "--search" in run.stderr
    assert not (tmp_path / "t.db").exists()


def test_serve_refuses_a_round_share_of_no_time(invoke: Invoke, tmp_path: Path) -> None:
    run = invoke("serve", "--round-seconds", "0", "--db", tmp_path / "t.db")
    assert run.exit_code == 2
    assert "round_seconds" in run.stderr and "above 0" in run.stderr
    assert not (tmp_path / "t.db").exists()
