"""Editing ``$RELAVIUM_HOME/mcp.yaml`` in place: what Settings → MCP servers writes.

The file is the user's own -- the CLI and every workflow read it, and people
annotate it by hand -- so an edit goes through ruamel.yaml's round-trip mode:
comments, key order and entries the edit does not touch survive.  Nothing is
written that would not load back: the whole edited ``servers:`` mapping is
validated with :func:`~relavium_desktop.host.mcp.config.parse_servers` (plus
the subprocess environment refusal predicate for stdio ``env`` names) first,
and a refusal leaves the file byte-for-byte as it was.  A write goes to a
temporary file in the same folder, is fsync'd and renamed over the old one
with mode 0600: a crash leaves the old file or the new one, never half.

Errors are :class:`McpConfigError` with the server and field named and never
the offending value -- a value typed into ``env`` may be a pasted secret.
"""

from __future__ import annotations

import io
import os
import re
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from relavium_desktop.engine.tools.env_policy import env_name_refused
from relavium_desktop.host.atomic import write_text_atomic
from relavium_desktop.host.mcp.config import (
    CONFIG_FILE,
    HttpServer,
    McpConfigError,
    StdioServer,
    parse_servers,
)
from relavium_desktop.host.settings_bak import BakInUse, load_or_bak

Stamp = tuple[int, int, int]
FILE_MODE = 0o600
HEADER = (
    "Relavium MCP servers: read by the relavium CLI, workflows and the desktop app.\n"
    "Each entry under servers: is a name with transport stdio (command, args, env, cwd)\n"
    "or http (url, credentialRef: secret:NAME, allowLocal). toolsAllowlist limits the\n"
    "tools a server offers. Edit by hand or in Settings -> MCP servers; comments are kept."
)
_CAMEL = re.compile(r"_([a-z])")


def _spellings(key: str) -> tuple[str, str]:
    """A field's camelCase alias and snake_case name (the file may use either)."""
    snake = re.sub(r"([A-Z])", lambda m: "_" + m.group(1).lower(), key)
    camel = _CAMEL.sub(lambda m: m.group(1).upper(), snake)
    return camel, snake


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.width = 4096  # never fold a long URL or command line
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _block_style(node: Any) -> None:
    """Turn a flow-style (JSON-like) mapping into block style so added entries read naturally."""
    if isinstance(node, CommentedMap):
        node.fa.set_block_style()


