"""Acceptance 6: the file tools through the real ``relavium tool call`` command."""

from __future__ import annotations

from pathlib import Path

from tests.helpers import run_cli


def _ws(tmp_path: Path) -> Path:
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "a.md").write_text("alpha\n")
    (ws / "docs" / "b.md").write_text("beta\n")
    (ws / ".env").write_text("API_KEY=do-not-leak\n")
    (tmp_path / "x").write_text("outside\n")
    return ws


def test_cli_outside_scope_protected_and_glob(tmp_path: Path, cli_env: dict[str, str]) -> None:
    ws = _ws(tmp_path)
    code, out, _ = run_cli("tool", "call", "read_file", "--workspace", str(ws),
                           "--args", '{"path":"../x"}', "--json", env=cli_env)
    assert code == 1 and out["ok"] is False
    assert (out["error"]["code"], out["error"]["reason"]) == ("tool_denied", "outside_scope")
    assert str(tmp_path) not in out["error"]["message"]

    code, out, _ = run_cli("tool", "call", "read_file", "--workspace", str(ws),
                           "--args", '{"path":".env"}', "--json", env=cli_env)
    assert code == 1 and (out["error"]["code"], out["error"]["reason"]) == ("tool_denied", "protected_path")
    assert "do-not-leak" not in str(out)

    code, out, _ = run_cli("tool", "call", "read_file", "--workspace", str(ws),
                           "--args", '{"path":"docs/*.md"}', "--json", env=cli_env)
    assert code == 0 and out["ok"] is True
    files = out["result"]["files"]
    assert [(f["path"], f["content"]) for f in files] == [("docs/a.md", "alpha\n"), ("docs/b.md", "beta\n")]
    assert "alpha" in out["model_facing"]


def test_cli_write_and_list(tmp_path: Path, cli_env: dict[str, str]) -> None:
    ws = _ws(tmp_path)
    code, out, _ = run_cli("tool", "call", "write_file", "--workspace", str(ws),
                           "--args", '{"path":"new/n.txt","content":"hi","createParents":true}', "--json",
                           env=cli_env)
    assert code == 0
    # A creation: one line added, none removed; the checkpoint id lets the write be undone.
    assert out["result"] == {"path": "new/n.txt", "bytesWritten": 2, "linesAdded": 1, "linesRemoved": 0,
                             "checkpointId": out["result"]["checkpointId"]}
    assert (ws / "new" / "n.txt").read_text() == "hi"
    code, out, _ = run_cli("tool", "call", "list_directory", "--workspace", str(ws),
                           "--args", '{"recursive":true}', "--json", env=cli_env)
    assert code == 0
    assert [e["name"] for e in out["result"]["entries"]] == ["docs", "docs/a.md", "docs/b.md", "new", "new/n.txt"]
    code, out, _ = run_cli("tool", "call", "write_file", "--workspace", str(ws), "--tier", "full",
                           "--args", '{"path":".git/hooks/pre-commit","content":"x","createParents":true}',
                           "--json", env=cli_env)
    assert code == 1 and out["error"]["reason"] == "protected_path"
    assert not (ws / ".git").exists()
