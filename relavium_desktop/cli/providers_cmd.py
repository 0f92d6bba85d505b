"""``relavium providers list|add|remove|test|models``: the provider store from the command line.

The same ``$RELAVIUM_HOME/providers.yaml`` (or ``--providers FILE``) that
workflows, ``relavium agent`` and the desktop read, edited in place with its
comments kept.  Keys are only ever references (``secret:NAME``, ``env:NAME``):
``add`` refuses a key value without repeating it.  ``test`` sends one real
one-token request to a model the server lists (or ``--model``) and says
which, ``models`` asks the provider for its live model list
(cached for a day; offline it falls back to the cache or the known models,
with a note).  Exit 0 ok, 1 failed (a test that did not pass, an unknown
provider, a settings problem), 2 usage.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relavium_desktop.cli import EXIT_FAILED, EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import action_failed, print_result

if TYPE_CHECKING:
    from relavium_desktop.application.providers import ConnectionResult, ProviderEntry, ProviderStore

ACTIONS = ("list", "add", "remove", "test", "models")
KINDS = ("anthropic", "openai", "gemini")


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=ACTIONS, help="what to do")
    p.add_argument("name", nargs="?", metavar="NAME", help="provider name (all actions but list)")
    p.add_argument("--providers", metavar="FILE",
                   help="provider settings file (default: $RELAVIUM_HOME/providers.yaml)")
    p.add_argument("--kind", choices=KINDS, help="add: the wire format (openai = any OpenAI-compatible server)")
    p.add_argument("--base-url", help="add: the endpoint (default: the kind's cloud URL)")
    p.add_argument("--api-key", metavar="REF", help="add: the key as a reference, secret:NAME or env:NAME")
    p.add_argument("--allow-local", action="store_true",
                   help="add: allow a local or private address (and plain http), for a server you run")
    p.add_argument("--timeout", type=float, metavar="S", help="add: request timeout in seconds")
    p.add_argument("--replace", action="store_true", help="add: replace an existing entry of that name")
    p.add_argument("--model", help="test: the model to ask (default: one the provider lists -- the kind's "
                   "cheap model when listed, else the first chat model of its list)")
    p.add_argument("--refresh", action="store_true", help="models: fetch even when the cached list is fresh")
    p.add_argument("--json", action="store_true", help="print JSON only")


class _Failed(Exception):
    """A failure with an error code for the JSON document (exit 1)."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.extra = extra


def _check_usage(args: argparse.Namespace) -> None:
    if args.action == "list":
        if args.name:
            raise UsageError("providers list takes no NAME")
    elif not args.name:
        raise UsageError(f"providers {args.action} needs a NAME")
    only = {
        "--kind": ("add", args.kind), "--base-url": ("add", args.base_url), "--api-key": ("add", args.api_key),
        "--allow-local": ("add", args.allow_local), "--timeout": ("add", args.timeout),
        "--replace": ("add", args.replace), "--model": ("test", args.model), "--refresh": ("models", args.refresh),
    }
    for flag, (action, value) in only.items():
        if value not in (None, False) and args.action != action:
            raise UsageError(f"{flag} applies only to 'providers {action}'")
    if args.action == "add" and not args.kind:
        raise UsageError("providers add needs --kind (anthropic, openai or gemini)")
    if args.timeout is not None and not 0 < args.timeout <= 3600:
        raise UsageError("--timeout must be more than 0 and at most 3600 seconds")


def _home(args: argparse.Namespace) -> Path:
    """The data folder of the entry point's Application (the model cache, the keys' lookups live there)."""
    home: Path = args.app.paths.home
    return home


def _store(args: argparse.Namespace) -> ProviderStore:
    from relavium_desktop.application.providers import provider_store

    return provider_store(_home(args), settings_file=Path(args.providers) if args.providers else None)


def _entry_json(entry: ProviderEntry) -> dict[str, Any]:
    return {"kind": entry.kind, "baseUrl": entry.base_url, "apiKey": entry.api_key,
            "allowLocal": entry.allow_local, "timeoutS": entry.timeout_s}


def _lookup(store: ProviderStore, name: str) -> ProviderEntry:
    entries = store.entries()
    entry = entries.get(name)
    if entry is None:
        raise _Failed("unknown_provider", f"no provider named {name!r} in {store.path.name}; configured: "
                      f"{', '.join(entries) or 'none'}", name=name)
    return entry


def _table(rows: list[list[str]]) -> str:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip() for r in rows)


def _list(args: argparse.Namespace, store: ProviderStore) -> tuple[object, str]:
    from relavium_desktop.application.model_catalog import provider_readiness
    from relavium_desktop.application.providers import ProviderConfigError, basic_validate_base_url

    entries = store.entries()
    for name, entry in entries.items():  # an entry chat would refuse is not listed as if it worked
        try:
            basic_validate_base_url(entry.base_url, entry.allow_local)
        except ProviderConfigError as exc:
            from relavium_desktop.application.settings_files import backup_note

            raise ProviderConfigError(f"{store.path.name}: provider {name!r}: {exc}{backup_note(store.path)}") from None
    statuses = provider_readiness(entries)
    out = [{"name": s.name, **_entry_json(entries[s.name]), "key": s.key_state} for s in statuses]
    rows = [["NAME", "KIND", "BASE URL", "KEY", "KEY STATE"]]
    rows += [[s.name, s.kind, s.base_url + ("  (local)" if entries[s.name].allow_local else ""),
              s.key_ref or "-", s.key_state] for s in statuses]
    text = _table(rows) if statuses else f"no providers in {store.path}"
    return out, text


