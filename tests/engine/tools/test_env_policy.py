"""The declared-env allowlist: inert names, allowedEnv, and hijack families refused even when listed."""

from __future__ import annotations

import pytest

from relavium_desktop.engine.errors import DenyReason, ToolDeniedError
from relavium_desktop.engine.tools.env_policy import (
    EXAMPLES,
    AllowedEnvEntryError,
    check_declared_env,
    env_name_allowed,
    env_name_refused,
    hijack_family,
    validate_allowed_env_entry,
)
from relavium_desktop.engine.tools.tooldef import ToolPolicy

HIJACKS = [
    # named in the issues
    "GITHUB_TOKEN", "NPM_TOKEN", "STRIPE_KEY", "MY_SECRET", "AWS_ACCESS_KEY_ID", "AWS_PROFILE",
    "GIT_ASKPASS", "GIT_SSH_COMMAND", "SSH_AUTH_SOCK", "LD_PRELOAD", "LD_LIBRARY_PATH",
    "DYLD_INSERT_LIBRARIES", "PYTHONPATH", "PYTHONSTARTUP", "NODE_OPTIONS", "BASH_ENV", "ENV",
    "PROMPT_COMMAND", "GIT_CONFIG_GLOBAL", "GIT_CONFIG_COUNT", "GIT_CONFIG_KEY_0",
    "GIT_CONFIG_PARAMETERS", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY",
    "GCONV_PATH", "OPENSSL_CONF", "SSLKEYLOGFILE", "ELECTRON_RUN_AS_NODE", "GOFLAGS", "VIMINIT",
    "LOCPATH", "HOSTALIASES",
    # spellings people try
    "http_proxy", "https_proxy", "ld_preload", "Ld_Preload", "github_token", "node_options", "Gconv_Path",
    "openssl_conf", "SslKeyLogFile",
    # neighbours of the same families
    "GIT_EXEC_PATH", "GIT_DIR", "GIT_TRACE", "GIT_EXTERNAL_DIFF", "GIT_PROXY_COMMAND",
    "SSH_ASKPASS", "LD_AUDIT", "PYTHONWARNINGS", "PYTHONHOME", "NODE_PATH", "npm_config_script_shell",
    "PERL5OPT", "PERL5LIB", "RUBYOPT", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "MAVEN_OPTS",
    "RUSTC_WRAPPER", "DOTNET_STARTUP_HOOKS", "GLIBC_TUNABLES", "BASH_FUNC_ls%%", "LESSOPEN",
    "XDG_CONFIG_HOME", "KUBECONFIG", "DOCKER_HOST", "SSL_CERT_FILE", "REQUESTS_CA_BUNDLE",
    "PIP_INDEX_URL", "OPENAI_API_KEY", "ANTHROPIC_API_KEY", "DATABASE_PASSWORD", "DB_PASSWD",
    "SENTRY_DSN", "GOOGLE_APPLICATION_CREDENTIALS", "RELAVIUM_HOME", "API_KEY", "TOKEN",
    "NLSPATH", "RES_OPTIONS", "LOCALDOMAIN", "ELECTRON_NO_ASAR", "GOPROXY", "GOTOOLCHAIN", "CGO_CFLAGS",
    "EXINIT", "MYVIMRC", "TERMINFO", "WGETRC", "CURL_HOME", "JAVA_HOME", "NODE_EXTRA_CA_CERTS",
    "PGPASSFILE", "LDFLAGS", "CC", "MAKEFLAGS", "CARGO_HOME", "GEM_PATH", "CLASSPATH", "ZDOTDIR",
    "INPUTRC", "EDITOR", "PAGER", "DBUS_SESSION_BUS_ADDRESS", "KRB5CCNAME",
    # the variables the host builds
    "PATH", "HOME", "path", "SHELL", "COMSPEC", "SYSTEMROOT", "PATHEXT",
    # not a plain name
    "", "A=B", "A B", "1ABC", "NAME\x00", "ÄPFEL",
]
INERT = ["CI", "NODE_ENV", "TZ", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "TERM", "NO_COLOR", "FORCE_COLOR",
         "COLUMNS", "LINES", "TMPDIR", "DEBUG", "RUST_LOG", "GIT_AUTHOR_NAME", "GIT_COMMITTER_EMAIL",
         "PYTHONUNBUFFERED", "PYTHONIOENCODING", "SOURCE_DATE_EPOCH", "ci", "node_env"]
