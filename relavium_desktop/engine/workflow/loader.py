"""Load a workflow: YAML text -> strict models -> resolved agents -> checked plan.

Pure: the caller supplies the text and, for ``$ref`` agents, a reader that
returns another file's text (the CLI/host reads files; the engine never
does).  Every problem becomes an :class:`Issue` at the author's
``file:line:column`` and the whole set is raised together as one
:class:`WorkflowError` before anything runs.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from relavium_desktop.engine.agent.yaml_source import agent_document
from relavium_desktop.engine.workflow.branch_check import branch_bypass_issues
from relavium_desktop.engine.workflow.budget import budget_issues
from relavium_desktop.engine.workflow.errors import Issue, WorkflowError
from relavium_desktop.engine.workflow.models import AgentDef, AgentRef, WorkflowFile
from relavium_desktop.engine.workflow.plan import RunPlan, build_plan
from relavium_desktop.engine.workflow.source import SourceMap, YamlSyntaxError, parse_yaml
from relavium_desktop.engine.workflow.template_check import template_issues

RefReader = Callable[[str], str]


@dataclass(frozen=True, slots=True)
class LoadedWorkflow:
    """A validated workflow, its resolved agents and its run plan."""

    file: WorkflowFile
    agents: dict[str, AgentDef]
    plan: RunPlan
    text: str
    filename: str
    # The text of every $ref agent file read, so a resumed run sees the same agents.
    ref_texts: dict[str, str]

    @property
    def id(self) -> str:
        return self.file.workflow.id


def _message(err: Any) -> str:
    loc = [str(p) for p in err.get("loc", ())]
    kind = err.get("type", "")
    if kind == "extra_forbidden":
        return f"unknown key {loc[-1]!r}"
    if kind == "missing":
        return f"missing required key {loc[-1]!r}"
    if kind == "union_tag_invalid":
        ctx = err.get("ctx", {})
        return f"unknown node type {ctx.get('tag')!r}; expected one of {ctx.get('expected_tags')}"
    if kind == "union_tag_not_found":
        return "a node needs a 'type'"
    msg = str(err.get("msg", "invalid value")).removeprefix("Value error, ")
    return f"{'.'.join(p for p in loc if not p.isdigit()) or 'document'}: {msg}"


def _validation_issues(exc: ValidationError, smap: SourceMap, prefix: tuple[str | int, ...] = ()) -> list[Issue]:
    issues = []
    for err in exc.errors(include_url=False):
        loc = tuple(err.get("loc", ()))
        issues.append(smap.issue(prefix + loc, _message(err)))
    return issues


def _load_agent(path: str, read_ref: RefReader, filename: str) -> AgentDef:
    try:
        text = read_ref(path)
    except Exception as exc:  # noqa: BLE001 - any reader failure is an invalid workflow, named by its ref
        raise WorkflowError(filename, [Issue(f"cannot read agent file {path!r}: {exc}")]) from None
    try:
        data, smap = parse_yaml(text)
    except YamlSyntaxError as exc:
        raise WorkflowError(path, [exc.issue]) from None
    prefix: tuple[str | int, ...] = ()
    if isinstance(data, dict):
        # Flat or wrapped (schema_version + agent:): decided as for `relavium agent run` (one reading).
        doc = agent_document(data)
        shape = [smap.issue(p.loc, p.message) for p in doc.problems]
        if doc.body is None:
            raise WorkflowError(path, shape)
        data, prefix = doc.body, doc.prefix
    else:
        shape = []
    try:
        agent = AgentDef.model_validate(data)
    except ValidationError as exc:
        raise WorkflowError(path, shape + _validation_issues(exc, smap, prefix)) from None
    if shape:
        raise WorkflowError(path, shape)
    return agent


def load_workflow(
    text: str,
    filename: str = "<workflow>",
    *,
    read_ref: RefReader | None = None,
    known_tools: Collection[str] | None = None,
) -> LoadedWorkflow:
    try:
        data, smap = parse_yaml(text)
    except YamlSyntaxError as exc:
        raise WorkflowError(filename, [exc.issue]) from None
    if not isinstance(data, dict):
        raise WorkflowError(filename, [Issue("a workflow file is a mapping with schema_version and workflow", 1, 1)])
    try:
        wf = WorkflowFile.model_validate(data)
    except ValidationError as exc:
        raise WorkflowError(filename, _validation_issues(exc, smap)) from None

    agents: dict[str, AgentDef] = {}
    issues: list[Issue] = []
    ref_texts: dict[str, str] = {}
    placed: list[tuple[int, AgentDef]] = []  # (index in agents:, resolved agent), for the template check
    if read_ref is not None:
        outer = read_ref

        def recording(path: str) -> str:
            ref_texts[path] = outer(path)
            return ref_texts[path]

        read_ref = recording
    for i, entry in enumerate(wf.workflow.agents):
        if isinstance(entry, AgentRef):
            if read_ref is None:
                continue  # resolution deferred: the caller cannot read files
            agent = _load_agent(entry.ref, read_ref, filename)
        else:
            agent = entry
        if agent.id in agents:
            issues.append(smap.issue(("workflow", "agents", i), f"duplicate agent id {agent.id!r}"))
        agents[agent.id] = agent
        placed.append((i, agent))
    refs_unresolved = read_ref is None and any(isinstance(a, AgentRef) for a in wf.workflow.agents)
    plan, graph_issues = build_plan(
        wf, agents, smap, known_tools=known_tools, agents_complete=not refs_unresolved
    )
    issues.extend(graph_issues)
    if not graph_issues:
        issues.extend(branch_bypass_issues(wf.workflow, plan, smap))
    issues.extend(template_issues(wf.workflow, placed, smap))
    issues.extend(budget_issues(wf.workflow, agents, {a.id: i for i, a in placed}, smap))
    if issues:
        raise WorkflowError(filename, issues)
    return LoadedWorkflow(wf, agents, plan, text, filename, ref_texts)
