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
import sys
from typing import Any

from relavium_desktop.application.agents import AgentFileError, load_agent
from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError
from relavium_desktop.cli.agent_common import (
    UsageTally,
    add_common,
    describe_error,
    policy_of,
    providers_of,
    tool_config_of,
    warn_if_unconfined,
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
    Shown,
    show,
    show_line,
    show_value,
)

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
    p.add_argument("--model", metavar="PROVIDER/MODEL",
                   help="the model to talk to, e.g. openai/gpt-4o-mini (default: the app's default model, "
                        "else the agent's own)")
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


def run(args: argparse.Namespace) -> int:
    return _run(args, args.app)  # the entry point's Application, closed when the command returns


def _run(args: argparse.Namespace, app: Any) -> int:
    from relavium_desktop.application.chat import RouteError, parse_route
    from relavium_desktop.cli.settings_notices import say_all

    say_all(app.paths.home, as_json=bool(getattr(args, "json", False)))  # a settings file on its .bak is said first
    store = app.sessions()
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
        if args.rename:
            ok = store.rename(args.rename, args.title)
        else:  # its spilled tool output goes with it
            chat = _chat_service(app, args, None)
            ok = chat.delete(args.delete)
            asyncio.run(chat.discard_session(args.delete))
        if args.json:
            print_json({"ok": ok})
        elif not ok:
            print("relavium chat: no such session", file=sys.stderr)
        return EXIT_OK if ok else EXIT_FAILED
    if args.model is not None:
        try:
            parse_route(args.model, where="--model")
        except RouteError as exc:
            raise UsageError(str(exc)) from None
    try:
        spec = load_agent(args.agent)
    except AgentFileError as exc:
        print(exc, file=sys.stderr)
        return EXIT_USAGE
    if args.agent is None and args.session is None:
        from relavium_desktop.application.agents import default_agent

        chosen = default_agent(app.paths)  # the agent picked in the window, as its model is
        if chosen is not None:
            args.agent, spec = str(app.paths.agents / chosen[0]), chosen[1]
            _say(f"relavium chat: agent {show_line(spec.id)} (the app's default; --agent picks another)")
    tool_configs = _checked_tool_configs(args, spec)
    warn_if_unconfined(policy_of(args.policy))
    return asyncio.run(_repl(args, app, spec, tool_configs))


def _checked_tool_configs(args: argparse.Namespace, spec: object) -> object:
    """``--tool-config`` and the agent's own tool_config, refused before a session is created."""
    from relavium_desktop.application.tools import tool_registry
    from relavium_desktop.engine.agent.spec import AgentSpec
    from relavium_desktop.engine.agent.tool_config import parameter_problems

    assert isinstance(spec, AgentSpec)
    lookup = tool_registry(home=args.app.paths.home).get
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


def _chat_service(app: Any, args: argparse.Namespace, tool_configs: Any, session_grants: Any = None) -> Any:
    """The chat use case with what the terminal brings: no one to ask for MCP consent, --policy, --providers."""
    from relavium_desktop.application.chat import ChatService
    from relavium_desktop.application.mcp import cli_mcp_hooks

    policy = policy_of(args.policy)
    providers = providers_of(args.providers, app.paths) if args.providers else None
    return ChatService(
        app,
        mcp_hooks=lambda project: cli_mcp_hooks((), project=project, consents=app.consents),
        policy=lambda: policy,
        tool_configs=lambda _lookup: tool_configs or {},
        providers=(lambda: providers) if providers is not None else None,
        on_notice=lambda text: _say(f"relavium chat: {text}"),
        **({"session_grants": session_grants} if session_grants is not None else {}),
    )


async def _repl(args: argparse.Namespace, app: Any, spec: object, tool_configs: object) -> int:
    from relavium_desktop.application.approvals import ProjectSessionGrants
    from relavium_desktop.application.chat import RouteError
    from relavium_desktop.cli.chat_prompt import terminal_confirm

    # One "always this session" cache per project, shared by the modes and the prompt; the prompt
    # also honours (and with "p" records) the project grants the window keeps in the same store.
    caches = ProjectSessionGrants()
    workspace = workspace_of(args.workspace)
    confirm = terminal_confirm(app, workspace, caches.for_project(workspace))
    chat = _chat_service(app, args, tool_configs, caches.for_project)
    tally = UsageTally()

    def on_event(event: dict[str, Any]) -> None:
        _render(event)
        _provider_status(tally, event)

    def created(info: Any) -> None:
        _say(f"relavium chat: session {info.id} (new)")

    try:
        conversation = await chat.open(
            session_id=args.session, project=workspace, mode=args.mode,
            agent=None if args.agent is None else spec, model=args.model, on_event=on_event, on_created=created,
        )
    except LookupError:
        print(f"relavium chat: no session {args.session!r}; see 'relavium chat --list'", file=sys.stderr)
        return EXIT_FAILED
    except RouteError as exc:
        raise UsageError(str(exc)) from None
    try:
        return await _converse(conversation, confirm)
    finally:
        await chat.aclose()


async def _converse(conversation: Any, confirm: Any) -> int:
    """The conversation itself: one line a message, the REPL commands; Ctrl-C ends it with 130."""
    store = conversation.service.store
    info = conversation.info
    if info is not None:
        _say(f"relavium chat: session {info.id} (resumed, {info.message_count} messages); "
             f"mode {_mode_line(conversation.mode)}; /exit to quit")
        _say_if_cut_off(store, info.id, "the last answer in this session was cut off")
    else:
        _say(f"relavium chat: new session (stored with its first message); mode {_mode_line(conversation.mode)}; "
             "/exit to quit")
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
                _say(f"mode {_mode_line(conversation.mode)}\nmodes:\n{modes_help()}")
                continue
            try:
                mode = parse_mode(wanted)
            except ValueError as exc:
                _say(str(exc))
                continue
            # The session's "always" answers outlive a mode switch (they are per session, not per mode).
            conversation.set_mode(mode)
            _say(f"mode {_mode_line(mode)}")
            continue
        if text.startswith("/rename "):
            conversation.rename(text.split(maxsplit=1)[1])
            continue
        task = asyncio.create_task(conversation.send(text, confirm=confirm))
        try:
            failure = (await asyncio.shield(task)).failure
            empty_answer = failure is not None and failure.reason == "empty_answer"
            if failure is not None and conversation.session_id is not None:
                _say_if_cut_off(store, conversation.session_id, "the answer above was cut off")
        except ValueError:
            continue  # refused before it was sent (the agent's input_schema): the [error] line said why
        except asyncio.CancelledError:
            task.cancel()
            await task
            return 130


def _say_if_cut_off(store: Any, session_id: str, what: str) -> None:
    """Say that the session's last answer was cut off (kept in history as it arrived) and how to go on."""
    cut = store.cut_off_indexes(session_id)
    if cut and max(cut) == len(store.messages(session_id)) - 1:
        _say(f"[cut off] {what}; what arrived is kept. Send your message again for a full answer.")


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