LISTABLE = ["FOO", "GREETING", "MONKEY", "KEYBOARD_LAYOUT", "AUTHOR", "MY_APP_MODE", "FEATURE_FLAGS",
            "OUTPUT_DIR", "GOAL", "REPORT_TITLE"]


@pytest.mark.parametrize("name", HIJACKS)
def test_hijack_families_are_refused_even_when_listed(name: str) -> None:
    assert env_name_refused(name)
    assert hijack_family(name) is not None
    for allowed in ((), (name,), (name.upper(),), (name.lower(),)):
        with pytest.raises(ToolDeniedError) as info:
            check_declared_env("run_command", {name: "x"}, allowed=allowed)
        assert info.value.reason == DenyReason.ENV_NOT_ALLOWED
    with pytest.raises(ToolDeniedError):  # a user's own MCP server entry: the families still apply
        check_declared_env("mcp_call", {name: "x"}, allowed=None)
    with pytest.raises(AllowedEnvEntryError):
        validate_allowed_env_entry(name)
    with pytest.raises(ValueError, match="allowedEnv"):
        ToolPolicy.from_json({"allowedEnv": [name]})


@pytest.mark.parametrize("name", INERT)
def test_inert_names_pass_without_a_listing(name: str) -> None:
    assert not env_name_refused(name)
    assert env_name_allowed(name, ())
    check_declared_env("run_command", {name: "1"})


@pytest.mark.parametrize("name", LISTABLE)
def test_other_harmless_names_pass_only_when_listed(name: str) -> None:
    assert not env_name_refused(name) and not env_name_allowed(name, ())
    with pytest.raises(ToolDeniedError) as info:
        check_declared_env("run_command", {name: "value"})
    assert info.value.reason == DenyReason.ENV_NOT_ALLOWED
    assert f"{name!r} is not on the allowlist" in info.value.message
    assert f'"allowedEnv": ["{name}"]' in info.value.message  # says how to allow it
    check_declared_env("run_command", {name: "value"}, allowed=[name])
    check_declared_env("run_command", {name: "value"}, allowed=[name.lower()])  # listed in another case
    check_declared_env("mcp_call", {name: "value"}, allowed=None)  # the entry itself is the listing
    assert ToolPolicy.from_json({"allowedEnv": [name]}).allowed_env == (name,)


def test_the_module_examples_hold() -> None:
    for name, listed, passes in EXAMPLES:
        assert env_name_allowed(name, [name] if listed else []) is passes, name


@pytest.mark.parametrize(("name", "value"), [
    ("LANG", "/tmp/evil"), ("LC_ALL", "../x"), ("LANGUAGE", "de/../../x"), ("TZ", "/etc/shadow"),
    ("TZ", ":/tmp/zone"), ("TZ", "../../tmp/zone"), ("TERM", "../../tmp/terminfo"), ("COLUMNS", "80; rm"),
    ("PYTHONIOENCODING", "/tmp/x"), ("FOO", "a\x00b"),
])
def test_values_that_name_a_file_where_a_name_is_expected_are_refused(name: str, value: str) -> None:
    with pytest.raises(ToolDeniedError) as info:
        check_declared_env("run_command", {name: value}, allowed=["FOO"])
    assert info.value.reason == DenyReason.ENV_NOT_ALLOWED
    assert value not in info.value.message


@pytest.mark.parametrize(("name", "value"), [
    ("LANG", "en_US.UTF-8"), ("LC_ALL", "C.UTF-8"), ("LANGUAGE", "de:en"), ("TZ", "Europe/Berlin"),
    ("TZ", "UTC"), ("TZ", "EST5EDT,M3.2.0,M11.1.0"), ("TERM", "xterm-256color"), ("COLUMNS", "120"),
])
def test_ordinary_inert_values_pass(name: str, value: str) -> None:
    check_declared_env("run_command", {name: value})


def test_message_names_the_variable_never_the_value() -> None:
    with pytest.raises(ToolDeniedError) as info:
        check_declared_env("run_command", {"GITHUB_TOKEN": "ghp_supersecretvalue123"})
    assert "GITHUB_TOKEN" in info.value.message and "credential" in info.value.message
    assert "ghp_supersecretvalue123" not in info.value.message


def test_empty_and_absent_declarations_pass() -> None:
    check_declared_env("run_command", {})
    check_declared_env("run_command", None)
