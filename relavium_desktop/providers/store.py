"""``providers.yaml``: the one provider store every surface reads and edits.

Why one store: the CLI, workflows and the desktop used to hold their own idea
of which providers exist (defaults merged under the file, endpoint overrides
in the window's settings).  Here the file is the whole truth once it exists
-- no merging with the built-in defaults, so removing ``anthropic`` really
removes it -- and it is edited in place with ruamel.yaml's round-trip mode so
a person's comments, key order and unrelated entries survive every edit.

Reading is cached per file and repeated only when its stamp
``(st_mtime_ns, st_size, st_ino)`` changes, so a picker can ask on every
paint.  Writes go to a temporary file in the same folder, are fsync'd and
then renamed over the old one (owner-only, 0600): a crash leaves either the
old file or the new one, never half of each.  A key is never written: entries
hold references (``secret:NAME``, ``env:NAME``) and :class:`ProviderEntry`
refuses anything else, on writing and on reading.
"""

from __future__ import annotations

import io
import os
import re
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.representer import RoundTripRepresenter

from relavium_desktop.host.atomic import backup_path, write_text_atomic
from relavium_desktop.host.settings_bak import BakInUse, load_or_bak
from relavium_desktop.providers.config import DEFAULT_ENTRIES, ProviderConfigError, ProviderEntry

Stamp = tuple[int, int, int]
NAME_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$")
FILE_MODE = 0o600
HEADER = (
    "Relavium providers: read by the relavium CLI, workflows and the desktop app.\n"
    "Each entry is a name (used in routes as name/model) with kind anthropic, openai\n"
    "(any OpenAI-compatible server) or gemini, a base_url, and api_key as a REFERENCE:\n"
    "secret:NAME (the OS keyring: relavium secret set NAME) or env:NAME, never the key\n"
    "itself. allow_local: true admits a local or private address (and plain http).\n"
    "Edit by hand or with `relavium providers add|remove`; comments are kept."
)
_FIELDS = tuple(ProviderEntry.model_fields)


def check_name(name: str) -> str:
    """A provider name usable in a ``name/model`` route: no slash, no spaces, 1-64 characters."""
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise ProviderConfigError(
            f"invalid provider name {name!r}: use 1-64 letters, digits, '.', '_' or '-', "
            "starting with a letter or digit (no '/': routes are provider/model)"
        )
    return name


def validate_entry(data: object, *, where: str, name: str) -> ProviderEntry:
    """``data`` as a :class:`ProviderEntry`, or a secret-free error naming file, provider and field."""
    try:
        return ProviderEntry.model_validate(data)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False, include_context=False)[0]
        loc = ".".join(str(p) for p in first.get("loc", ())) or "entry"
        msg = str(first.get("msg", "invalid"))
        msg = msg.removeprefix("Value error, ")
        raise ProviderConfigError(f"{where}: provider {name!r}: {loc}: {msg}") from None


def _entry_fields(entry: ProviderEntry) -> dict[str, Any]:
    """What an entry writes: kind, base_url and api_key always; the rest only when not the default."""
    out: dict[str, Any] = {"kind": entry.kind, "base_url": entry.base_url, "api_key": entry.api_key}
    for field in ("allow_local", "timeout_s"):
        value = getattr(entry, field)
        if value != ProviderEntry.model_fields[field].default:
            out[field] = value
    return out


class _Representer(RoundTripRepresenter):
    """Round-trip representer writing ``null`` (ruamel's default writes nothing after ``api_key:``).

    A subclass, because ``add_representer`` changes the class it is called on
    and other code in the process dumps round-trip YAML too.
    """


_Representer.add_representer(
    type(None), lambda rep, _: rep.represent_scalar("tag:yaml.org,2002:null", "null"))


def _yaml() -> YAML:
    yaml = YAML(typ="rt")
    yaml.width = 4096  # never fold a long URL
    yaml.Representer = _Representer
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


def _block_style(node: Any) -> None:
    """Turn a JSON-style (flow) document into block style, recursively, keeping its content."""
    if isinstance(node, CommentedMap | CommentedSeq):
        node.fa.set_block_style()
        for child in node.values() if isinstance(node, CommentedMap) else node:
            _block_style(child)


