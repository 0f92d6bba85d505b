"""``relavium chat``'s approval prompt against spoofed targets: a real subprocess and the scripted LLM server.

The model asks to write a file whose name carries an escape sequence, a
bidi override, isolates, zero-width characters, a BOM, tag characters, a
300-character path or a Cyrillic look-alike.  What the person reads on the
prompt line must be the display form: no raw control or bidi character is
printed, each one's marker is, and the end of the path is there.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from relavium_desktop.engine.display_text import MARKERS_NOTICE
from tests.cli.llm_cli import write_agent
from tests.conftest import relavium_cmd
from tests.fixtures.llm_server import Reply, ScriptedLLMServer
from tests.helpers import run_cli
from tests.spoofing import SPOOFS, raw_characters


def chat(env: dict[str, str], stdin: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*relavium_cmd(), "chat", *args], input=stdin, env=env, cwd=cwd,
                          capture_output=True, text=True, timeout=60, check=False)


def prompt_block(out: str) -> list[str]:
    """The approval question: its '? allow' line and the lines under it up to the answer prompt."""
    lines = out.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("? allow"))
    end = next(i for i in range(start, len(lines)) if "[y]es once" in lines[i])
    return lines[start:end + 1]


@pytest.mark.parametrize("name", sorted(SPOOFS))
def test_the_approval_prompt_never_prints_a_spoofing_character(
    name: str, env: dict[str, str], llm_server: ScriptedLLMServer, tmp_path: Path,
) -> None:
    spoof = SPOOFS[name]
    agent = write_agent(tmp_path / "w.agent.yaml", tools=["write_file"])
    llm_server.script(Reply.call("write_file", {"path": spoof.raw, "content": "echo hi\n"}), Reply.say("Done."))
    proc = chat(env, "write the file\nn\n/exit\n", "--agent", str(agent), "--mode", "confirm",
                "--workspace", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    # Nothing raw anywhere: the prompt, the tool echo, the refusal, stderr.
    assert raw_characters(proc.stdout) == [] and raw_characters(proc.stderr) == []
    block = prompt_block(proc.stdout)
    head = block[0]
    assert head.startswith("? allow write_file (fs_write): ")
    for marker in spoof.markers:
        assert marker in head, (marker, head)
    for text in spoof.visible:
        assert text in "\n".join(block), (text, block)
    # The question says when the name it shows was marked, and names a shell script as one.
    assert (f"  ! {MARKERS_NOTICE}" in block) == bool(spoof.markers)
    if spoof.raw.endswith(".sh"):
        assert "  ! This is a shell script." in block
    if name == "long-sh":
        assert head.endswith("install.sh") and len(head) > 300  # the whole target, end included
    assert any(line.startswith("  arguments: {path: ") for line in block)
    assert not list(tmp_path.rglob("*.md")) and not list(tmp_path.rglob("*.sh"))  # denied: nothing written


def test_a_chat_title_is_listed_by_the_display_rule(env: dict[str, str], llm_server: ScriptedLLMServer,
                                                      tmp_path: Path) -> None:
    llm_server.script(Reply.say("Hello."))
    proc = chat(env, "hello\n/exit\n", "--workspace", str(tmp_path), cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    sid = run_cli("chat", "--list", "--json", env=env)[1][0]["id"]
    for name, spoof in SPOOFS.items():
        assert run_cli("chat", "--rename", sid, "--title", spoof.raw, "--json", env=env)[1] == {"ok": True}
        code, listed, _ = run_cli("chat", "--list", env=env)
        assert code == 0
        assert raw_characters(listed) == [], name
        for marker in spoof.markers:
            assert marker in listed, (name, marker)
    stored = run_cli("chat", "--list", "--json", env=env)[1][0]["title"]
    assert stored == "n\u043etes.md"  # the title is stored as given; only its display is marked
