"""Gate dominance on a plan: which layouts let a person's gate approval vouch for a node."""

from __future__ import annotations

from dataclasses import dataclass

from relavium_desktop.engine.workflow.gates import decided_by_person, gate_refusal, ungated_path
from tests.engine.workflow.wfhelpers import load

HEAD = "schema_version: '1.0'\nworkflow:\n  id: w\n"

# s -> g1 -> a -> join;  s -> g2 -> b -> join;  join -> t (a transform; dominance is about layout)
DIAMOND = (
    HEAD
    + """  nodes:
    - {id: s, type: input}
    - {id: g1, type: human_gate}
    - {id: g2, type: human_gate}
    - {id: a, type: transform, transform: '1'}
    - {id: b, type: transform, transform: '2'}
    - {id: join, type: merge, merge_strategy: concat}
    - {id: t, type: transform, transform: '3'}
  edges: [{from: s, to: g1}, {from: s, to: g2}, {from: g1, to: a}, {from: g2, to: b},
          {from: a, to: join}, {from: b, to: join}, {from: join, to: t}]
"""
)


def test_one_gate_per_path_dominates_and_one_branch_alone_does_not() -> None:
    plan = load(DIAMOND).plan
    assert ungated_path(plan.in_edges, "t", {"g1", "g2"}) is None
    assert ungated_path(plan.in_edges, "t", {"g1"}) == ["s", "g2", "b", "join", "t"]
    assert ungated_path(plan.in_edges, "a", {"g1"}) is None  # g1 is on a's only path
    assert ungated_path(plan.in_edges, "s", {"g1", "g2"}) == ["s"]  # an entry is never vouched for


def test_a_dead_edge_carries_no_path_at_run_time() -> None:
    plan = load(DIAMOND).plan
    # The g2 branch did not run in this run: only g1's path reached the join.
    dead = {("s", "g2")}
    assert ungated_path(plan.in_edges, "t", {"g1"}, live=lambda e: (e.source, e.target) not in dead) is None


def test_the_refusal_names_the_gate_approved_by_timeout_on_the_open_path() -> None:
    plan = load(DIAMOND).plan
    why = gate_refusal(
        plan.in_edges, "t", person_approved={"g1"}, timeout_approved={"g2"}, live=lambda _e: True
    )
    assert why is not None and "gate 'g2' was approved by its timeout, not by a person" in why
    why = gate_refusal(
        plan.in_edges, "t", person_approved=set(), timeout_approved=set(), live=lambda _e: True
    )
    assert why is not None and "no human gate a person approved" in why
    assert (
        gate_refusal(
            plan.in_edges, "t", person_approved={"g1", "g2"}, timeout_approved=set(), live=lambda _e: True
        )
        is None
    )


def test_only_named_people_count_as_deciders() -> None:
    assert all(decided_by_person(d) for d in ("user", "desktop", "notification", "cli"))
    assert not any(decided_by_person(d) for d in ("timeout", "", "scheduler", "Timeout"))


@dataclass
class Edge:
    """A plan edge as the scheduler sees it; ``data``: only a template read implies it."""

    source: str
    target: str
    data: bool = False


def test_a_template_read_of_a_node_before_the_gate_is_no_path_around_it() -> None:
    # draft -> gate -> commit routes control; commit's message template reads draft's output.
    edges = {
        "draft": [],
        "gate": [Edge("draft", "gate")],
        "commit": [Edge("gate", "commit"), Edge("draft", "commit", data=True)],
    }
    assert ungated_path(edges, "commit", {"gate"}) is None  # type: ignore[arg-type]
    # A node whose only in-edges are template reads runs when a producer ran: those reads then route it.
    edges["commit"] = [Edge("draft", "commit", data=True)]
    assert ungated_path(edges, "commit", {"gate"}) == ["draft", "commit"]  # type: ignore[arg-type]