class ProviderStore:
    """The provider entries of one ``providers.yaml``; cached reads, round-trip atomic edits."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self._lock = threading.RLock()
        self._cached: tuple[tuple[Stamp, Stamp | None], dict[str, ProviderEntry], BakInUse | None] | None = None

    def __repr__(self) -> str:
        return f"ProviderStore({str(self.path)!r})"

    # -- reading ----------------------------------------------------------------------

    def stamp(self) -> Stamp | None:
        """``(st_mtime_ns, st_size, st_ino)`` of the file, or None when it does not exist.

        Public so a view can tell cheaply whether the file changed since it painted.
        """
        try:
            st = os.stat(self.path)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise ProviderConfigError(
                f"{self.path.name}: cannot read provider settings ({exc.strerror or type(exc).__name__})"
            ) from None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def entries(self) -> dict[str, ProviderEntry]:
        """Name → entry; the built-in defaults only while the file does not exist.

        A broken file whose last good copy (``providers.yaml.bak``) loads gives
        that copy's entries, in memory (:meth:`bak_in_use` says so; edits are
        refused meanwhile).  Otherwise raises ``ProviderConfigError`` naming the
        file, the provider and the field (never a key value).
        """
        return dict(self._state()[0])

    def bak_in_use(self) -> BakInUse | None:
        """Why the entries come from ``providers.yaml.bak`` (the file is broken), or None."""
        return self._state()[1]

    def _state(self) -> tuple[dict[str, ProviderEntry], BakInUse | None]:
        with self._lock:
            stamp = self.stamp()
            if stamp is None:
                self._cached = None
                return dict(DEFAULT_ENTRIES), None
            bak_stamp = self._bak_stamp()
            if self._cached is not None and self._cached[0] == (stamp, bak_stamp):
                return self._cached[1], self._cached[2]
            entries, notice = load_or_bak(self.path, self._entries_at, ProviderConfigError)
            self._cached = ((stamp, bak_stamp), entries, notice)
            return entries, notice

    def _bak_stamp(self) -> Stamp | None:
        try:
            st = os.stat(backup_path(self.path))
        except OSError:
            return None
        return (st.st_mtime_ns, st.st_size, st.st_ino)

    def _entries_at(self, path: Path) -> dict[str, ProviderEntry]:
        """The entries of ``path`` (this file or its ``.bak``); errors name ``providers.yaml``."""
        return self._parse(self._read_text(path))

    def _read_text(self, path: Path | None = None) -> str:
        try:
            return (path or self.path).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise ProviderConfigError(f"{self.path.name}: provider settings are not UTF-8 text") from None
        except OSError as exc:
            raise ProviderConfigError(
                f"{self.path.name}: cannot read provider settings ({exc.strerror or type(exc).__name__})"
            ) from None

    def _load(self, text: str, yaml: YAML) -> Any:
        try:
            return yaml.load(text)
        except MarkedYAMLError as exc:
            mark = exc.problem_mark or exc.context_mark
            where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
            raise ProviderConfigError(
                f"{self.path.name}: not valid YAML{where} ({type(exc).__name__})"
            ) from None
        except YAMLError as exc:
            raise ProviderConfigError(f"{self.path.name}: not valid YAML ({type(exc).__name__})") from None

    def _parse(self, text: str) -> dict[str, ProviderEntry]:
        """Entries from ``text``: a top-level ``providers:`` mapping, or a bare mapping of names."""
        data = self._load(text, YAML(typ="safe"))
        raw = data.get("providers") if isinstance(data, Mapping) and "providers" in data else data
        if raw is None:
            return {}
        if not isinstance(raw, Mapping):
            raise ProviderConfigError(f"{self.path.name}: expected a mapping of provider names to entries")
        return {str(name): validate_entry(value, where=self.path.name, name=str(name))
                for name, value in raw.items()}

    # -- editing ------------------------------------------------------------------------

    def add(self, name: str, entry: ProviderEntry, *, replace: bool = False) -> None:
        """Add provider ``name``; an existing one only with ``replace=True``."""
        check_name(name)
        entry = validate_entry(entry.model_dump(), where=self.path.name, name=name)
        with self._lock:
            doc, section = self._edit_doc()
            if name in section and not replace:
                raise ProviderConfigError(
                    f"{self.path.name}: a provider named {name!r} already exists (replace it explicitly)"
                )
            fields = _entry_fields(entry)
            if name in section and isinstance(section[name], CommentedMap):
                target = section[name]  # keep its comments; drop fields the new entry leaves at default
                for key in [k for k in target if k not in fields]:
                    del target[key]
                for key, value in fields.items():
                    target[key] = value
            else:
                section[name] = CommentedMap(fields)
            self._write(doc)

    def update(self, name: str, **fields: Any) -> ProviderEntry:
        """Change some fields of provider ``name`` in place; returns the validated result."""
        unknown = sorted(set(fields) - set(_FIELDS))
        if unknown:
            raise ProviderConfigError(f"unknown provider field(s): {', '.join(unknown)}")
        with self._lock:
            current = self.entries()
            if name not in current:
                raise self._unknown(name, current)
            merged = {**current[name].model_dump(), **fields}
            entry = validate_entry(merged, where=self.path.name, name=name)
            doc, section = self._edit_doc()
            target = section.get(name)
            if not isinstance(target, CommentedMap):  # seeded from the defaults, or an odd shape
                section[name] = target = CommentedMap(_entry_fields(current[name]))
            written = _entry_fields(entry)
            for key in fields:
                if key in target or key in written:  # a field at its default stays unwritten
                    target[key] = getattr(entry, key)
            self._write(doc)
            return entry

    def remove(self, name: str) -> None:
        """Remove provider ``name`` (a built-in default too: the file is the whole truth)."""
        with self._lock:
            current = self.entries()
            if name not in current:
                raise self._unknown(name, current)
            doc, section = self._edit_doc()
            del section[name]
            if not section and section is not doc:
                # The removed entry's leading comment would otherwise be dumped above a bare
                # "{}" -- YAML that does not parse -- so the emptied list starts afresh.
                doc["providers"] = CommentedMap()
                doc.ca.items.pop("providers", None)
            self._write(doc)

    def _unknown(self, name: str, current: Mapping[str, ProviderEntry]) -> ProviderConfigError:
        known = ", ".join(sorted(current)) or "none"
        return ProviderConfigError(f"{self.path.name}: no provider named {name!r}; configured: {known}")

    def _edit_doc(self) -> tuple[Any, CommentedMap]:
        """The round-trip document and its providers mapping; seeded with the defaults when absent."""
        if self.stamp() is None:
            section = CommentedMap((n, CommentedMap(_entry_fields(e))) for n, e in DEFAULT_ENTRIES.items())
            doc = CommentedMap([("providers", section)])
            doc.yaml_set_start_comment(HEADER)
            return doc, section
        notice = self.bak_in_use()  # refuse to edit a file that does not parse: say why first
        if notice is not None:  # running on the .bak: an edit would replace the broken file with old content
            raise ProviderConfigError(notice.refusal())
        doc = self._load(self._read_text(), _yaml())
        if doc is None:
            doc = CommentedMap([("providers", CommentedMap())])
            doc.yaml_set_start_comment(HEADER)
        if getattr(doc, "fa", None) is not None and doc.fa.flow_style():
            _block_style(doc)
        section = doc.get("providers", doc)
        if section is None:
            section = doc["providers"] = CommentedMap()
        if not isinstance(section, CommentedMap):
            raise ProviderConfigError(f"{self.path.name}: expected a mapping of provider names to entries")
        if section.fa.flow_style():
            _block_style(section)
        return doc, section

    def _write(self, doc: Any) -> None:
        buf = io.StringIO()
        _yaml().dump(doc, buf)
        text = buf.getvalue()
        self._parse(text)  # what is written must read back (and hold references only)
        write_text_atomic(self.path, text, mode=FILE_MODE)
        self._cached = None


_STORES: dict[Path, ProviderStore] = {}
_STORES_LOCK = threading.Lock()


def store_for(path: Path) -> ProviderStore:
    """The one :class:`ProviderStore` of this process for ``path``, so every reader shares its cache."""
    key = Path(os.path.abspath(path))
    with _STORES_LOCK:
        store = _STORES.get(key)
        if store is None:
            store = _STORES[key] = ProviderStore(key)
        return store
