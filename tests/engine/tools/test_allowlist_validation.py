"""One allowlist rule for every surface: the engine, the CLI's --policy and Settings → Chat tools agree.

Each table entry goes through the engine's validation function, the real
``relavium tool call`` command and the settings page; a valid entry is
accepted by all three, an invalid one refused by all three with the same
message naming the entry.
"""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest

from relavium_desktop.engine.tools.command_policy import AllowlistEntryError, validate_command_entry
from relavium_desktop.engine.tools.domain_policy import validate_domain_entry
from relavium_desktop.engine.tools.tooldef import ToolPolicy
from tests.helpers import run_cli

COMMANDS: list[tuple[str, bool]] = [
    ("npm test", True),
    ("npm   test", True),
    ("git commit -m 'two words'", True),
    ("sh -c 'a; b'", True),  # the operator is one quoted argument: literal
    ("printf '%s' 'a|b' '$(id)' '>made'", True),  # quoted metacharacters are literal
    ("echo $HOME ~ *", True),  # never expanded: no shell
    ("", False),
    ("   ", False),
    ("echo 'unbalanced", False),
    ("npm test && rm -rf ~", False),
    ("cat a | sh", False),
    ("ls; rm x", False),
    ("echo hi > out", False),
    ("echo $(id)", False),
    ("echo `id`", False),
]

DOMAINS: list[tuple[str, bool]] = [
    ("api.github.com", True),
    ("API.GitHub.com.", True),
    ("https://example.org/", True),
    ("example.org:8443", True),
    ("bücher.de", True),
    ("", False),
    ("*.example.com", False),
    ("http://plain.example.com", False),
    ("user@evil.example", False),
    ("example.com/path", False),
    ("exa mple.com", False),
]


def engine_verdict(validate, entry: str) -> str | None:
    try:
        validate(entry)
    except AllowlistEntryError as exc:
        return str(exc)
    return None


@pytest.mark.parametrize(("entry", "valid"), COMMANDS)
def test_engine_command_rule(entry: str, valid: bool) -> None:
    message = engine_verdict(validate_command_entry, entry)
    assert (message is None) is valid, message
    if message is not None:
        assert repr(entry) in message
        with pytest.raises(ValueError, match="allowedCommands"):
            ToolPolicy.from_json({"allowedCommands": ["ls", entry]})
        with pytest.raises(ValueError, match="allowedCommandGlobs"):
            ToolPolicy.from_json({"allowedCommandGlobs": [entry]})
    else:
        assert ToolPolicy.from_json({"allowedCommands": [entry]}).allowed_commands == (entry,)


@pytest.mark.parametrize(("entry", "valid"), DOMAINS)
def test_engine_domain_rule(entry: str, valid: bool) -> None:
    message = engine_verdict(validate_domain_entry, entry)
    assert (message is None) is valid, message
    if message is not None:
        assert repr(entry) in message
        with pytest.raises(ValueError, match="allowedDomains"):
            ToolPolicy.from_json({"allowedDomains": [entry]})


def test_a_workflow_tools_block_uses_the_same_rule() -> None:
    from pydantic import ValidationError

    from relavium_desktop.engine.workflow.models import ToolsBlock

    ToolsBlock(allowedCommands=["npm test"], allowedDomains=["api.github.com"])
    with pytest.raises(ValidationError, match="shell operator"):
        ToolsBlock(allowedCommands=["npm test && rm -rf ~"])
    with pytest.raises(ValidationError, match="wildcards"):
        ToolsBlock(allowedDomains=["*.example.com"])


def cli(cli_env: dict[str, str], workspace: Path, tool: str, policy: dict, args: dict) -> tuple[int, str]:
    code, _out, err = run_cli(
        "tool", "call", tool, "--workspace", str(workspace),
        "--policy", json.dumps(policy), "--args", json.dumps(args), env=cli_env,
    )
    return code, err


@pytest.mark.parametrize(("entry", "valid"), COMMANDS)
def test_cli_policy_command_entries(entry: str, valid: bool, cli_env: dict[str, str], tmp_path: Path) -> None:
    # A command no entry allows: a valid policy is a denial (1), an invalid one a usage error (2).
    code, err = cli(cli_env, tmp_path, "run_command", {"allowedCommands": [entry]},
                    {"command": "relavium-never-allowed"})
    if valid:
        assert code == 1, err
    else:
        assert code == 2, err
        assert engine_verdict(validate_command_entry, entry) in err


@pytest.mark.parametrize(("entry", "valid"), [d for d in DOMAINS if d[0]])
def test_cli_policy_domain_entries(entry: str, valid: bool, cli_env: dict[str, str], tmp_path: Path) -> None:
    code, err = cli(cli_env, tmp_path, "http_request", {"allowedDomains": [entry]},
                    {"url": "https://never-allowed.invalid/"})
    if valid:
        assert code == 1, err
    else:
        assert code == 2, err
        assert engine_verdict(validate_domain_entry, entry) in err


@pytest.fixture
def page(qtbot, tmp_path: Path):
    from PySide6.QtCore import QSettings

    from relavium_desktop.ui.settings.chat_tools import ChatToolsPage

    settings = QSettings(str(tmp_path / "desktop-settings.ini"), QSettings.Format.IniFormat)
    widget = ChatToolsPage(SimpleNamespace(settings=settings))  # type: ignore[arg-type]
    qtbot.addWidget(widget)
    return widget


def add(allow_list, text: str) -> str:
    allow_list.edit.setText(text)
    allow_list.add_button.click()
    return allow_list.error.text()


@pytest.mark.parametrize(("entry", "valid"), COMMANDS)
def test_settings_page_command_entries(page, entry: str, valid: bool) -> None:
    error = add(page.commands, entry)
    expected = engine_verdict(validate_command_entry, entry)
    if valid:
        assert error == "" and len(page.commands.values()) == 1
        assert ToolPolicy.from_json({"allowedCommands": page.commands.values()})
    else:
        assert error == expected and page.commands.values() == []


@pytest.mark.parametrize(("entry", "valid"), DOMAINS)
def test_settings_page_domain_entries(page, entry: str, valid: bool) -> None:
    error = add(page.domains, entry)
    expected = engine_verdict(validate_domain_entry, entry)
    if valid:
        assert error == "" and page.domains.values() == [validate_domain_entry(entry)]
    else:
        assert error == expected and page.domains.values() == []


def test_a_stored_entry_the_engine_refuses_is_shown_and_explained(qtbot, tmp_path: Path) -> None:
    from PySide6.QtCore import QSettings

    from relavium_desktop.ui.chat.backend import KEY_POLICY, policy_from
    from relavium_desktop.ui.settings.chat_tools import ChatToolsPage

    settings = QSettings(str(tmp_path / "desktop-settings.ini"), QSettings.Format.IniFormat)
    # Accepted by an older page (";" inside one argument), refused by the engine's rule.
    settings.setValue(KEY_POLICY, json.dumps({"allowedCommands": ["npm test", "ls;rm x"]}))
    widget = ChatToolsPage(SimpleNamespace(settings=settings))  # type: ignore[arg-type]
    qtbot.addWidget(widget)
    assert widget.warning.isVisibleTo(widget) and "1 stored entry is refused" in widget.warning.text()
    assert policy_from(settings).allowed_commands is None  # chat: the same refusal, nothing allowed
    widget.commands.list.setCurrentRow(1)
    widget.commands.remove_button.click()
    assert policy_from(settings).allowed_commands == ("npm test",)
