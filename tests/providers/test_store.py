"""``providers.yaml`` through ProviderStore: the whole truth once it exists, edited in place.

Real files in a temporary folder; every assertion reads the file back from
disk (or through a fresh store) so what is checked is what another process
would see.
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest
from pydantic import ValidationError

from relavium_desktop.providers.config import DEFAULT_ENTRIES, ProviderConfigError, ProviderEntry
from relavium_desktop.providers.store import ProviderStore, store_for

RAW_KEY = "sk-ant-api03-RAWKEYVALUE0123456789abcdef"
LOCAL = ProviderEntry(kind="openai", base_url="http://127.0.0.1:11434/v1", allow_local=True)

COMMENTED = """\
# my providers, hand-written
providers:
  # the work account
  anthropic:
    kind: anthropic
    base_url: https://api.anthropic.com   # the real one
    api_key: secret:ANTHROPIC_API_KEY
  ollama:
    kind: openai
    base_url: http://127.0.0.1:11434/v1
    api_key: null
    allow_local: true   # my own box
"""


def test_no_file_means_the_defaults_and_reading_writes_nothing(tmp_path: Path) -> None:
    store = ProviderStore(tmp_path / "providers.yaml")
    assert store.entries() == DEFAULT_ENTRIES
    assert store.stamp() is None
    assert list(tmp_path.iterdir()) == []


def test_the_first_edit_seeds_the_defaults_a_header_and_owner_only_mode(tmp_path: Path) -> None:
    path = tmp_path / "sub" / "providers.yaml"
    ProviderStore(path).add("ollama", LOCAL)
    text = path.read_text()
    assert text.startswith("# Relavium providers") and "REFERENCE" in text
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert list(ProviderStore(path).entries()) == ["anthropic", "openai", "gemini", "ollama"]
    assert ProviderStore(path).entries()["ollama"] == LOCAL
    assert "api_key: null" in text
    assert [p.name for p in path.parent.iterdir()] == ["providers.yaml"]  # no temp file left behind


def test_an_existing_file_is_the_whole_truth_no_merge_with_defaults(tmp_path: Path) -> None:
    path = tmp_path / "providers.yaml"
    path.write_text(json.dumps({"providers": {"mine": {"kind": "gemini", "base_url": "https://g.example"}}}))
    assert list(ProviderStore(path).entries()) == ["mine"]
    assert list(store_for(path).entries()) == ["mine"]  # the shared store every surface reads
    path.write_text("")
    assert ProviderStore(path).entries() == {}


def test_removing_a_default_really_removes_it(tmp_path: Path) -> None:
    store = ProviderStore(tmp_path / "providers.yaml")
    store.remove("anthropic")
    assert list(ProviderStore(store.path).entries()) == ["openai", "gemini"]
    assert "anthropic:" not in store.path.read_text()


def test_a_bare_mapping_without_the_providers_key_is_read(tmp_path: Path) -> None:
    path = tmp_path / "providers.yaml"
    path.write_text("local:\n  kind: openai\n  base_url: http://127.0.0.1:1/v1\n  allow_local: true\n")
    store = ProviderStore(path)
    assert store.entries()["local"].allow_local is True
    store.add("g", DEFAULT_ENTRIES["gemini"])
    assert list(ProviderStore(path).entries()) == ["local", "g"]
    assert "providers:" not in path.read_text()


def test_comments_order_and_other_entries_survive_add_update_remove(tmp_path: Path) -> None:
    path = tmp_path / "providers.yaml"
    path.write_text(COMMENTED)
    store = ProviderStore(path)
    store.add("lmstudio", LOCAL.model_copy(update={"base_url": "http://127.0.0.1:1234/v1"}))
    updated = store.update("anthropic", api_key="env:WORK_KEY", timeout_s=30)
    assert updated.api_key == "env:WORK_KEY" and updated.timeout_s == 30
    store.remove("lmstudio")
    text = path.read_text()
    for comment in ("# my providers, hand-written", "# the work account", "# the real one", "# my own box"):
        assert comment in text, text
    assert list(ProviderStore(path).entries()) == ["anthropic", "ollama"]
    assert ProviderStore(path).entries()["anthropic"].api_key == "env:WORK_KEY"
    assert ProviderStore(path).entries()["ollama"] == ProviderEntry(
        kind="openai", base_url="http://127.0.0.1:11434/v1", allow_local=True)
    assert text.index("anthropic:") < text.index("ollama:")


def test_a_json_file_is_rewritten_in_block_style_with_its_content(tmp_path: Path) -> None:
    path = tmp_path / "providers.yaml"
    path.write_text(json.dumps({"providers": {
        "a": {"kind": "openai", "base_url": "https://a.example/v1", "api_key": "env:A", "timeout_s": 5}}}))
    store = ProviderStore(path)
    store.add("b", DEFAULT_ENTRIES["gemini"])
    text = path.read_text()
    assert "{" not in text
    entries = ProviderStore(path).entries()
    assert entries["a"] == ProviderEntry(kind="openai", base_url="https://a.example/v1", api_key="env:A",
                                         timeout_s=5)
    assert entries["b"] == DEFAULT_ENTRIES["gemini"]


def test_replace_is_explicit_and_names_are_checked(tmp_path: Path) -> None:
    store = ProviderStore(tmp_path / "providers.yaml")
    store.add("x", LOCAL)
    with pytest.raises(ProviderConfigError, match="already exists"):
        store.add("x", DEFAULT_ENTRIES["openai"])
    store.add("x", DEFAULT_ENTRIES["openai"], replace=True)
    assert store.entries()["x"] == DEFAULT_ENTRIES["openai"]
    assert "allow_local" not in store.path.read_text().split("x:", 1)[1]
    for bad in ("a/b", "", "-lead", "with space", "x" * 65):
        with pytest.raises(ProviderConfigError, match="invalid provider name"):
            store.add(bad, LOCAL)
    with pytest.raises(ProviderConfigError, match="no provider named 'nope'"):
        store.update("nope", allow_local=True)
    with pytest.raises(ProviderConfigError, match="no provider named 'nope'"):
        store.remove("nope")
    with pytest.raises(ProviderConfigError, match="unknown provider field"):
        store.update("x", colour="red")


def test_an_update_is_validated_before_anything_is_written(tmp_path: Path) -> None:
    store = ProviderStore(tmp_path / "providers.yaml")
    store.add("x", LOCAL)
    before = store.path.read_text()
    with pytest.raises(ProviderConfigError, match="timeout_s"):
        store.update("x", timeout_s=-1)
    with pytest.raises(ProviderConfigError, match="never the key itself") as info:
        store.update("x", api_key=RAW_KEY)
    assert RAW_KEY not in str(info.value)
    assert store.path.read_text() == before


def test_a_raw_key_in_the_file_is_refused_without_echoing_it(tmp_path: Path) -> None:
    path = tmp_path / "providers.yaml"
    path.write_text(f"providers:\n  anthropic:\n    kind: anthropic\n    base_url: https://api.anthropic.com\n"
                    f"    api_key: {RAW_KEY}\n")
    with pytest.raises(ProviderConfigError) as info:
        ProviderStore(path).entries()
    message = str(info.value)
    assert "providers.yaml" in message and "'anthropic'" in message and "api_key" in message
    assert "never the key itself" in message
    assert RAW_KEY not in message and "RAWKEYVALUE" not in message
    # Editing a file that does not read is refused too, and leaves it alone.
    with pytest.raises(ProviderConfigError):
        ProviderStore(path).add("other", LOCAL)
    assert RAW_KEY in path.read_text()


def test_the_entry_model_refuses_a_raw_key_without_echoing_it() -> None:
    with pytest.raises(ValidationError) as info:
        ProviderEntry(kind="openai", base_url="https://x.example/v1", api_key=RAW_KEY)
    assert RAW_KEY not in str(info.value)
    for ref in ("secret:OPENAI_API_KEY", "env:MY_KEY", None):
        assert ProviderEntry(kind="openai", base_url="https://x.example/v1", api_key=ref).api_key == ref
    assert ProviderEntry(kind="openai", base_url="https://x.example/v1", api_key="").api_key is None


@pytest.mark.parametrize(("text", "needle"), [
    ("providers: [1, 2]\n", "expected a mapping"),
    ("providers:\n  a: {kind: nope, base_url: x}\n", "provider 'a': kind"),
    ("providers:\n  a:\n    kind: openai\n    base_url: https://x\n    colour: red\n", "colour"),
    ("providers:\n  a: [\n", "not valid YAML at line"),
])
def test_broken_files_name_the_file_the_provider_and_the_field(tmp_path: Path, text: str, needle: str) -> None:
    path = tmp_path / "providers.yaml"
    path.write_text(text)
    with pytest.raises(ProviderConfigError, match=r"providers\.yaml") as info:
        ProviderStore(path).entries()
    assert needle in str(info.value)


def test_reads_are_cached_until_the_stamp_changes(tmp_path: Path) -> None:
    path = tmp_path / "providers.yaml"
    path.write_text(json.dumps({"aaaa": {"kind": "openai", "base_url": "https://a.example/v1"}}))
    store = ProviderStore(path)
    assert list(store.entries()) == ["aaaa"]
    first = store.stamp()
    st = os.stat(path)
    # Same size, same inode, same mtime: the stamp says unchanged, so the cached entries stay.
    text = path.read_text()
    with open(path, "r+") as f:
        f.write(text.replace("aaaa", "bbbb"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert store.stamp() == first
    assert list(store.entries()) == ["aaaa"]
    # A changed file (new mtime) is read again.
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    assert store.stamp() != first
    assert list(store.entries()) == ["bbbb"]
    # An edit through the store is seen at once, by this store and the shared one.
    store.add("cccc", LOCAL)
    assert list(store.entries()) == ["bbbb", "cccc"]
    assert list(store_for(path).entries()) == ["bbbb", "cccc"]


def test_entries_returns_a_copy(tmp_path: Path) -> None:
    store = ProviderStore(tmp_path / "providers.yaml")
    store.entries().pop("anthropic")
    assert "anthropic" in store.entries()


def test_removing_the_last_provider_leaves_a_file_that_reads_back(tmp_path: Path) -> None:
    path = tmp_path / "providers.yaml"
    path.write_text("# mine\nproviders:\n  # the gateway\n  gateway:\n    kind: openai\n"
                    "    base_url: https://gateway.example.com/v1\n    api_key: env:G  # in my profile\n")
    store = ProviderStore(path)
    store.remove("gateway")
    assert store.entries() == {}
    assert ProviderStore(path).entries() == {} and path.read_text().startswith("# mine")
