"""Which declared environment variables a subprocess may receive.

A node may declare extra variables for its command; this predicate refuses
the names that carry credentials or redirect/hijack the child: loader
preloads, interpreter start-up hooks and option variables, git's and ssh's
credential and transport helpers, config-file redirects, proxies and CA
bundles, and the variables the host itself builds (``PATH``, ``HOME``, ...).
It is a refusal list on *names*, compared upper-cased (Windows names are
case-insensitive and many programs read either spelling of a proxy variable);
the values never leave the node's config.  A handful of harmless members of
refused families (git identity, Python's unbuffered/encoding switches) are
let through by name.

The same predicate serves every spawner (run_command, MCP stdio servers), so
what one refuses the others refuse.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError

# Exact names (upper-cased) that are always refused.
_REFUSED_EXACT = frozenset(
    {
        # What the host builds for the child.
        "PATH", "HOME", "PATHEXT", "SYSTEMROOT", "WINDIR", "COMSPEC", "USERPROFILE",
        "APPDATA", "LOCALAPPDATA", "PROGRAMDATA", "PSMODULEPATH",
        # Shell start-up and parsing hooks.
        "BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "IFS", "PS4", "ZDOTDIR",
        "SHELL", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "LESSOPEN", "LESSCLOSE", "BROWSER",
        # Interpreter/toolchain hooks.
        "CLASSPATH", "GEM_HOME", "GEM_PATH", "RUSTC", "RUSTC_WRAPPER", "RUSTDOCFLAGS", "RUSTFLAGS",
        "CARGO_HOME", "GLIBC_TUNABLES", "DOTNET_STARTUP_HOOKS", "NETRC", "CURL_HOME", "WGETRC",
        # Config and credential redirects.
        "KUBECONFIG", "GNUPGHOME", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
        "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE",
        "KRB5CCNAME", "KRB5_CONFIG", "TOKEN", "SECRET", "PASSWORD",
    }
)
_REFUSED_PATTERNS = tuple(
    re.compile(p)
    for p in (
        # Credentials by shape.
        r".*TOKEN.*", r".*SECRET.*", r".*PASSW(OR)?D.*", r".*CREDENTIAL.*", r".*APIKEY.*",
        r".*API_KEY.*", r".*PRIVATE_KEY.*", r".*_KEY$", r"^KEY_.*", r".*_AUTH$", r".*_AUTH_.*",
        r"^AUTH_.*", r".*COOKIE.*", r".*_PAT$", r".*_DSN$",
        # Cloud and vendor families.
        r"^AWS_.*", r"^AZURE_.*", r"^GOOGLE_.*", r"^GCLOUD_.*", r"^CLOUDSDK_.*", r"^GH_.*",
        r"^GITHUB_.*", r"^GITLAB_.*", r"^OPENAI_.*", r"^ANTHROPIC_.*", r"^GEMINI_.*",
        r"^DOCKER_.*", r"^VAULT_.*", r"^RELAVIUM_.*",
        # Transport/credential helpers and git's own switches.
        r"^GIT_.*", r"^SSH_.*", r"^GPG_.*",
        # Loader and interpreter hooks.
        r"^LD_.*", r"^DYLD_.*", r"^PYTHON.*", r"^NODE_.*", r"^NPM_CONFIG_.*", r"^YARN_.*",
        r"^PNPM_.*", r"^BUN_.*", r"^DENO_.*", r"^PERL.*", r"^RUBY.*", r"^BUNDLE_.*", r"^JAVA_.*",
        r"^_JAVA_.*", r"^JDK_.*", r"^MAVEN_.*", r"^GRADLE_.*", r"^COR_.*", r"^CORECLR_.*",
        r"^MALLOC_.*", r"^BASH_FUNC_.*", r".*_OPTIONS$", r".*_OPTS$", r".*_WRAPPER$",
        # Proxies, package indexes and config homes.
        r".*_PROXY$", r"^PIP_.*", r"^UV_.*", r"^CONDA_.*", r"^XDG_.*",
    )
)
# Harmless members of refused families, allowed by exact name.
_ALLOWED_EXACT = frozenset(
    {
        "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_COMMITTER_DATE",
        "PYTHONUNBUFFERED", "PYTHONIOENCODING", "PYTHONDONTWRITEBYTECODE", "PYTHONHASHSEED",
        "PYTHONUTF8", "NODE_ENV",
    }
)
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def env_name_refused(name: str) -> bool:
    """True when ``name`` may not be declared for a subprocess.

    Anything that is not a plain identifier (``=``, NUL, spaces, non-ASCII)
    is refused outright: it could not be set portably and may confuse a
    parser downstream.
    """
    if not _NAME_RE.match(name):
        return True
    upper = name.upper()
    if upper in _ALLOWED_EXACT:
        return False
    return upper in _REFUSED_EXACT or any(p.match(upper) for p in _REFUSED_PATTERNS)


def check_declared_env(tool_id: str, env: Mapping[str, str] | None) -> None:
    """Raise ``tool_denied/env_not_allowed`` for the first refused name or bad value."""
    for name, value in (env or {}).items():
        if env_name_refused(name):
            shown = name if _NAME_RE.match(name) else "(not a plain name)"
            raise ToolDeniedError(
                f"{tool_id}: the environment variable {shown!r} may not be passed to a subprocess "
                "(credential or hijack redirect)",
                reason=DenyReason.ENV_NOT_ALLOWED,
            )
        if not isinstance(value, str) or "\x00" in value:
            raise ToolDeniedError(
                f"{tool_id}: the value of environment variable {name!r} is not a plain string",
                reason=DenyReason.ENV_NOT_ALLOWED,
            )
