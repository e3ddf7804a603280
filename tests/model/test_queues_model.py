"""Scheduling queues: each bad field is a typed error naming it, the tree is checked whole, and a
gang goes to the queue its input names (``QueueTree.queue_of``)."""

from __future__ import annotations

from typing import Any

import pytest

from toposched.model import (
    DEFAULT_QUEUE,
    Gang,
    Group,
    Queue,
    QueueKind,
    QueuePreemption,
    QueueTree,
    SchedulingQueue,
    SpecError,
)

GPU = "nvidia.com/gpu"


def queue(name: str, **fields: Any) -> SchedulingQueue:
    return SchedulingQueue.parse({"name": name, **fields})


def test_a_full_spec_reads_back_the_same() -> None:
    spec = {
        "name": "team-a",
        "parent": "research",
        "guaranteed": {GPU: 8, "cpu": "500m", "memory": "16Gi"},
        "limit": {GPU: 16},
        "weight": 2,
        "preemption": "lowerPriority",
        "defaultRunSeconds": 3600,
        "localQueues": ["team-a/default"],
    }
    parsed = SchedulingQueue.parse(spec)
    assert dict(parsed.guaranteed) == {GPU: 8, "cpu": 500, "memory": 16 * 2**30}
    assert parsed.limit_of(GPU) == 16 and parsed.limit_of("cpu") is None
    assert parsed.weight == 2.0 and parsed.preemption is QueuePreemption.LOWER_PRIORITY
    assert SchedulingQueue.parse(parsed.to_json()) == parsed


def test_defaults() -> None:
    parsed = queue("q")
    assert parsed.parent is None and parsed.weight == 1.0 and not parsed.guaranteed and parsed.limit == ()
    assert parsed.preemption is QueuePreemption.RECLAIM_BORROWED and parsed.default_run_seconds is None


def test_a_limit_of_zero_is_kept() -> None:
    assert queue("q", limit={GPU: 0}).limit_of(GPU) == 0


@pytest.mark.parametrize(
    ("fields", "path"),
    [
        ({"name": "Team_A"}, "queue.name"),
        ({"name": "x" * 64}, "queue.name"),
        ({"name": "q", "parent": "q"}, "queue.parent"),
        ({"name": "q", "guaranteed": {GPU: "lots"}}, f"queue.guaranteed.{GPU}"),
        ({"name": "q", "guaranteed": {GPU: -1}}, f"queue.guaranteed.{GPU}"),
        ({"name": "q", "guaranteed": [8]}, "queue.guaranteed"),
        ({"name": "q", "guaranteed": {"not a resource!": 1}}, "queue.guaranteed.not a resource!"),
        ({"name": "q", "guaranteed": {f"r{i}": 1 for i in range(40)}}, "queue.guaranteed"),
        ({"name": "q", "guaranteed": {GPU: 8}, "limit": {GPU: 4}}, f"queue.limit.{GPU}"),
        ({"name": "q", "weight": 0}, "queue.weight"),
        ({"name": "q", "weight": "heavy"}, "queue.weight"),
        ({"name": "q", "weight": float("nan")}, "queue.weight"),
        ({"name": "q", "preemption": "always"}, "queue.preemption"),
        ({"name": "q", "defaultRunSeconds": -5}, "queue.defaultRunSeconds"),
        ({"name": "q", "localQueues": "ns/lq"}, "queue.localQueues"),
        ({"name": "q", "localQueues": ["lq"]}, "queue.localQueues[0]"),
        ({"name": "q", "localQueues": ["NS/lq"]}, "queue.localQueues[0]"),
        ({"name": "q", "localQueues": [f"ns/q{i}" for i in range(1001)]}, "queue.localQueues"),
        ({"name": "q", "nominalQuota": 1}, "queue.nominalQuota"),
    ],
    ids=lambda v: v if isinstance(v, str) else None,
)
def test_a_bad_field_is_a_spec_error_naming_it(fields: dict[str, Any], path: str) -> None:
    with pytest.raises(SpecError) as caught:
        SchedulingQueue.parse(fields)
    assert [p.path for p in caught.value.problems] == [path]
    assert all(p.hint for p in caught.value.problems)


