"""``relavium secret`` as a user runs it: the real console script, a real keyring."""

from __future__ import annotations

import uuid

from tests.fixtures.desktop_bus import desktop_bus_env_fixture, desktop_bus_fixture  # noqa: F401
from tests.helpers import run_cli


def test_set_list_delete_round_trip(desktop_bus_env: dict[str, str]) -> None:
    name = f"cli-{uuid.uuid4().hex[:8]}"
    value = "brave-key-0123456789-LAST"
    code, out, err = run_cli("secret", "set", name, env=desktop_bus_env, input=value + "\n")
    assert code == 0, err
    assert value not in out and value not in err

    code, out, err = run_cli("secret", "list", env=desktop_bus_env)
    assert code == 0, err
    line = next(x for x in out.splitlines() if x.startswith(name))
    assert line.split() == [name, "****LAST"]
    assert value not in out

    code, out, _ = run_cli("secret", "list", "--json", env=desktop_bus_env)
    assert {"name": name, "hint": "****LAST"} in out

    # The stored value is exactly stdin minus the newline echo added.
    from relavium_desktop.host.secrets import SecretStore

    assert SecretStore().get(name) == value

    code, out, err = run_cli("secret", "delete", name, env=desktop_bus_env)
    assert code == 0, err
    code, out, _ = run_cli("secret", "list", "--json", env=desktop_bus_env)
    assert name not in {e["name"] for e in out}
    code, _, err = run_cli("secret", "delete", name, env=desktop_bus_env)
    assert code == 1 and "no secret named" in err


def test_value_is_never_taken_from_argv(desktop_bus_env: dict[str, str]) -> None:
    code, _, err = run_cli("secret", "set", "name-a", "the-value", env=desktop_bus_env, input="")
    assert code == 2 and "usage error" in err
    code, _, err = run_cli("secret", "set", "name-b", env=desktop_bus_env, input="")
    assert code == 2 and "stdin" in err


def test_no_backend_prints_the_clear_error_and_exits_1(cli_env: dict[str, str]) -> None:
    env = dict(cli_env, PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring")
    for argv, stdin in ((["secret", "list"], None), (["secret", "set", "k1"], "some-value-xyz"),
                        (["secret", "delete", "k1"], None)):
        code, out, err = run_cli(*argv, env=env, input=stdin)
        assert code == 1, (argv, err)
        assert "no usable keyring backend (tried: keyring.backends.fail.Keyring)" in err
        assert "Secret Service" in err and "gnome-keyring" in err and "KWallet" in err
        assert "some-value-xyz" not in err + out
    code, out, _ = run_cli("secret", "list", "--json", env=env)
    assert code == 1 and out["ok"] is False and "keyring.backends.fail.Keyring" in out["error"]["message"]
