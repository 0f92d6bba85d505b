"""Template faults found before a run, at the author's line:column.

Everything a ``{{ }}`` site can fail on that does not depend on run-time
values is checked here, so ``relavium validate`` reports it instead of a run
failing midway:

* a reference to an input the workflow does not declare, a context key it
  does not define (or, in a context value, one defined only later), or a node
  it does not have;
* ``length`` or ``read_file`` applied to a number or boolean input;
* the ``read_file`` filter where no file reader exists at run time (a human
  gate's ``message_template`` and ``assignee``: a gate's text is shown to a
  person, it does not read files);
* an agent's ``system_prompt`` reading ``run.outputs`` (an agent serves many
  nodes; a node's own ``prompt_template`` or ``system_prompt_append`` reads
  outputs) or a secret input, directly or through a context entry.

What can still fail at run time (``length`` of a number, ``read_file`` of a
missing file) fails its node with ``node:failed`` and the run with
``run:failed``.
"""

from __future__ import annotations

from collections.abc import Iterable

from relavium_desktop.engine.workflow.errors import Issue, TemplateError
from relavium_desktop.engine.workflow.models import (
    AgentDef,
    AgentNode,
    HumanGateNode,
    ToolNode,
    WorkflowBody,
)
from relavium_desktop.engine.workflow.source import SourceMap
from relavium_desktop.engine.workflow.templates import Site, sites_in

Path = tuple[str | int, ...]

# Template fields with no file reader at run time.
_NO_READER = frozenset({"message_template", "assignee"})


class _Checker:
    def __init__(self, body: WorkflowBody, smap: SourceMap) -> None:
        self.body = body
        self.smap = smap
        self.inputs = {i.name for i in body.inputs}
        self.input_types = {i.name: i.type for i in body.inputs}
        self.secret_inputs = {i.name for i in body.inputs if i.type == "secret"}
        self.ctx_keys = {c.key for c in body.context}
        self.node_ids = {n.id for n in body.nodes}
        self.issues: list[Issue] = []
        self.tainted_ctx: set[str] = set()

    def issue(self, path: Path, message: str) -> None:
        self.issues.append(self.smap.issue(path, message))

    def parse(self, path: Path, value: object, what: str) -> list[Site]:
        try:
            return sites_in(value)
        except TemplateError as exc:
            self.issue(path, f"{what}: {exc.message}")
            return []

    def check_refs(
        self, path: Path, found: Iterable[Site], what: str, *, ctx_keys: set[str] | None = None
    ) -> None:
        known_ctx = self.ctx_keys if ctx_keys is None else ctx_keys
        for site in found:
            head, rest = site.ref[0], site.ref[1:]
            if head == "inputs" and str(rest[0]) not in self.inputs:
                declared = ", ".join(sorted(self.inputs)) or "none"
                self.issue(path, f"{what} reads inputs.{rest[0]}, but the workflow declares no such input "
                                 f"(declared: {declared})")
            elif head == "ctx" and str(rest[0]) not in known_ctx:
                later = str(rest[0]) in self.ctx_keys
                self.issue(path, f"{what} reads ctx.{rest[0]}, " + (
                    "which is defined only after it (context entries are evaluated in order)" if later
                    else "but the workflow's context defines no such key"))
            elif site.output_node is not None and site.output_node not in self.node_ids:
                self.issue(path, f"{what} reads run.outputs[{site.output_node!r}], but there is no such node")
            elif head == "inputs" and len(rest) == 1 and site.filters:
                self.check_scalar_filters(path, site, what)

    def check_scalar_filters(self, path: Path, site: Site, what: str) -> None:
        """``length`` or ``read_file`` first applied to a number or boolean input fails whenever it has a value."""
        kind = self.input_types.get(str(site.ref[1]))
        first = site.filters[0].name
        if kind in ("number", "boolean") and first in ("length", "read_file"):
            need = "a string, list or object" if first == "length" else "a file path string"
            self.issue(path, f"{what} applies {first} to inputs.{site.ref[1]}, a {kind} input; {first} needs {need}")

    def context(self) -> None:
        seen: set[str] = set()
        for c, entry in enumerate(self.body.context):
            path: Path = ("workflow", "context", c, "value")
            try:
                found = sites_in(entry.value)
            except TemplateError:  # a syntax fault is reported by the plan
                seen.add(entry.key)
                continue
            # run.outputs in a context value is reported by the plan.
            self.check_refs(path, [s for s in found if s.ref[0] != "run"], f"context {entry.key!r}", ctx_keys=seen)
            if any(self._secret(s) for s in found):
                self.tainted_ctx.add(entry.key)
            seen.add(entry.key)

    def _secret(self, site: Site) -> bool:
        name = str(site.ref[1]) if len(site.ref) > 1 else ""
        return (site.ref[0] == "inputs" and name in self.secret_inputs) or (
            site.ref[0] == "ctx" and name in self.tainted_ctx)

    def nodes(self) -> None:
        for i, node in enumerate(self.body.nodes):
            fields: list[tuple[str, object]] = []
            if isinstance(node, AgentNode):
                fields = [("prompt_template", node.prompt_template),
                          ("system_prompt_append", node.system_prompt_append)]
            elif isinstance(node, HumanGateNode):
                fields = [("message_template", node.message_template), ("assignee", node.assignee)]
            elif isinstance(node, ToolNode):
                fields = [("input_mapping", node.tool_config.input_mapping)]
            for name, value in fields:
                path: Path = ("workflow", "nodes", i, *(("tool_config",) if name == "input_mapping" else ()), name)
                try:
                    found = sites_in(value)
                except TemplateError:
                    continue  # a syntax fault is reported by the plan
                what = f"node {node.id!r} {name}"
                self.check_refs(path, found, what)
                if name in _NO_READER and any(f.name == "read_file" for s in found for f in s.filters):
                    self.issue(path, f"{what} uses the read_file filter, which a human gate's text cannot use "
                                     "(read the file in a context entry and use {{ ctx.<key> }})")

    def agents(self, agents: Iterable[tuple[int, AgentDef]]) -> None:
        """``agents``: (index in ``agents:``, resolved agent), inline or from a ``$ref`` file."""
        for index, agent in agents:
            agent_id = agent.id
            inline = isinstance(self.body.agents[index], AgentDef)
            path: Path = ("workflow", "agents", index, "system_prompt") if inline else ("workflow", "agents", index)
            what = f"agent {agent_id!r} system_prompt"
            found = self.parse(path, agent.system_prompt, what)
            self.check_refs(path, [s for s in found if s.ref[0] != "run"], what)
            if any(s.output_node is not None or s.ref[:2] == ("run", "outputs") for s in found):
                self.issue(path, f"{what} reads run.outputs; an agent's system_prompt sees inputs and ctx only "
                                 "(read node outputs in the node's prompt_template or system_prompt_append)")
            if any(self._secret(s) for s in found):
                self.issue(path, f"{what}: a secret input may not be interpolated into agent text")


def template_issues(body: WorkflowBody, agents: Iterable[tuple[int, AgentDef]], smap: SourceMap) -> list[Issue]:
    """Every template fault that validation can see, at its line:column."""
    checker = _Checker(body, smap)
    checker.context()
    checker.nodes()
    checker.agents(agents)
    return checker.issues