def _plain(value: Any) -> Any:
    """Round-trip containers as plain dicts/lists, for validation."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def _to_yaml(value: Any) -> Any:
    """A value as written: sequences and mappings as block-style round-trip nodes."""
    if isinstance(value, Mapping):
        out = CommentedMap()
        for k, v in value.items():
            out[str(k)] = _to_yaml(v)
        return out
    if isinstance(value, list | tuple):
        seq = CommentedSeq(_to_yaml(v) for v in value)
        seq.fa.set_flow_style()  # args and allowlists read best on one line
        return seq
    return value


def check_env_names(servers: Mapping[str, StdioServer | HttpServer]) -> None:
    """Refuse stdio ``env`` names the subprocess predicate would refuse at launch -- now, not at first use."""
    for name, entry in servers.items():
        if not isinstance(entry, StdioServer):
            continue
        for var in entry.env:
            if env_name_refused(var):
                shown = var if re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]{0,127}", var) else "(not a plain name)"
                raise McpConfigError(
                    f"{CONFIG_FILE}: servers.{name}.env: {shown!r} looks like a credential or changes what "
                    "runs, and mcp.yaml is a plain file: store a secret with 'relavium secret set' and use "
                    "an http server's credentialRef instead"
                )


class McpYamlEditor:
    """The server entries of one ``mcp.yaml``: validated reads and round-trip, atomic edits."""

    def __init__(self, home: Path) -> None:
        self.path = Path(home) / CONFIG_FILE
        self._lock = threading.RLock()

    def __repr__(self) -> str:
        return f"McpYamlEditor({str(self.path)!r})"

    # -- reading ------------------------------------------------------------------------

    def stamp(self) -> Stamp | None:
        """``(st_mtime_ns, st_size, st_ino)``, or None when the file does not exist (cheap change check)."""
        try:
            st = os.stat(self.path)
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def servers(self) -> dict[str, StdioServer | HttpServer]:
        """The validated entries in file order; raises McpConfigError for a broken file.

        A broken file whose ``mcp.yaml.bak`` loads gives the ``.bak``'s entries
        (what the app runs on, see :meth:`bak_in_use`); editing is refused then.
        """
        return self._validate(self._current_section())

    def bak_in_use(self) -> BakInUse | None:
        """Why the entries come from ``mcp.yaml.bak`` (the file is broken), or None; raises for no usable copy."""
        return load_or_bak(self.path, self._section_at, McpConfigError)[1]

    def _current_section(self) -> dict[str, Any]:
        return load_or_bak(self.path, self._section_at, McpConfigError)[0]

    def _section_at(self, path: Path) -> dict[str, Any]:
        """The validated plain ``servers`` section of the file at ``path`` (``mcp.yaml`` or its ``.bak``)."""
        section = self._section_plain(self._load(YAML(typ="safe"), self._read_text(path)))
        self._validate(section)
        return section

    def raw_entry(self, name: str) -> dict[str, Any]:
        """Server ``name`` exactly as the file (or the ``.bak`` in use) spells it, for an edit form, as plain data."""
        section = self._current_section()
        if name not in section:
            raise self._unknown(name, section)
        value = section[name]
        return dict(value) if isinstance(value, Mapping) else {}

    def _read_text(self, path: Path | None = None) -> str | None:
        try:
            return (path or self.path).read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError:
            raise McpConfigError(f"{CONFIG_FILE}: is not UTF-8 text") from None
        except OSError as exc:
            raise McpConfigError(f"{CONFIG_FILE}: cannot be read ({exc.strerror or type(exc).__name__})") from None

    def _load(self, yaml: YAML, text: str | None) -> Any:
        if text is None:
            return None
        try:
            return yaml.load(text)
        except MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            at = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            raise McpConfigError(f"{CONFIG_FILE}: not valid YAML{at}") from None
        except YAMLError:
            raise McpConfigError(f"{CONFIG_FILE}: not valid YAML") from None

    @staticmethod
    def _section_plain(doc: Any) -> dict[str, Any]:
        if doc is None:
            return {}
        if not isinstance(doc, Mapping) or set(doc) - {"servers"}:
            raise McpConfigError(f"{CONFIG_FILE}: the top level must be a mapping with one key, 'servers'")
        section = doc.get("servers")
        if section is None:
            return {}
        if not isinstance(section, Mapping):
            raise McpConfigError(f"{CONFIG_FILE}: 'servers' must be a mapping of server name to its entry")
        return {str(k): _plain(v) for k, v in section.items()}

    @staticmethod
    def _validate(section: Mapping[str, Any]) -> dict[str, StdioServer | HttpServer]:
        servers = parse_servers(dict(section))
        check_env_names(servers)
        return servers

    # -- editing -----------------------------------------------------------------------

    def add_server(self, name: str, entry: Mapping[str, Any]) -> None:
        """Add a new server; a name already in the file is refused (edit it instead)."""
        with self._lock:
            doc, section = self._edit_doc()
            if name in section:
                raise McpConfigError(f"{CONFIG_FILE}: a server named {name!r} already exists; edit it instead")
            section[name] = _to_yaml(dict(entry))
            self._write(doc)

    def update_server(self, name: str, fields: Mapping[str, Any]) -> None:
        """Set ``fields`` of server ``name`` in place (None removes a field); the others, and comments, stay.

        A field is matched in either spelling (``allowLocal`` / ``allow_local``),
        so an edit never leaves both in the file.
        """
        with self._lock:
            doc, section = self._edit_doc()
            target = section.get(name)
            if not isinstance(target, CommentedMap):
                raise self._unknown(name, section)
            for key, value in fields.items():
                present = [k for k in _spellings(key) if k in target]
                if value is None:
                    for k in present:
                        del target[k]
                    continue
                keep = key if key in target or not present else present[0]
                for k in present:
                    if k != keep:
                        del target[k]
                target[keep] = _to_yaml(value)
            self._write(doc)

    def rename_server(self, old: str, new: str) -> None:
        """Give server ``old`` the name ``new``, keeping its place in the file and its comments."""
        with self._lock:
            doc, section = self._edit_doc()
            if old not in section:
                raise self._unknown(old, section)
            if new in section:
                raise McpConfigError(f"{CONFIG_FILE}: a server named {new!r} already exists")
            position = list(section).index(old)
            value = section.pop(old)
            section.insert(position, new, value)
            self._write(doc)

    def remove_server(self, name: str) -> None:
        with self._lock:
            doc, section = self._edit_doc()
            if name not in section:
                raise self._unknown(name, section)
            del section[name]
            if not section:
                # A removed entry's comment would otherwise sit above a bare "{}".
                doc["servers"] = CommentedMap()
                doc.ca.items.pop("servers", None)
            self._write(doc)

    def set_tools_allowlist(self, name: str, tools: Sequence[str] | None) -> None:
        """Offer only ``tools`` of server ``name``; None offers all of them (the key is removed)."""
        self.update_server(name, {"toolsAllowlist": list(tools) if tools is not None else None})

    # -- the file --------------------------------------------------------------------------

    def _unknown(self, name: str, section: Mapping[str, Any]) -> McpConfigError:
        known = ", ".join(sorted(str(k) for k in section)) or "none"
        return McpConfigError(f"{CONFIG_FILE}: no server named {name!r}; configured: {known}")

    def _edit_doc(self) -> tuple[CommentedMap, CommentedMap]:
        """The round-trip document and its ``servers`` mapping; refuses a file that does not load."""
        notice = self.bak_in_use()  # a broken file raises here, saying what is wrong, before any edit
        if notice is not None:
            raise McpConfigError(notice.refusal())
        text = self._read_text()
        doc = self._load(_yaml(), text) if text is not None else None
        if doc is None:
            doc = CommentedMap([("servers", CommentedMap())])
            doc.yaml_set_start_comment(HEADER)
            return doc, doc["servers"]
        self._validate(self._section_plain(doc))  # say what is wrong before editing around it
        _block_style(doc)
        section = doc.get("servers")
        if not isinstance(section, CommentedMap):
            section = doc["servers"] = CommentedMap()
        _block_style(section)
        return doc, section

    def _write(self, doc: CommentedMap) -> None:
        buf = io.StringIO()
        _yaml().dump(doc, buf)
        text = buf.getvalue()
        # What is written must load back as valid servers; otherwise nothing is written.
        self._validate(self._section_plain(self._load(YAML(typ="safe"), text)))
        try:
            write_text_atomic(self.path, text, mode=FILE_MODE)
        except OSError as exc:
            raise McpConfigError(f"{CONFIG_FILE}: cannot be written ({exc.strerror or type(exc).__name__})") from None
