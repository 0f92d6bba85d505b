"""Which human gates vouch for a node that needs a person's approval (``gateApproved``).

A tool that requires gate approval (``git_commit``) may run in a tool node
only when a *person* approved a human gate on *every* path from the start of
the run to that node:

* a gate answered by its ``timeout_action: approve`` lets the run go on, but
  nobody decided anything, so it vouches for nothing downstream;
* a gate on a sibling branch does not vouch for a node reachable without it:
  the check is dominance on the run graph, not "some gate upstream".

At run time the walk follows only the edges that carried control in this run
(a branch not taken cannot reach the node), so one person-approved gate per
live path is enough.  At load time the same walk over every edge, treating
every ``human_gate`` as a possible approval, finds layouts where no gate can
ever dominate the node, so ``relavium validate`` reports them before a run.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from relavium_desktop.engine.workflow.plan import PlanEdge

# Who a GateDecision says decided it: these are people (the app's dialog or
# panel, a notification button, ``relavium run --resume --decision``, and
# the engine API's default).  Anything else -- "timeout" above all -- is not.
HUMAN_DECIDERS: frozenset[str] = frozenset({"user", "desktop", "notification", "cli"})


def decided_by_person(decided_by: str) -> bool:
    """True when a gate answer came from a person (an allowlist: unknown deciders are not people)."""
    return decided_by in HUMAN_DECIDERS


def ungated_path(
    in_edges: Mapping[str, Sequence[PlanEdge]],
    node_id: str,
    gates: Collection[str],
    *,
    live: Callable[[PlanEdge], bool] = lambda _e: True,
    excluded: Collection[str] = (),
) -> list[str] | None:
    """A path from a root to ``node_id`` over ``live`` edges that passes none of ``gates``, or None.

    Only the edges that decide whether a node runs are walked (a template
    read is not one, see :func:`_deciding`).  A root is a node without
    in-edges (the run's entry).  ``excluded`` nodes
    (invoke_agent delegates) are never entries.  Breadth-first from the node
    backwards, so the path reported is a shortest one.
    """
    parent: dict[str, str] = {}
    seen = {node_id}
    queue = [node_id]
    while queue:
        current = queue.pop(0)
        deciding = _deciding(in_edges.get(current, ()))
        if not deciding and current not in excluded:
            path = [current]
            while path[-1] != node_id:
                path.append(parent[path[-1]])
            return path
        for edge in deciding:
            source = edge.source
            if not live(edge) or source in gates or source in seen:
                continue
            seen.add(source)
            parent[source] = current
            queue.append(source)
    return None


def _deciding(edges: Sequence[PlanEdge]) -> Sequence[PlanEdge]:
    """The in-edges that decide whether a node runs, as the scheduler reads them.

    An edge only a template implies (``data``) orders two nodes but does not
    route control, unless a node has no other in-edge; a path of control is
    what a gate must lie on.
    """
    control = [e for e in edges if not getattr(e, "data", False)]
    return control or edges


def gate_refusal(
    in_edges: Mapping[str, Sequence[PlanEdge]],
    node_id: str,
    *,
    person_approved: Collection[str],
    timeout_approved: Collection[str],
    live: Callable[[PlanEdge], bool],
) -> str | None:
    """Why ``node_id`` is not vouched for by a person's gate approval, or None when it is."""
    path = ungated_path(in_edges, node_id, person_approved, live=live)
    if path is None:
        return None
    route = " → ".join(path)
    timed = [n for n in path if n in timeout_approved]
    if timed:
        return (
            f"gate {timed[-1]!r} was approved by its timeout, not by a person, and a gate approved by "
            f"timeout never counts (path {route})"
        )
    return f"no human gate a person approved in this run lies on the path {route}"


def layout_problem(
    in_edges: Mapping[str, Sequence[PlanEdge]],
    node_id: str,
    gate_nodes: Collection[str],
    delegates: Collection[str],
) -> str | None:
    """At load: the path on which no human gate can vouch for ``node_id``, or None when gates dominate it."""
    path = ungated_path(in_edges, node_id, gate_nodes, excluded=delegates)
    return None if path is None else " → ".join(path)
