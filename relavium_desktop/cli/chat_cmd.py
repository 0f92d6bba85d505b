"""``relavium chat``: an interactive REPL over a persistent chat session.

Reads one message per line from stdin (a terminal or a pipe), streams the
reply, and asks ``y/n/always`` on the terminal before governed actions as the
mode requires (new sessions: "Ask before acting").  ``--session ID``
resumes a stored session: its history is sent to the provider as stored.
REPL commands: ``/mode MODE``, ``/rename TITLE``, ``/exit``.  ``--mode``
and ``/mode`` take every id :func:`parse_mode` accepts, including the
upstream ``ask`` and ``plan`` (both Read-only).  ``--list``, ``--rename ID --title T`` and ``--delete ID``
manage stored sessions without starting a REPL.
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import sys
import time
from typing import Any

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from relavium_desktop.cli.agent_common import (
    UsageTally,
    add_common,
    describe_error,
    policy_of,
    providers_of,
    tool_config_of,
    workspace_of,
)
from relavium_desktop.cli.jsonargs import print_json
from relavium_desktop.engine.agent.mode_ids import (
    ACCEPTED_MODE_IDS,
    DEFAULT_MODE,
    MODE_ALIASES,
    MODE_DESCRIPTIONS,
    MODE_IDS,
    MODE_TITLES,
    ChatMode,
    parse_mode,
)
from relavium_desktop.engine.display_text import (
    MARKERS_NOTICE,
    Shown,
    kinds_sentence,
    show,
    show_line,
    show_value,
    target_kinds,
)
from relavium_desktop.engine.tools.masking import mask_text
from relavium_desktop.services import AgentFileError, load_agent

MODES = ACCEPTED_MODE_IDS


def _mode_arg(text: str) -> ChatMode:
    """``--mode``'s type: parse_mode's own message (it lists the ids) instead of argparse's generic one."""
    try:
        return parse_mode(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def modes_help() -> str:
    """Each mode's id, title and one-line description: what ``relavium chat --help`` and ``/mode`` show."""
    width = max(len(m) for m in MODE_IDS)
    lines = [f"  {mode.value:<{width}}  {MODE_TITLES[mode]}: {MODE_DESCRIPTIONS[mode]}" for mode in ChatMode]
    aliases = ", ".join(f"{alias} = {target.value}" for alias, target in MODE_ALIASES.items())
    return "\n".join([*lines, f"  (also accepted: {aliases})"])


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.formatter_class = argparse.RawDescriptionHelpFormatter  # keep the mode table's lines
    p.epilog = "modes:\n" + modes_help()
    p.add_argument("--agent", metavar="AGENT.yaml", help="agent file (default: a built-in chat agent)")
    p.add_argument("--session", metavar="ID", help="resume a stored session")
    p.add_argument("--mode", type=_mode_arg, metavar="MODE", default=None,
                   help=f"approval mode, see below (new sessions: {DEFAULT_MODE.value})")
    p.add_argument("--list", action="store_true", help="list stored sessions")
    p.add_argument("--rename", metavar="ID", help="rename a stored session (with --title)")
    p.add_argument("--title", help="the new title for --rename")
    p.add_argument("--delete", metavar="ID", help="delete a stored session")
    add_common(p)
    p.add_argument("--tool-config", metavar="JSON|@FILE",
                   help='per-tool parameters, e.g. {"web_search": {"parameters": {"provider": "searxng", '
                        '"baseUrl": "https://search.example"}}} (as Settings -> Chat tools)')
    p.add_argument("--json", action="store_true", help="JSON output for --list/--rename/--delete")


def _store() -> object:
    from relavium_desktop.services import session_store

    return session_store()


def _discard_spills(session_id: str) -> None:
    """A deleted session's spilled tool output goes with it."""
    from relavium_desktop.host.datadir import data_dir
    from relavium_desktop.host.output_store import remove_chat_spills

    remove_chat_spills(data_dir(), session_id)


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.cli.settings_notices import say_all
    from relavium_desktop.host.datadir import data_dir as _home

    say_all(_home(), as_json=bool(getattr(args, "json", False)))  # a settings file running on its .bak is said before anything else
    from relavium_desktop.store.sessions import SqliteSessionStore

    store = _store()
    assert isinstance(store, SqliteSessionStore)
    if args.list:
        sessions = [s.to_json() for s in store.list_sessions()]
        if args.json:
            print_json(sessions)
        else:
            for s in sessions:
                print(f"{s['id']}  {s['mode']:<12}  {s['messageCount']:>4} msgs  {_shown(show(s['title']))}")
        return EXIT_OK
    if args.rename or args.delete:
        if args.rename and not args.title:
            raise UsageError("--rename needs --title")
        ok = store.rename(args.rename, args.title) if args.rename else store.delete(args.delete)
        if args.delete:
            _discard_spills(args.delete)
        if args.json:
            print_json({"ok": ok})
        elif not ok:
            print("relavium chat: no such session", file=sys.stderr)
        return EXIT_OK if ok else EXIT_FAILED
    try:
        spec = load_agent(args.agent)
    except AgentFileError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    tool_configs = _checked_tool_configs(args, spec)
    return asyncio.run(_repl(args, spec, store, tool_configs))


def _checked_tool_configs(args: argparse.Namespace, spec: object) -> object:
    """``--tool-config`` and the agent's own tool_config, refused before a session is created."""
    from relavium_desktop.engine.agent.spec import AgentSpec
    from relavium_desktop.engine.agent.tool_config import parameter_problems
    from relavium_desktop.services import tool_registry

    assert isinstance(spec, AgentSpec)
    lookup = tool_registry().get
    problems = parameter_problems(spec.tool_config, lookup)
    if problems:
        where = args.agent or "agent"
        raise UsageError(f"{where}: tool_config.{'.'.join(problems[0].path)}: {problems[0].message}")
    return tool_config_of(args.tool_config, lookup, policy_of(args.policy).allowed_env or ())


async def _readline() -> str | None:
    line = await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
    return line if line else None


def _say(text: str = "", end: str = "\n") -> None:
    sys.stdout.write(text + end)
    sys.stdout.flush()


async def _confirm(request: object) -> object:
    from relavium_desktop.engine.tools.tooldef import ApprovalDecision, ApprovalRequest

    assert isinstance(request, ApprovalRequest)
    flag = " [protected path]" if request.protected_path else ""
    # The model wrote the target and the arguments: masked, then shown by the display rule, so an
    # escape sequence cannot rewrite this line and a bidi override cannot turn .sh into .jpg.
    target = show(mask_text(request.target))
    _say(f"\n? allow {show_line(request.tool_id)} ({request.action_class}){flag}: {_shown(target)}")
    notes = [kinds_sentence(target_kinds(request.target))] if str(request.action_class) in ("fs_write", "read") else []
    notes += [MARKERS_NOTICE] if target.changed else []
    notes += [f"Look-alike letters: {w}." for w in target.warnings]
    for note in filter(None, notes):
        _say(f"  ! {note}")
    _say(f"  arguments: {_shown(show_value(request.masked_args, 'line'))}")
    _say("  [y]es once / [n]o / [a]lways this session > ", end="")
    answer = ((await _readline()) or "").strip().lower()
    if answer in ("a", "always"):
        return ApprovalDecision(approved=True, scope="session")
    if answer in ("y", "yes"):
        return ApprovalDecision(approved=True, scope="once")
    return ApprovalDecision(approved=False, reason="the user said no")


async def _repl(args: argparse.Namespace, spec: object, store: object, tool_configs: object) -> int:
    from relavium_desktop.engine.agent.spec import AgentSpec
    from relavium_desktop.engine.events import EventBus
    from relavium_desktop.host.fs.inside import inside_workspace
    from relavium_desktop.host.output_store import chat_spill_scope
    from relavium_desktop.services import add_mcp_tools, cli_mcp_hooks, surface_host, tool_registry
    from relavium_desktop.store.sessions import SqliteSessionStore

    assert isinstance(spec, AgentSpec) and isinstance(store, SqliteSessionStore)
    if args.session:
        info = store.get(args.session)
        if info is None:
            print(f"relavium chat: no session {args.session!r}; see 'relavium chat --list'", file=sys.stderr)
            return EXIT_FAILED
    else:
        info = store.create(title="New chat", agent_id=spec.id, mode=str(args.mode or DEFAULT_MODE))
    mode = args.mode or _stored_mode(info.mode)
    store.set_mode(info.id, str(mode))
    workspace = workspace_of(args.workspace)
    host = surface_host(workspace, surface="chat", run_id=chat_spill_scope(info.id),
                        mcp_hooks=cli_mcp_hooks((), project=workspace), mcp_roots=(workspace,))
    # "Auto-approve edits" approves only writes this predicate places inside the project.
    in_project = functools.partial(inside_workspace, workspace)
    bus = EventBus(clock=time.time, session_id=info.id)
    bus.subscribe(_render)
    bus.subscribe(functools.partial(_provider_status, UsageTally()))
    registry = tool_registry(host)
    # The user's MCP servers (mcp.yaml) join the chat as mcp_<server>_<tool>, as in the app;
    # the built-in agent is offered them, an agent file keeps its own list.
    before = set(registry.ids())
    for problem in await add_mcp_tools(registry, _configured_servers(host)):
        _say(f"relavium chat: {problem}")
    if args.agent is None:
        spec = spec.model_copy(update={"tools": [*spec.tools, *sorted(set(registry.ids()) - before)]})
    try:
        return await _converse(args, spec=spec, store=store, info=info, mode=mode, registry=registry, bus=bus,
                               in_project=in_project, tool_configs=tool_configs)
    finally:
        aclose = getattr(host.mcp, "aclose", None)
        if aclose is not None:
            await aclose()


def _configured_servers(host: object) -> list[str]:
    """The servers in the user's mcp.yaml; none when it is missing or broken (discovery would say why)."""
    names = getattr(getattr(host, "mcp", None), "server_names", None)
    try:
        return list(names()) if names is not None else []
    except Exception:  # noqa: BLE001 -- McpConfigError: MCP tools stay off, the chat works
        _say("relavium chat: mcp.yaml is not usable; MCP tools are off (relavium tools list says why)")
        return []


async def _converse(args: argparse.Namespace, *, spec: Any, store: Any, info: Any, mode: ChatMode,
                    registry: Any, bus: Any, in_project: Any, tool_configs: object) -> int:
    """The conversation itself, once the session, its host and its tools are ready."""
    from relavium_desktop.engine.agent.chat import ChatSession
    from relavium_desktop.engine.agent.modes import SessionApprovals, offered_tools
    from relavium_desktop.engine.agent.session import title_from
    from relavium_desktop.engine.llm.messages import Message

    session = ChatSession(
        session_id=info.id, spec=spec, providers=providers_of(args.providers),
        registry=registry, store=store,
        approvals=SessionApprovals(mode, _confirm, in_project=in_project),  # type: ignore[arg-type]
        emit=bus.emit, policy=policy_of(args.policy),
        offered_tools=offered_tools(spec.tools, mode, registry),
        tool_configs=tool_configs,  # type: ignore[arg-type]
    )
    _say(f"relavium chat: session {info.id} ({'resumed, ' + str(info.message_count) + ' messages' if args.session else 'new'}); mode {_mode_line(mode)}; /exit to quit")
    titled = info.title != "New chat"
    if args.session:
        _say_if_cut_off(store, info.id, "the last answer in this session was cut off")
    empty_answer = False
    while True:
        _say("> ", end="")
        line = await _readline()
        if line is None:
            _say()
            # A piped conversation whose last answer was empty says so in its exit status.
            return EXIT_FAILED if empty_answer else EXIT_OK
        text = line.strip()
        if not text:
            continue
        if text in ("/exit", "/quit"):
            return EXIT_OK
        if text == "/mode" or text.startswith("/mode "):
            wanted = text[len("/mode"):].strip()
            if not wanted:
                _say(f"mode {_mode_line(mode)}\nmodes:\n{modes_help()}")
                continue
            try:
                mode = parse_mode(wanted)
            except ValueError as exc:
                _say(str(exc))
                continue
            store.set_mode(info.id, str(mode))
            # The session's "always" answers outlive a mode switch (they are per session, not per mode).
            session.approvals = SessionApprovals(
                mode, _confirm, session.approvals.grants, in_project=in_project,  # type: ignore[arg-type]
            )
            session.offered_tools = offered_tools(spec.tools, mode, registry)
            _say(f"mode {_mode_line(mode)}")
            continue
        if text.startswith("/rename "):
            store.rename(info.id, text.split(maxsplit=1)[1])
            titled = True
            continue
        if not titled:
            store.rename(info.id, title_from([Message.user(text)]))
            titled = True
        task = asyncio.create_task(session.send(text))
        try:
            failure = (await asyncio.shield(task)).failure
            empty_answer = failure is not None and failure.reason == "empty_answer"
            if failure is not None:
                _say_if_cut_off(store, info.id, "the answer above was cut off")
        except asyncio.CancelledError:
            task.cancel()
            await task
            return 130


def _say_if_cut_off(store: Any, session_id: str, what: str) -> None:
    """Say that the session's last answer was cut off (kept in history as it arrived) and how to go on."""
    cut = store.cut_off_indexes(session_id)
    if cut and max(cut) == len(store.messages(session_id)) - 1:
        _say(f"[cut off] {what}; what arrived is kept. Send your message again for a full answer.")


def _stored_mode(stored: str) -> ChatMode:
    """A stored session's mode, upstream ids included; an unreadable one falls back to asking."""
    try:
        return parse_mode(stored)
    except ValueError:
        return DEFAULT_MODE


def _mode_line(mode: ChatMode) -> str:
    return f"{MODE_TITLES[mode]} ({mode.value}): {MODE_DESCRIPTIONS[mode]}"


def _shown(shown: Shown) -> str:
    """``shown`` for this terminal: markers in reverse video on a tty, as bracketed text in a pipe."""
    if not sys.stdout.isatty():
        return shown.text
    return "".join(f"\x1b[7m{piece}\x1b[27m" if marker else piece for piece, marker in shown.parts)


def _provider_status(tally: UsageTally, event: dict[str, Any]) -> None:
    """A retry's wait, live on stderr ("rate limited, retrying in 5 s"), and each turn's usage line."""
    kind = event["type"]
    tally.add(event)
    if kind == "agent:retrying":
        print(f"\n[retrying] {event.get('message')}", file=sys.stderr, flush=True)
    elif kind in ("chat:turn_completed", "chat:turn_failed"):
        _say(f"[{tally.line()}]")
        tally.reset()


def _render(event: dict[str, object]) -> None:
    kind = event["type"]
    if kind == "agent:token":
        _say(_shown(show(str(event["token"]), "block")), end="")
    elif kind == "agent:tool_call":
        tool_input = event.get("toolInput")
        args = show_value(tool_input, "line") if isinstance(tool_input, dict) else show(str(tool_input))
        _say(f"\n[tool] {show_line(str(event['toolId']))} {_shown(args)}")
    elif kind == "agent:tool_result":
        if event.get("success"):
            _say(f"[tool] {show_line(str(event['toolId']))} ok")
        else:
            _say(f"[tool] {show_line(str(event['toolId']))} {_shown(show(describe_error(event.get('error'))))}")
    elif kind == "agent:provider_fallback":
        _say(f"\n[fallback] {event.get('to')}")
    elif kind == "chat:turn_completed":
        _say()
    elif kind == "chat:turn_failed":
        _say(f"\n[error] {describe_error(event.get('error'))}")
    elif kind == "chat:turn_cancelled":
        _say("\n[cancelled]")
