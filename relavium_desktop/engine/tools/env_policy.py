"""Which declared environment variables a subprocess may receive: an audited allowlist.

A node may declare extra variables for its command (run_command's
config-only ``env``; an MCP server entry's ``env``).  A refusal list is
never complete -- every toolchain invents another start-up hook -- so a
declared name passes only when it is

1. an **inert** name from :data:`INERT_NAMES` (or a locale ``LC_*``): a
   variable that selects output formatting, locale or CI mode and never
   names code, a file to load or a place to connect to; or
2. listed explicitly by the user or workflow author in the policy's
   ``allowedEnv`` (a workflow's ``tools.allowedEnv``, ``--policy``'s
   ``allowedEnv``, Settings -> Chat tools -> Allowed variables);

and, either way, is not in a **hijack family** (:data:`HIJACK_FAMILIES`):
loader and libc variables, interpreter and toolchain start-up hooks, shell
and editor hooks, config-file and search-path redirects, TLS and proxy
settings, git/ssh transport, credentials and cloud vendors, and the
variables the host builds itself.  Those are refused even when listed: no
policy can lift them.

Names are compared upper-cased (Windows names are case-insensitive and many
programs read either spelling of a proxy variable), so ``ld_preload`` and
``Gconv_Path`` are the names they look like.  The values never leave the
node's config; a few inert names constrain their value too (a locale or
terminal name may not be a path, a ``TZ`` may not name a file).

The tables are data, and :data:`EXAMPLES` is checked when the module loads
(as codex-execpolicy checks its policy examples), so an edit that lets a
refused name through, or refuses an inert one, fails at import, not in a
user's run.  The same predicate serves every spawner (run_command, MCP stdio
servers, plugins), so what one refuses the others refuse.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection, Mapping

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError

_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def _no_path(value: str) -> bool:
    """A locale or codec name: letters, digits and ``_.@:-``; never a path to a file."""
    return re.fullmatch(r"[A-Za-z0-9_.@:+-]*", value) is not None


def _terminal(value: str) -> bool:
    return re.fullmatch(r"[A-Za-z0-9_.+-]*", value) is not None


def _timezone(value: str) -> bool:
    """A zone name (``Europe/Berlin``, ``UTC+2``); not an absolute or ``:file`` spelling, no ``..``."""
    return (re.fullmatch(r"[A-Za-z0-9_+,.:<>/-]*", value) is not None
            and not value.startswith(("/", ":")) and ".." not in value)


def _number(value: str) -> bool:
    return value.isdigit() and len(value) <= 6


def _any(value: str) -> bool:
    return True


# Inert names (upper-case) and the values each accepts.  Keep this list
# conservative: a name belongs here only if no program reads it as code, a
# file to load, a library, a plugin or a network destination.
INERT_NAMES: Mapping[str, Callable[[str], bool]] = {
    # CI and build modes.
    "CI": _any, "NODE_ENV": _any, "RAILS_ENV": _any, "APP_ENV": _any, "DEBUG": _any,
    "LOG_LEVEL": _any, "VERBOSE": _any, "RUST_LOG": _any, "RUST_BACKTRACE": _any,
    "SOURCE_DATE_EPOCH": _number,
    # Locale, time zone and terminal.
    "LANG": _no_path, "LANGUAGE": _no_path, "TZ": _timezone, "TERM": _terminal,
    "COLORTERM": _terminal, "COLUMNS": _number, "LINES": _number,
    "NO_COLOR": _any, "FORCE_COLOR": _any, "CLICOLOR": _any, "CLICOLOR_FORCE": _any,
    "TMPDIR": _any,
    # Harmless members of refused families: git identity, Python's output switches.
    "GIT_AUTHOR_NAME": _any, "GIT_AUTHOR_EMAIL": _any, "GIT_AUTHOR_DATE": _any,
    "GIT_COMMITTER_NAME": _any, "GIT_COMMITTER_EMAIL": _any, "GIT_COMMITTER_DATE": _any,
    "PYTHONUNBUFFERED": _any, "PYTHONIOENCODING": _no_path, "PYTHONDONTWRITEBYTECODE": _any,
    "PYTHONUTF8": _any, "PYTHONHASHSEED": _any,
}
# Locale categories: LC_ALL, LC_CTYPE, LC_MESSAGES, ... (a locale name, never a path).
_INERT_LOCALE = re.compile(r"^LC_[A-Z]+$")


def _family(label: str, *patterns: str) -> tuple[str, re.Pattern[str]]:
    return label, re.compile("^(?:" + "|".join(patterns) + ")$")


# The hijack families: refused even when listed in allowedEnv.  ``(label, pattern)``
# on the upper-cased name; the label is what the refusal says.
HIJACK_FAMILIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    _family("a variable the host builds for every child",
            "PATH", "HOME", "PATHEXT", "SYSTEMROOT", "WINDIR", "COMSPEC", "USERPROFILE", "APPDATA",
            "LOCALAPPDATA", "PROGRAMDATA", "PSMODULEPATH", "SHELL"),
    _family("the dynamic loader and C library (they load code or data files from it)",
            "LD_.*", "DYLD_.*", "GLIBC_TUNABLES", "MALLOC_.*", "GCONV_PATH", "LOCPATH", "NLSPATH",
            "GETCONF_DIR", "HOSTALIASES", "RES_OPTIONS", "LOCALDOMAIN", "TZDIR"),
    _family("an interpreter or toolchain start-up hook",
            "PYTHON.*", "NODE_.*", "NPM_.*", "YARN_.*", "PNPM_.*", "BUN_.*", "DENO_.*", "PERL.*",
            "RUBY.*", "GEM_.*", "BUNDLE_.*", "JAVA_.*", "_JAVA_.*", "JDK_.*", "CLASSPATH", "MAVEN_.*",
            "GRADLE_.*", "COR_.*", "CORECLR_.*", "DOTNET_.*", "ELECTRON_.*", "CGO_.*",
            "GO(FLAGS|PROXY|ROOT|TOOLCHAIN|ENV|BIN|CACHE|MODCACHE|PRIVATE|NOPROXY|NOSUMDB|NOSUMCHECK|SUMDB"
            "|INSECURE|VCS|WORK|EXPERIMENT|DEBUG|AUTH|TMPDIR|COVERDIR|TELEMETRY.*)",
            "RUSTC.*", "RUSTDOC.*", "CARGO_.*", "RUSTUP_.*", "LUA_.*", "PHP.*", "R_.*", "JULIA_.*",
            "ERL_.*", "ELIXIR_.*", "MIX_.*", "TCL.*", "OCAML.*", "PIP_.*", "UV_.*", "CONDA_.*",
            "POETRY_.*", "PIPENV_.*", "VIRTUAL_ENV", "PYENV.*", "NVM_.*", "VOLTA_.*", "ASDF_.*",
            "MISE_.*", "COMPOSER_.*", "NUGET_.*",
            "CC", "CXX", "CPP", "LD", "AR", "AS", "NM", "RANLIB", "STRIP", "MAKE", "MAKEFLAGS",
            "MFLAGS", "[A-Z]*FLAGS", ".*_OPTIONS", ".*_OPTS", ".*_WRAPPER"),
    _family("a shell, editor or pager hook",
            "BASH_ENV", "ENV", "BASH_FUNC_.*", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "IFS", "PS4",
            "ZDOTDIR", "CDPATH", "GLOBIGNORE", "INPUTRC", "EDITOR", "VISUAL", "PAGER", "MANPAGER",
            "LESS.*", "BROWSER", "VIMINIT", "GVIMINIT", "EXINIT", "MYVIMRC", "MYGVIMRC", "VIMRUNTIME",
            "EMACS.*", "TERMINFO.*", "TERMCAP", "MAGIC", "MAILCAPS", "SCREENRC", "WGETRC"),
    _family("a config-file, home or search-path redirect",
            "XDG_.*", ".*HOME", ".*CONF", ".*CONFIG", ".*CONFIG_.*", ".*CONF_?(FILE|DIRS?)", ".*RC",
            ".*RC_?FILE",
            ".*PATH", ".*_INIT", "KUBE.*", "GNUPG.*", "DBUS_.*"),
    _family("TLS and certificate settings",
            "OPENSSL_.*", "SSL_.*", "SSLKEYLOGFILE", ".*CA_BUNDLE", ".*CA_?CERTS?(_.*)?", "CURL_.*"),
    _family("a proxy or network transport",
            ".*PROXY.*", "GIT_.*", "SSH_.*", "GPG_.*", "KRB5.*", "SOCKS.*", "NETRC", "DISPLAY",
            "WAYLAND_DISPLAY", "XAUTHORITY"),
    _family("a credential (use the secret store, not an environment variable)",
            ".*TOKEN.*", ".*SECRET.*", ".*PASSW(OR)?D.*", ".*PASS", ".*CREDENTIAL.*", ".*APIKEY.*",
            ".*API_KEY.*", ".*PRIVATE_KEY.*", ".*_KEY", "KEY_.*", ".*_KEY_.*", ".*_AUTH", ".*_AUTH_.*",
            "AUTH_.*", ".*COOKIE.*", ".*_PAT", ".*_DSN", "PG[A-Z]+", "MYSQL.*"),
    _family("a cloud or vendor account",
            "AWS_.*", "AZURE_.*", "GOOGLE_.*", "GCLOUD_.*", "CLOUDSDK_.*", "GH_.*", "GITHUB_.*",
            "GITLAB_.*", "OPENAI_.*", "ANTHROPIC_.*", "GEMINI_.*", "DOCKER_.*", "VAULT_.*",
            "RELAVIUM_.*"),
)

# Checked at import: (name, listed in allowedEnv?, passes?).
EXAMPLES: tuple[tuple[str, bool, bool], ...] = (
    # Inert without any listing.
    ("CI", False, True), ("NODE_ENV", False, True), ("TZ", False, True), ("LANG", False, True),
    ("LC_ALL", False, True), ("LC_MESSAGES", False, True), ("TERM", False, True),
    ("NO_COLOR", False, True), ("FORCE_COLOR", False, True), ("COLUMNS", False, True),
    ("GIT_AUTHOR_NAME", False, True), ("PYTHONUNBUFFERED", False, True), ("node_env", False, True),
    # Harmless but not inert: only when listed.
    ("GREETING", False, False), ("GREETING", True, True), ("MY_APP_MODE", True, True),
    ("FEATURE_FLAG", True, True), ("AUTHOR", True, True), ("KEYBOARD_LAYOUT", True, True),
    # The gaps, and hijack families: refused even when listed, in any case.
    ("GCONV_PATH", True, False), ("Gconv_Path", True, False), ("OPENSSL_CONF", True, False),
    ("SSLKEYLOGFILE", True, False), ("ELECTRON_RUN_AS_NODE", True, False), ("GOFLAGS", True, False),
    ("VIMINIT", True, False), ("LOCPATH", True, False), ("HOSTALIASES", True, False),
    ("LD_PRELOAD", True, False), ("ld_preload", True, False), ("DYLD_INSERT_LIBRARIES", True, False),
    ("PYTHONPATH", True, False), ("NODE_OPTIONS", True, False), ("PERL5OPT", True, False),
    ("RUBYOPT", True, False), ("JAVA_TOOL_OPTIONS", True, False), ("BASH_ENV", True, False),
    ("GIT_SSH_COMMAND", True, False), ("HTTPS_PROXY", True, False), ("https_proxy", True, False),
    ("GITHUB_TOKEN", True, False), ("STRIPE_KEY", True, False), ("AWS_PROFILE", True, False),
    ("PATH", True, False), ("HOME", True, False), ("KUBECONFIG", True, False), ("WGETRC", True, False),
    ("JAVA_HOME", True, False), ("GOTOOLCHAIN", True, False), ("CURL_CA_BUNDLE", True, False),
    ("NODE_EXTRA_CA_CERTS", True, False), ("PGPASSFILE", True, False), ("TERMINFO", True, False),
)


class AllowedEnvEntryError(ValueError):
    """An ``allowedEnv`` entry no surface accepts; the message names the entry and the rule."""


def _plain(name: str) -> bool:
    return bool(_NAME_RE.match(name))


def hijack_family(name: str) -> str | None:
    """The hijack family ``name`` belongs to (refused even when listed), or None.

    An inert name is never in a family (git identity, Python's output
    switches are harmless members of refused families).  A name that is not
    a plain identifier (``=``, NUL, spaces, non-ASCII) is refused outright: it
    could not be set portably and may confuse a parser downstream.
    """
    if not _plain(name):
        return "not a plain variable name"
    upper = name.upper()
    if upper in INERT_NAMES or _INERT_LOCALE.match(upper):
        return None
    for label, pattern in HIJACK_FAMILIES:
        if pattern.match(upper):
            return label
    return None


def is_inert(name: str) -> bool:
    upper = name.upper()
    return _plain(name) and (upper in INERT_NAMES or bool(_INERT_LOCALE.match(upper)))


def env_name_refused(name: str) -> bool:
    """True when ``name`` is in a hijack family: no listing lets it reach a subprocess."""
    return hijack_family(name) is not None


def env_name_allowed(name: str, allowed: Collection[str]) -> bool:
    """True when ``name`` may be declared under a policy whose ``allowedEnv`` is ``allowed``."""
    if hijack_family(name) is not None:
        return False
    return is_inert(name) or name.upper() in {a.upper() for a in allowed}


def validate_allowed_env_entry(entry: str, *, field: str = "allowedEnv") -> str:
    """``entry`` if it may be listed in ``allowedEnv``, else :class:`AllowedEnvEntryError` saying why."""
    if not isinstance(entry, str) or not _plain(entry):
        raise AllowedEnvEntryError(
            f"{field}: {entry!r} is not a variable name (letters, digits and '_', not starting with a digit)")
    family = hijack_family(entry)
    if family is not None:
        raise AllowedEnvEntryError(
            f"{field}: {entry!r} can never be allowed: it is {family}, which can change what a "
            "subprocess runs or leak credentials")
    return entry


def validate_allowed_env(entries: Collection[str], *, field: str = "allowedEnv") -> None:
    for entry in entries:
        validate_allowed_env_entry(entry, field=field)


_HOW_TO_ALLOW = (
    "if it is harmless, list it in allowedEnv (a workflow's tools.allowedEnv, --policy "
    "'{{\"allowedEnv\": [\"{name}\"]}}', or in the app, Settings -> Chat tools -> Allowed variables)"
)
_INERT_EXAMPLES = "CI, NODE_ENV, TZ, LANG, LC_*, TERM, NO_COLOR, FORCE_COLOR, COLUMNS"


def env_refusal(tool_id: str, name: str, allowed: Collection[str] | None) -> str | None:
    """Why ``name`` may not be declared (a message naming it and the fix), or None when it may.

    ``allowed=None`` means the declaration itself is the explicit listing (a
    user's own MCP server entry): only the hijack families apply.
    """
    family = hijack_family(name)
    if family is not None:
        shown = name if _plain(name) else "(not a plain name)"
        return (f"{tool_id}: the environment variable {shown!r} may not be passed to a subprocess: it is "
                f"{family}, refused even when listed in allowedEnv. Only inert names ({_INERT_EXAMPLES}) "
                "and harmless names listed in allowedEnv are passed")
    if allowed is None or is_inert(name) or name.upper() in {a.upper() for a in allowed}:
        return None
    return (f"{tool_id}: the environment variable {name!r} is not on the allowlist of inert names "
            f"({_INERT_EXAMPLES}); " + _HOW_TO_ALLOW.format(name=name))


def _value_ok(name: str, value: object) -> bool:
    if not isinstance(value, str) or "\x00" in value:
        return False
    upper = name.upper()
    check = INERT_NAMES.get(upper) or (_no_path if _INERT_LOCALE.match(upper) else None)
    return check is None or check(value)


def check_declared_env(
    tool_id: str, env: Mapping[str, str] | None, *, allowed: Collection[str] | None = ()
) -> None:
    """Raise ``tool_denied/env_not_allowed`` for the first refused name or bad value.

    ``allowed`` is the policy's ``allowedEnv``; ``None`` only where the
    declaration is itself the user's explicit listing (see :func:`env_refusal`).
    """
    for name, value in (env or {}).items():
        message = env_refusal(tool_id, name, allowed)
        if message is not None:
            raise ToolDeniedError(message, reason=DenyReason.ENV_NOT_ALLOWED)
        if not _value_ok(name, value):
            raise ToolDeniedError(
                f"{tool_id}: the value of environment variable {name!r} is not allowed (not a plain "
                "string, or a path where a name is expected)",
                reason=DenyReason.ENV_NOT_ALLOWED,
            )


def _check_examples() -> None:
    for name, listed, passes in EXAMPLES:
        if env_name_allowed(name, [name] if listed else []) is not passes:
            raise RuntimeError(f"env_policy: the example {name!r} (listed={listed}) should "
                               f"{'pass' if passes else 'be refused'}; fix the tables")
    for name in INERT_NAMES:
        if not _plain(name) or name != name.upper():
            raise RuntimeError(f"env_policy: inert name {name!r} must be a plain upper-case name")


_check_examples()
