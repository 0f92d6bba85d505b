"""The plan builder phase by phase: each phase's effect on edges, issues and order."""

from __future__ import annotations

from relavium_desktop.engine.workflow.models import WorkflowFile
from relavium_desktop.engine.workflow.plan import DEFAULT_KEY, _PlanBuilder, build_plan, when_key
from relavium_desktop.engine.workflow.source import parse_yaml

HEAD = "schema_version: '1.0'\nworkflow:\n  id: w\n"


def builder(body: str, **kw: object) -> _PlanBuilder:
    data, smap = parse_yaml(HEAD + body)
    wf = WorkflowFile.model_validate(data)
    agents = {a.id: a for a in wf.workflow.agents}  # inline agents only in these tests
    return _PlanBuilder(wf, agents, smap, **kw)  # type: ignore[arg-type]


def edges(b: _PlanBuilder) -> dict[tuple[str, str], object]:
    return {(e.source, e.target): (None if e.keys is None else sorted(e.keys)) for es in b.out_edges.values()
            for e in es}


def messages(b: _PlanBuilder) -> list[str]:
    return [i.message for i in b.issues]


def test_collect_nodes_reports_a_duplicate_id_at_its_line() -> None:
    b = builder("""  nodes:
    - {id: a, type: input}
    - {id: a, type: output}
""")
    b.collect_nodes()
    assert list(b.nodes) == ["a"] and b.index == {"a": 0}
    [issue] = b.issues
    assert "duplicate node id 'a'" in issue.message and issue.line == 6


def test_routing_edges_materialise_branches_defaults_and_parallel_members() -> None:
    b = builder("""  nodes:
    - {id: s, type: input}
    - id: c
      type: condition
      expression: 'inputs.x'
      branches: [{when: true, target_node: yes}, {when: 2, target_node: yes}, {when: 'x', target_node: ghost}]
      default: no
    - {id: p, type: parallel, parallel_of: [yes, no]}
    - {id: yes, type: output}
    - {id: no, type: output}
""")
    b.collect_nodes()
    b.add_routing_edges()
    assert edges(b) == {
        ("c", "yes"): sorted([when_key(True), when_key(2)]),
        ("c", "no"): [DEFAULT_KEY],
        ("p", "yes"): None,
        ("p", "no"): None,
    }
    assert messages(b) == ["branch target 'ghost' is not a node"]


def test_authored_edges_need_handles_only_from_conditions() -> None:
    b = builder("""  nodes:
    - {id: s, type: input}
    - id: c
      type: condition
      expression: 'inputs.x'
      branches: [{when: true, target_node: t}]
    - {id: t, type: output}
    - {id: u, type: output}
  edges: [{from: s, to: c}, {from: c, to: u}, {from: 'c:false', to: u}, {from: 's:true', to: t},
          {from: 'c:true', to: u}, {from: s, to: nowhere}]
""")
    b.collect_nodes()
    b.add_authored_edges()
    assert edges(b) == {("s", "c"): None, ("c", "u"): [when_key(True)]}
    assert messages(b) == [
        "an edge from condition 'c' needs a branch handle (c:<when>)",
        "condition 'c' has no branch 'false'",
        "only condition nodes have branch handles ('s:true')",
        "edge target 'nowhere' is not a node",
    ]


def test_template_edges_order_readers_after_producers_and_block_secret_interpolation() -> None:
    b = builder("""  inputs: [{name: key, type: secret}]
  context: [{key: k, value: '{{ inputs.key }}'}]
  agents: [{id: a, tools: []}]
  nodes:
    - {id: s, type: input}
    - {id: first, type: agent, agent_ref: a, prompt_template: 'hi'}
    - {id: second, type: agent, agent_ref: a, prompt_template: 'after {{ run.outputs["first"] }} {{ ctx.k }}'}
""")
    b.collect_nodes()
    b.add_template_edges()
    assert edges(b) == {("first", "second"): None}
    assert messages(b) == ["node 'second': a secret input may not be interpolated into prompt_template"]


def test_agents_may_only_narrow_and_unknown_tools_are_named() -> None:
    b = builder("""  agents: [{id: a, tools: [read_file]}]
  nodes:
    - {id: s, type: input}
    - {id: n, type: agent, agent_ref: a, tools: [read_file, run_command]}
    - {id: ghost, type: agent, agent_ref: nobody}
    - {id: t, type: tool, tool_config: {tool_name: teleport}}
""", known_tools={"read_file", "run_command"})
    b.collect_nodes()
    b.check_agents_and_tools()
    assert messages(b) == [
        "node 'n' tools may only narrow agent 'a''s tools; not granted to the agent: run_command",
        "agent_ref 'nobody' names no agent in agents",
        "unknown tool 'teleport'",
    ]


def test_edgeless_agent_nodes_are_delegates_only_when_someone_can_invoke() -> None:
    body = """  agents: [{id: lead, tools: [TOOLS]}, {id: helper, tools: []}]
  nodes:
    - {id: s, type: input}
    - {id: boss, type: agent, agent_ref: lead}
    - {id: research, type: agent, agent_ref: helper}
  edges: [{from: s, to: boss}]
"""
    with_invoke = builder(body.replace("TOOLS", "invoke_agent"))
    with_invoke.collect_nodes()
    with_invoke.add_authored_edges()
    with_invoke.check_agents_and_tools()
    assert with_invoke.find_delegates() == frozenset({"research"})
    without = builder(body.replace("TOOLS", "read_file"))
    without.collect_nodes()
    without.add_authored_edges()
    without.check_agents_and_tools()
    assert without.find_delegates() == frozenset()


def test_order_is_kahn_with_authored_ties_and_a_cycle_is_reported() -> None:
    b = builder("""  nodes:
    - {id: s, type: input}
    - {id: z, type: output}
    - {id: a, type: output}
  edges: [{from: s, to: a}, {from: s, to: z}]
""")
    b.collect_nodes()
    b.add_authored_edges()
    assert b.topological_order() == ["s", "z", "a"]  # authored order, not alphabetical

    cyc = builder("""  nodes:
    - {id: s, type: input}
    - {id: a, type: output}
    - {id: b, type: output}
  edges: [{from: s, to: a}, {from: a, to: b}, {from: b, to: a}]
""")
    cyc.collect_nodes()
    cyc.add_authored_edges()
    assert cyc.topological_order() == ["s", "a", "b"]
    assert messages(cyc) == ["cycle: a → b → a"]


def test_unreachable_nodes_are_issues_but_delegates_are_not() -> None:
    b = builder("""  nodes:
    - {id: s, type: input}
    - {id: a, type: output}
    - {id: lost, type: output}
  edges: [{from: s, to: a}]
""")
    b.collect_nodes()
    b.add_authored_edges()
    b.check_reachability()
    assert messages(b) == ["node 'lost' is unreachable from the workflow's input"]


def test_build_plan_runs_every_phase() -> None:
    data, smap = parse_yaml(HEAD + """  nodes:
    - {id: s, type: input}
    - {id: m, type: merge, merge_strategy: concat}
    - {id: p, type: parallel, parallel_of: [x, y]}
    - {id: x, type: output}
    - {id: y, type: output}
  edges: [{from: s, to: p}, {from: x, to: m}, {from: y, to: m}]
""")
    plan, issues = build_plan(WorkflowFile.model_validate(data), {}, smap)
    assert issues == []
    assert plan.order == ["s", "p", "x", "y", "m"]
    assert plan.merge_branches == {"m": ["x", "y"]} and plan.max_parallel == 8
