"""The declared-env refusal predicate: credential and hijack redirects."""

from __future__ import annotations

import pytest

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError
from relavium_desktop.engine.tools.env_policy import check_declared_env, env_name_refused

REFUSED = [
    # named in the issue
    "GITHUB_TOKEN", "NPM_TOKEN", "STRIPE_KEY", "MY_SECRET", "AWS_ACCESS_KEY_ID", "AWS_PROFILE",
    "GIT_ASKPASS", "GIT_SSH_COMMAND", "SSH_AUTH_SOCK", "LD_PRELOAD", "LD_LIBRARY_PATH",
    "DYLD_INSERT_LIBRARIES", "PYTHONPATH", "PYTHONSTARTUP", "NODE_OPTIONS", "BASH_ENV", "ENV",
    "PROMPT_COMMAND", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0",
    "GIT_CONFIG_PARAMETERS", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
    # spellings people try
    "http_proxy", "https_proxy", "ld_preload", "Ld_Preload", "github_token", "node_options",
    # neighbours of the same families
    "GIT_EXEC_PATH", "GIT_DIR", "GIT_TRACE", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND",
    "SSH_ASKPASS", "LD_AUDIT", "PYTHONWARNINGS", "PYTHONHOME", "NODE_PATH", "npm_config_script_shell",
    "PERL5OPT", "RUBYOPT", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "MAVEN_OPTS",
    "RUSTC_WRAPPER", "DOTNET_STARTUP_HOOKS", "GLIBC_TUNABLES", "BASH_FUNC_ls%%", "LESSOPEN",
    "XDG_CONFIG_HOME", "KUBECONFIG", "DOCKER_HOST", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE",
    "PIP_INDEX_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DATABASE_PASSWORD", "DB_PASSWD",
    "SENTRY_DSN", "GOOGLE_APPLICATION_CREDENTIALS", "RELAVIUM_HOME", "API_KEY", "TOKEN",
    # the variables the host builds
    "PATH", "HOME", "path", "SHELL", "COMSPEC", "SYSTEMROOT", "PATHEXT",
    # not a plain name
    "", "A=B", "A B", "1ABC", "NAME\x00", "ÄPFEL",
]
ALLOWED = [
    "FOO", "CI", "LANG", "LC_ALL", "TMPDIR", "TZ", "NODE_ENV", "RUST_LOG", "DEBUG", "NO_COLOR",
    "GIT_AUTHOR_NAME", "GIT_COMMITTER_EMAIL", "PYTHONUNBUFFERED", "PYTHONIOENCODING", "MONKEY",
    "KEYBOARD_LAYOUT", "AUTHOR",
]


@pytest.mark.parametrize("name", REFUSED)
def test_refused_names(name: str) -> None:
    assert env_name_refused(name)
    with pytest.raises(ToolDeniedError) as info:
        check_declared_env("run_command", {name: "x"})
    assert info.value.reason == DenyReason.ENV_NOT_ALLOWED


@pytest.mark.parametrize("name", ALLOWED)
def test_allowed_names(name: str) -> None:
    assert not env_name_refused(name)
    check_declared_env("run_command", {name: "value"})


def test_message_names_the_variable_never_the_value() -> None:
    with pytest.raises(ToolDeniedError) as info:
        check_declared_env("run_command", {"GITHUB_TOKEN": "ghp_supersecretvalue123"})
    assert "GITHUB_TOKEN" in info.value.message
    assert "ghp_supersecretvalue123" not in info.value.message


def test_nul_in_a_value_is_refused() -> None:
    with pytest.raises(ToolDeniedError) as info:
        check_declared_env("run_command", {"FOO": "a\x00b"})
    assert info.value.reason == DenyReason.ENV_NOT_ALLOWED


def test_empty_and_absent_declarations_pass() -> None:
    check_declared_env("run_command", {})
    check_declared_env("run_command", None)
