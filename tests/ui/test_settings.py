"""Settings: API keys land only in a real Secret Service; a missing keyring is explained; endpoints."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from relavium_desktop.host.secrets import SERVICE, SecretStore
from relavium_desktop.ui import app_settings as keys
from relavium_desktop.ui.qt import QKeySequence, Qt
from tests.fixtures.desktop_bus import desktop_bus, desktop_bus_env  # noqa: F401

KEY = "sk-ant-api03-UIKEYabcdefghijklmnopqrstuvwxyz9876"


def _files_under(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file()]


def test_api_key_goes_to_the_keyring_only_and_shows_last_four(
    desktop_bus_env: dict[str, str],  # noqa: F811
    make_window, qtbot, relavium_home: Path, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.DEBUG)
    # keyring caches which backends are viable per process (jaraco ``once``); an
    # earlier test probed it without a bus, so forget that probe.
    import keyring.backend

    if "saved_result" in vars(keyring.backend.get_all_keyring):  # run alone, nothing was probed yet
        keyring.backend.get_all_keyring.reset()
    window = make_window()
    page = window.show_settings("providers").providers
    row = page.rows["anthropic"]
    qtbot.waitUntil(lambda: row.status.text() == "Not set")

    qtbot.keyClicks(row.key_edit, KEY)
    qtbot.mouseClick(row.save_key, Qt.MouseButton.LeftButton)
    assert row.key_edit.text() == ""
    qtbot.waitUntil(lambda: row.status.text() == "Stored in the keyring: ****9876", timeout=15_000)
    assert not page.banner.isVisible()

    # In the real Secret Service (gnome-keyring on the private bus), under service "relavium".
    import keyring.backends.SecretService

    backend = keyring.backends.SecretService.Keyring()
    assert backend.get_password(SERVICE, "ANTHROPIC_API_KEY") == KEY
    # …and nowhere in the data dir (history.db, settings file) or the log.
    window.context.settings.sync()
    for path in _files_under(relavium_home):
        assert KEY.encode() not in path.read_bytes(), path.name
        assert b"UIKEY" not in path.read_bytes(), path.name
    assert KEY not in caplog.text

    # A second window (restart) shows the hint, never the key.
    again = make_window().show_settings("providers").providers
    qtbot.waitUntil(lambda: again.rows["anthropic"].status.text() == "Stored in the keyring: ****9876")

    qtbot.mouseClick(row.remove_key, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: row.status.text() == "Not set", timeout=15_000)
    assert backend.get_password(SERVICE, "ANTHROPIC_API_KEY") is None
    assert SecretStore().list() == []


def test_missing_keyring_backend_is_explained_not_a_crash(
    make_window, qtbot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    page = make_window().show_settings("providers").providers
    qtbot.waitUntil(lambda: page.banner.isVisibleTo(page))
    assert "no usable keyring backend" in page.banner.text()
    assert "Secret Service" in page.banner.text()
    row = page.rows["openai"]
    assert row.status.text() == "Unavailable (no keyring)"
    qtbot.keyClicks(row.key_edit, KEY)
    with qtbot.waitSignal(page.changed, timeout=15_000):
        qtbot.mouseClick(row.save_key, Qt.MouseButton.LeftButton)
    assert row.key_edit.text() == ""
    assert KEY not in page.banner.text()


def test_local_endpoint_needs_the_opt_in(make_window, relavium_home: Path,
                                         monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    window = make_window()
    page = window.show_settings("providers").providers
    row = page.rows["openai"]
    row.base_url.setText("http://127.0.0.1:8080/v1")
    row.save_endpoint.click()
    assert "allow_local" in row.endpoint_status.text()
    assert not (relavium_home / "providers.yaml").exists()
    row.allow_local.setChecked(True)
    row.save_endpoint.click()
    row = page.rows["openai"]  # rebuilt from the file it was just saved to
    assert row.endpoint_status.text() == "Saved."
    assert window.context.provider_store().entries()["openai"].base_url == "http://127.0.0.1:8080/v1"
    assert window.context.settings.value("providers/openai/base_url") is None  # never the ini any more
    row.base_url.setText("https://user:pw@example.com/v1")
    row.save_endpoint.click()
    assert "credentials" in page.rows["openai"].endpoint_status.text()
    assert "user:pw" not in (relavium_home / "providers.yaml").read_text()


def test_notification_and_shortcut_settings_apply_and_persist(make_window, monkeypatch) -> None:
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.fail.Keyring")
    window = make_window()
    page = window.show_settings("notifications").notifications
    page.notify_approvals.setChecked(False)
    page.shortcut_edit.setKeySequence(QKeySequence("Ctrl+Alt+K"))
    page.shortcut_edit.editingFinished.emit()
    assert window.clipboard_shortcut.key().toString() == "Ctrl+Alt+K"
    window.close()
    again = make_window()
    assert again.clipboard_shortcut.key().toString() == "Ctrl+Alt+K"
    assert keys.read_bool(again.context.settings, keys.KEY_NOTIFY_APPROVALS, True) is False