def test_not_a_mapping() -> None:
    with pytest.raises(SpecError) as caught:
        SchedulingQueue.parse(["q"])
    assert caught.value.problems[0].path == "queue"


def test_every_problem_is_reported_at_once() -> None:
    with pytest.raises(SpecError) as caught:
        SchedulingQueue.parse({"name": "Q", "weight": -1, "preemption": "x"})
    assert {p.path for p in caught.value.problems} == {"queue.name", "queue.weight", "queue.preemption"}


def test_the_tree_always_has_default() -> None:
    tree = QueueTree.of([])
    assert list(tree.queues) == [DEFAULT_QUEUE] and not tree.queues[DEFAULT_QUEUE].resources


@pytest.mark.parametrize(
    ("queues", "path", "says"),
    [
        ([queue("a", parent="nope")], "queues.a.parent", "does not exist"),
        ([queue("a", parent="b"), queue("b", parent="a")], "queues.a.parent", "cycle"),
        (
            [queue(f"q{i}", parent=f"q{i + 1}") for i in range(9)] + [queue("q9")],
            "queues.q0.parent",
            "levels deep",
        ),
        (
            [queue("a", localQueues=["ns/lq"]), queue("b", localQueues=["ns/lq"])],
            "queues.b.localQueues",
            "feeds queue 'a'",
        ),
    ],
    ids=["unknown-parent", "cycle", "too-deep", "local-queue-twice"],
)
def test_a_broken_tree_is_a_spec_error(queues: list[SchedulingQueue], path: str, says: str) -> None:
    with pytest.raises(SpecError) as caught:
        QueueTree.of(queues)
    assert any(p.path == path and says in p.message for p in caught.value.problems)


def test_a_parent_cannot_go_while_it_has_children() -> None:
    tree = QueueTree.of([queue("org"), queue("a", parent="org")])
    with pytest.raises(SpecError):
        tree.without("org")
    assert DEFAULT_QUEUE in tree.without("a").queues and "a" not in tree.without("a").queues


def gang(named: Queue | None, namespace: str = "team-a") -> Gang:
    return Gang("g", Group("main"), namespace=namespace, queue=named)


TREE = QueueTree.of(
    [
        queue("research"),
        queue("team-a", parent="research", localQueues=["team-a/user-queue", "team-b/shared"]),
        queue("user-queue"),
        queue("kai-q"),
    ]
)


@pytest.mark.parametrize(
    ("named", "namespace", "expected"),
    [
        (Queue("kai-q", QueueKind.KAI), "any", "kai-q"),
        (Queue("missing", QueueKind.KAI), "any", DEFAULT_QUEUE),
        (Queue("user-queue", QueueKind.KUEUE), "team-a", "team-a"),  # listed by team-a
        (Queue("shared", QueueKind.KUEUE), "team-b", "team-a"),
        (Queue("user-queue", QueueKind.KUEUE), "team-c", "user-queue"),  # not listed: by its name
        (Queue("shared", QueueKind.KUEUE), "team-c", DEFAULT_QUEUE),
        (None, "any", DEFAULT_QUEUE),
    ],
    ids=[
        "kai",
        "kai-unknown",
        "local-listed",
        "local-listed-other-ns",
        "local-by-name",
        "local-unknown",
        "none",
    ],
)
def test_queue_of_a_gang(named: Queue | None, namespace: str, expected: str) -> None:
    assert TREE.queue_of(gang(named, namespace)) == expected


def test_paths_and_subtrees() -> None:
    assert [q.name for q in TREE.path("team-a")] == ["team-a", "research"]
    assert sorted(TREE.subtree("research")) == ["research", "team-a"]
    assert TREE.top("team-a") == "research"
