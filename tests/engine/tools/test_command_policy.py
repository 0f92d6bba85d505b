"""The run_command allowlist: argv compared element by element, globs opt-in."""

from __future__ import annotations

import pytest

from relavium_desktop.engine.errors import DenyReason, ErrorCode, ToolDeniedError
from relavium_desktop.engine.host import ToolHost
from relavium_desktop.engine.tools.command_policy import check_command, split_entry
from relavium_desktop.engine.tools.tooldef import NodeToolConfig, ToolPolicy
from tests.helpers import dispatch

NPM = ToolPolicy(allowed_commands=("npm test", "git status", 'sh -c "echo $HOME; env"'))


def denied_reason(argv: list[str], policy: ToolPolicy) -> str | None:
    try:
        check_command(argv, policy)
    except ToolDeniedError as exc:
        return exc.reason
    return None


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["npm", "test"], None),
        (["git", "status"], None),
        (["sh", "-c", "echo $HOME; env"], None),
        # near misses
        (["npm", "test", "--coverage"], DenyReason.COMMAND_NOT_ALLOWED),  # extra arg
        (["npm"], DenyReason.COMMAND_NOT_ALLOWED),  # missing arg: npm alone vs npm test
        (["npm", "test --coverage"], DenyReason.COMMAND_NOT_ALLOWED),  # joined into one element
        (["npm test"], DenyReason.COMMAND_NOT_ALLOWED),  # whole line as the command
        (["NPM", "test"], DenyReason.COMMAND_NOT_ALLOWED),  # different case
        (["npm", "Test"], DenyReason.COMMAND_NOT_ALLOWED),
        (["npm", "test "], DenyReason.COMMAND_NOT_ALLOWED),  # trailing space inside an element
        ([" npm", "test"], DenyReason.COMMAND_NOT_ALLOWED),
        (["/usr/bin/npm", "test"], DenyReason.COMMAND_NOT_ALLOWED),  # another spelling of the program
        (["npm", "test", ""], DenyReason.COMMAND_NOT_ALLOWED),  # empty extra element
        (["npm", "test\x00"], DenyReason.COMMAND_NOT_ALLOWED),
        (["npm", "tеst"], DenyReason.COMMAND_NOT_ALLOWED),  # Cyrillic e
        (["sh", "-c", "echo $HOME; env; rm -rf ~"], DenyReason.COMMAND_NOT_ALLOWED),
        (["sh", "-c", "echo", "$HOME; env"], DenyReason.COMMAND_NOT_ALLOWED),
    ],
)
def test_exact_allowlist_table(argv: list[str], reason: str | None) -> None:
    assert denied_reason(argv, NPM) == reason


@pytest.mark.parametrize(
    "policy",
    [
        ToolPolicy(),
        ToolPolicy(allowed_commands=()),
        ToolPolicy(allowed_commands=(), allowed_command_globs=()),
    ],
)
def test_empty_or_absent_lists_disable_commands(policy: ToolPolicy) -> None:
    assert denied_reason(["npm", "test"], policy) == DenyReason.COMMANDS_DISABLED


GLOBS = ToolPolicy(allowed_commands=(), allowed_command_globs=("npm run *", "pytest tests/*.py"))


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["npm", "run", "build"], None),
        (["npm", "run", "build --prod; rm -rf /"], None),  # one element, literal to npm
        (["npm", "run"], DenyReason.COMMAND_NOT_ALLOWED),  # * is exactly one element
        (["npm", "run", "build", "--prod"], DenyReason.COMMAND_NOT_ALLOWED),
        (["npm", "Run", "build"], DenyReason.COMMAND_NOT_ALLOWED),
        (["pytest", "tests/test_a.py"], None),
        (["pytest", "tests/test_a.txt"], DenyReason.COMMAND_NOT_ALLOWED),
        (["pytest", "-x", "tests/test_a.py"], DenyReason.COMMAND_NOT_ALLOWED),
    ],
)
def test_glob_allowlist_matches_element_wise(argv: list[str], reason: str | None) -> None:
    assert denied_reason(argv, GLOBS) == reason


def test_globs_are_opt_in_exact_entries_never_glob() -> None:
    exact_only = ToolPolicy(allowed_commands=("npm run *",))
    assert denied_reason(["npm", "run", "build"], exact_only) == DenyReason.COMMAND_NOT_ALLOWED
    assert denied_reason(["npm", "run", "*"], exact_only) is None


def test_entries_split_shell_style_without_expansion() -> None:
    assert split_entry("npm test") == ("npm", "test")
    assert split_entry("sh -c 'a; b'") == ("sh", "-c", "a; b")
    assert split_entry("echo $HOME ~ *") == ("echo", "$HOME", "~", "*")
    assert split_entry("broken 'quote") == ()  # unbalanced: matches nothing
    assert denied_reason(["broken", "'quote"], ToolPolicy(allowed_commands=("broken 'quote",))) == (
        DenyReason.COMMAND_NOT_ALLOWED
    )


async def test_policy_sees_input_mapping_supplied_commands() -> None:
    # A tool node whose command arrives through input_mapping is checked like a model's.
    config = NodeToolConfig(input_mapping={"command": "rm", "args": ["-rf", "/"]})
    out = await dispatch(
        "run_command", {"command": "npm", "args": ["test"]}, host=ToolHost(), policy=NPM, config=config
    )
    assert not out.ok and out.error is not None
    assert out.error.code is ErrorCode.TOOL_DENIED and out.error.reason == DenyReason.COMMAND_NOT_ALLOWED

    # and an allowed one supplied only through input_mapping passes the policy
    # (this host has no process capability, so it stops at tool_unavailable).
    config = NodeToolConfig(input_mapping={"command": "npm", "args": ["test"]})
    out = await dispatch("run_command", {}, host=ToolHost(), policy=NPM, config=config)
    assert out.error is not None and out.error.code is ErrorCode.TOOL_UNAVAILABLE


async def test_disabled_policy_refuses_before_the_host() -> None:
    out = await dispatch("run_command", {"command": "npm", "args": ["test"]}, host=ToolHost())
    assert out.error is not None and out.error.reason == DenyReason.COMMANDS_DISABLED


async def test_model_cannot_set_config_only_fields() -> None:
    # A model-sent cwd/env/timeoutMs is dropped; the author's config wins.
    config = NodeToolConfig(parameters={"env": {"LD_PRELOAD": "/tmp/x.so"}})
    out = await dispatch(
        "run_command",
        {"command": "npm", "args": ["test"], "env": {}},
        host=ToolHost(),
        policy=NPM,
        config=config,
    )
    assert out.error is not None and out.error.reason == DenyReason.ENV_NOT_ALLOWED


async def test_nul_in_args_is_invalid_args() -> None:
    out = await dispatch("run_command", {"command": "npm", "args": ["te\x00st"]}, host=ToolHost(), policy=NPM)
    assert out.error is not None and out.error.code is ErrorCode.INVALID_ARGS
