"""``relavium secret set|list|delete``: the keyring-backed secret store.

``set`` reads the value from stdin -- never from argv, where it would land
in shell history and in every process listing.  ``list`` shows names and
the last four characters only.  With no usable keyring backend every action
prints the store's explanation (which backend was tried, how to enable one)
and exits 1; there is no plaintext fallback.
"""

from __future__ import annotations

import argparse
import getpass
import sys

from relavium_desktop.cli import EXIT_OK, UsageError
from relavium_desktop.cli.jsonargs import action_failed, print_result


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("action", choices=["set", "list", "delete"], help="what to do")
    p.add_argument("name", nargs="?", metavar="NAME", help="secret name (set/delete); the value is read from stdin")
    p.add_argument("--json", action="store_true", help="print JSON only")


def _read_value() -> str:
    if sys.stdin.isatty():
        return getpass.getpass("secret value: ")
    value = sys.stdin.read()
    # One trailing newline is what `echo` or a here-string adds, not part of the secret.
    if value.endswith("\r\n"):
        return value[:-2]
    return value[:-1] if value.endswith("\n") else value


def run(args: argparse.Namespace) -> int:
    from relavium_desktop.application.secrets import SecretStoreError, secret_store

    if args.action in ("set", "delete") and not args.name:
        raise UsageError(f"secret {args.action} needs a NAME")
    if args.action == "list" and args.name:
        raise UsageError("secret list takes no NAME")
    store = secret_store()
    try:
        if args.action == "set":
            value = _read_value()
            if not value:
                raise UsageError("no secret value on stdin (e.g. `printf %s \"$KEY\" | relavium secret set NAME`)")
            store.set(args.name, value)
            out: object = {"ok": True, "name": args.name}
            text = f"stored secret {args.name!r} (refer to it as secret:{args.name})"
        elif args.action == "delete":
            if not store.delete(args.name):
                raise SecretStoreError(f"no secret named {args.name!r}")
            out = {"ok": True, "name": args.name, "deleted": True}
            text = f"deleted secret {args.name!r}"
        else:
            entries = store.list()
            out = [{"name": e.name, "hint": e.hint} for e in entries]
            width = max((len(e.name) for e in entries), default=0)
            text = "\n".join(f"{e.name:<{width}}  {e.hint}" for e in entries) or "no secrets stored"
    except SecretStoreError as exc:
        return action_failed(args.json, f"secret {args.action}", "secret_store", str(exc))
    print_result(args.json, out, text)
    return EXIT_OK
