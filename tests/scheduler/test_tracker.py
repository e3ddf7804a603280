"""The node clocks of ``Tracker``: observing the same node value again changes nothing, and a
change made by name (a deletion, an event replayed) is never hidden by it."""

from __future__ import annotations

from dataclasses import replace

from toposched.model import Node, Resources, Taint, TaintEffect
from toposched.scheduler.tracker import Tracker

NODE = Node("n1", {}, Resources({"nvidia.com/gpu": 4}), ready=False)


def test_the_same_node_observed_again_keeps_its_start_time() -> None:
    tracker = Tracker()
    tracker.observe_node(NODE, 1.0)
    tracker.observe_node(NODE, 5.0)
    assert tracker.not_ready_since("n1", 9.0) == 1.0


def test_a_change_by_name_between_two_observations_is_seen() -> None:
    tracker = Tracker()
    tracker.observe_node(NODE, 1.0)
    tracker.observe("n1", None, (), 2.0)  # deleted
    tracker.observe_node(NODE, 3.0)  # back, still NotReady
    assert tracker.not_ready_since("n1", 9.0) == 3.0


def test_a_changed_node_value_is_observed() -> None:
    tracker = Tracker()
    taint = Taint("gpu-broken", "", TaintEffect.NO_SCHEDULE)
    tracker.observe_node(NODE, 1.0)
    tracker.observe_node(replace(NODE, ready=True, taints=(taint,)), 2.0)
    assert tracker.not_ready_since("n1", 9.0) == 9.0
    assert tracker.taint_since("n1", taint, 9.0) == 2.0
