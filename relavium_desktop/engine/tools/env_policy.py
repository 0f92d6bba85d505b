"""Which declared environment variables a subprocess may receive.

A node may declare extra variables for its command; this predicate refuses
the names that redirect credentials or hijack the child (loader preloads,
interpreter start-up hooks, git's credential and ssh helpers, proxies).  It
is a refusal list on *names*: the values never leave the node's config.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError

_REFUSED_EXACT = frozenset(
    {
        "GIT_ASKPASS", "SSH_ASKPASS", "GIT_SSH", "GIT_SSH_COMMAND", "GIT_EXEC_PATH",
        "GIT_DIR", "GIT_WORK_TREE", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "GIT_EDITOR",
        "GIT_PROXY_COMMAND", "GIT_TEMPLATE_DIR", "SSH_AUTH_SOCK",
        "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT",
        "PYTHONPATH", "PYTHONSTARTUP", "PYTHONHOME", "PYTHONUSERBASE", "PYTHONINSPECT",
        "NODE_OPTIONS", "NODE_PATH", "NPM_CONFIG_USERCONFIG", "NPM_CONFIG_GLOBALCONFIG",
        "PERL5LIB", "PERL5OPT", "PERLLIB", "RUBYLIB", "RUBYOPT", "GEM_HOME", "GEM_PATH",
        "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
        "BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "IFS", "PS4",
        "ZDOTDIR", "HOME", "PATH", "SHELL", "EDITOR", "VISUAL", "PAGER",
        "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY", "FTP_PROXY",
        "CURL_HOME", "WGETRC", "NETRC", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE", "NODE_EXTRA_CA_CERTS", "PIP_INDEX_URL", "PIP_EXTRA_INDEX_URL",
        "PIP_CONFIG_FILE", "DOCKER_CONFIG", "KUBECONFIG", "XDG_CONFIG_HOME",
        "GNUPGHOME", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
    }
)
_REFUSED_PATTERNS = [
    re.compile(p)
    for p in (
        r".*_TOKEN$", r".*_KEY$", r".*_SECRET$", r".*_PASSWORD$", r".*_PASSWD$",
        r".*_CREDENTIALS?$", r".*_API_KEY$", r"^TOKEN$", r"^SECRET$", r"^PASSWORD$",
        r"^AWS_.*", r"^AZURE_.*", r"^GOOGLE_.*", r"^GCLOUD_.*", r"^CLOUDSDK_.*",
        r"^GH_.*", r"^GITHUB_.*", r"^OPENAI_.*", r"^ANTHROPIC_.*", r"^GEMINI_.*",
        r"^GIT_CONFIG.*", r"^DYLD_.*", r"^LD_.*", r"^BASH_FUNC_.*", r"^RELAVIUM_.*",
    )
]
_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


def env_name_refused(name: str) -> bool:
    """True when ``name`` may not be declared for a subprocess.

    Compared upper-cased: Windows environment names are case-insensitive and
    POSIX programs commonly read either spelling of proxy variables.
    """
    if not _NAME_RE.match(name):
        return True
    upper = name.upper()
    return upper in _REFUSED_EXACT or any(p.match(upper) for p in _REFUSED_PATTERNS)


def check_declared_env(tool_id: str, env: Mapping[str, str] | None) -> None:
    for name in env or {}:
        if env_name_refused(name):
            raise ToolDeniedError(
                f"{tool_id}: the environment variable {name!r} may not be passed to a subprocess "
                "(credential or hijack redirect)",
                reason=DenyReason.ENV_NOT_ALLOWED,
            )