def _add(args: argparse.Namespace, store: ProviderStore) -> tuple[object, str]:
    from relavium_desktop.application.providers import (
        DEFAULT_ENTRIES,
        basic_validate_base_url,
        validated_entry,
    )

    default = next(e for e in DEFAULT_ENTRIES.values() if e.kind == args.kind)
    base_url = (args.base_url or default.base_url).strip()
    basic_validate_base_url(base_url, args.allow_local)
    fields: dict[str, Any] = {"kind": args.kind, "base_url": base_url, "api_key": args.api_key,
                              "allow_local": args.allow_local}
    if args.timeout is not None:
        fields["timeout_s"] = args.timeout
    entry = validated_entry(fields, where=store.path.name, name=args.name)
    store.add(args.name, entry, replace=args.replace)
    key = entry.api_key or "no key"
    return ({"ok": True, "name": args.name, "entry": _entry_json(entry)},
            f"added provider {args.name!r} ({entry.kind}, {entry.base_url}, {key}) to {store.path}")


def _remove(args: argparse.Namespace, store: ProviderStore) -> tuple[object, str]:
    _lookup(store, args.name)
    store.remove(args.name)
    return {"ok": True, "name": args.name, "removed": True}, f"removed provider {args.name!r} from {store.path}"


def next_step_text(result: ConnectionResult, name: str, entry: ProviderEntry) -> str | None:
    """What to type to fix a failed test: the terminal's own words for the check's next step."""
    if result.next_step == "set_key":
        ref = result.key_ref or ""
        if ref.startswith("secret:"):
            return f"Store the key with 'relavium secret set {ref.removeprefix('secret:')}' and test again."
        if ref.startswith("env:"):
            return f"Set the environment variable {ref.removeprefix('env:')} to a valid key and test again."
        secret = "".join(c if c.isalnum() else "_" for c in name).upper() + "_API_KEY"
        local = " --allow-local" if entry.allow_local else ""
        return (f"Give it a key: 'relavium providers add {name} --kind {entry.kind} --base-url {entry.base_url} "
                f"--api-key secret:{secret}{local} --replace', then 'relavium secret set {secret}'.")
    if result.next_step == "allow_local":
        return (f"To allow it: 'relavium providers add {name} --kind {entry.kind} "
                f"--base-url {entry.base_url}{' --api-key ' + entry.api_key if entry.api_key else ''} "
                "--allow-local --replace'.")
    return None


def _test(args: argparse.Namespace, store: ProviderStore) -> tuple[object, str, bool]:
    from relavium_desktop.application.providers import entry_test

    entry = _lookup(store, args.name)
    # Without --model: one the server itself lists (check.choose_test_model); the result names it.
    result = asyncio.run(entry_test(args.app.paths, args.name, entry, args.model))
    step = next_step_text(result, args.name, entry)
    message = f"{result.message} {step}" if step else result.message
    return ({"ok": result.ok, "name": args.name, "outcome": result.outcome, "message": message,
             "nextStep": result.next_step, "model": result.model}, message, result.ok)


def _models(args: argparse.Namespace, store: ProviderStore) -> tuple[object, str, str | None]:
    from relavium_desktop.application.model_catalog import fetch_model_list

    entry = _lookup(store, args.name)
    listed = asyncio.run(fetch_model_list(args.app.paths, args.name, entry, refresh=args.refresh))
    out = {"provider": listed.provider, "source": listed.source, "note": listed.note,
           "fetchedAt": listed.fetched_at,
           "models": [{"id": m.id, "displayName": m.display_name} for m in listed.models]}
    return out, "\n".join(m.id for m in listed.models), listed.note


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.application.providers import ProviderConfigError

    _check_usage(args)
    ok, note = True, None
    try:
        store = _store(args)
        if args.action in ("list", "test", "models"):  # add and remove are refused, saying why
            from relavium_desktop.cli.settings_notices import providers_notice, say

            say(providers_notice(store))
        if args.action == "list":
            out, text = _list(args, store)
        elif args.action == "add":
            out, text = _add(args, store)
        elif args.action == "remove":
            out, text = _remove(args, store)
        elif args.action == "test":
            out, text, ok = _test(args, store)
        else:
            out, text, note = _models(args, store)
    except (ProviderConfigError, _Failed) as exc:
        code = exc.code if isinstance(exc, _Failed) else "provider_config"
        extra = exc.extra if isinstance(exc, _Failed) else {}
        return action_failed(args.json, f"providers {args.action}", code, str(exc), extra)
    print_result(args.json, out, text)
    if not args.json:
        if note:
            print(note, file=sys.stderr)
        elif not ok:
            print(f"relavium: providers test: {args.name} did not pass", file=sys.stderr)
    return EXIT_OK if ok else EXIT_FAILED
