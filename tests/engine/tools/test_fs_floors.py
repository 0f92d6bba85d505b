"""The pure floor predicates: folding, UNC detection, read and write floors (every OS)."""

from __future__ import annotations

import pytest

from relavium_desktop.engine.tools.fs_floors import (
    CONFIG_HOME_PERSISTENCE,
    DATA_HOME_PERSISTENCE,
    ROOT_CONTEXT,
    SHELL_STARTUP_BASENAMES,
    fold_component,
    is_dotenv,
    is_unc,
    persistence_anchor,
    read_denied_names,
    read_floor,
    read_rule,
    split_components,
    write_floor,
)
from tests.engine.tools.floor_cases import ALLOWED, READ_DENIED, variants

WRITE_ONLY_DENIED = [
    ".git/HEAD", "repo/.git/hooks/pre-commit", "bare.git/hooks/post-update", ".config/fish/conf.d/x.fish",
    *(f"home/{name}" for name in sorted(SHELL_STARTUP_BASENAMES)),
]


@pytest.mark.parametrize("path", READ_DENIED)
def test_read_floor_refuses_every_entry_and_its_folded_spellings(path: str) -> None:
    for variant in variants(path):
        assert read_floor(split_components(variant)) is not None, variant
        assert write_floor(split_components(variant)) is not None, variant
        assert read_floor(split_components("/home/u/" + variant)) is not None, variant


@pytest.mark.parametrize("path", WRITE_ONLY_DENIED)
def test_write_floor_adds_git_dirs_and_shell_startup_files(path: str) -> None:
    for variant in variants(path):
        assert write_floor(split_components(variant)) is not None, variant
    assert read_floor(split_components(path)) is None


@pytest.mark.parametrize("path", ALLOWED)
def test_look_alikes_are_not_floors(path: str) -> None:
    assert read_floor(split_components(path)) is None
    assert write_floor(split_components(path)) is None


def test_fold_component() -> None:
    assert fold_component(".SSH") == ".ssh"
    assert fold_component(".ssh. . ") == ".ssh"
    assert fold_component(".env:secret:$DATA") == ".env"
    assert fold_component("ＧＣＬＯＵＤ") == "gcloud"
    assert fold_component(".") == "."
    assert fold_component("..") == ".."
    assert fold_component("...") == "..."
    assert fold_component("Readme.MD") == "readme.md"


def test_scratch_exemption_lifts_only_the_named_relavium_component() -> None:
    comps = ["data", ".relavium", "scratch", "notes.txt"]
    assert read_floor(comps) is not None
    assert read_floor(comps, relavium_exempt_index=1) is None
    # Nested floors inside the scratch stay denied.
    assert read_floor([*comps[:3], ".ssh", "id_rsa"], relavium_exempt_index=1) is not None
    assert read_floor([*comps[:3], ".relavium", "x"], relavium_exempt_index=1) is not None
    # The index lifts only a .relavium component, never another rule.
    assert read_floor(["data", ".ssh", "x"], relavium_exempt_index=1) is not None


@pytest.mark.parametrize(
    ("path", "windows", "expected"),
    [
        ("\\\\server\\share\\x", False, True),
        ("\\\\server\\share\\x", True, True),
        ("\\\\?\\C:\\x", False, True),
        ("\\\\.\\pipe\\x", True, True),
        ("\\\\server\\share\\*.txt", False, True),
        ("//server/share/x", True, True),
        ("/\\server\\share", True, True),
        ("\\/server/share", True, True),
        ("//server/share/x", False, False),  # POSIX: ordinary absolute path
        ("/etc/passwd", False, False),
        ("a\\b", True, False),
        ("C:\\x", True, False),
    ],
)
def test_unc_detection(path: str, windows: bool, expected: bool) -> None:
    assert is_unc(path, windows=windows) is expected


def test_compiled_per_directory_names_agree_with_read_rule() -> None:
    names = ["config", "config.worktree", "config.json", "credentials", ".env", ".env.x", ".envelope",
             ".ssh", "gcloud", ".netrc", "readme.md", "head", ".git", "git"]
    contexts = [ROOT_CONTEXT]
    for path in (".docker", ".git", "x.git/worktrees/w", ".config/git", "src/git", "a/.git/modules/m"):
        ctx = ROOT_CONTEXT
        for comp in path.split("/"):
            ctx = ctx.child(comp)
        contexts.append(ctx)
    for ctx in contexts:
        denied = read_denied_names(ctx)
        for name in names:
            assert (name in denied or is_dotenv(name)) == (read_rule(ctx, name) is not None), (ctx, name)


PERSISTENCE_DENIED = [
    "home/u/.config/autostart/evil.desktop", "home/u/.config/autostart", "home/u/.config/autostart/sub/x",
    "home/u/.config/systemd/user/evil.service", "home/u/.config/systemd/user/default.target.wants/evil.service",
    "home/u/.config/systemd/user.conf", "home/u/.local/share/systemd/user/evil.service",
    "home/u/.config/environment.d/50-evil.conf", "Users/u/Library/LaunchAgents/com.evil.plist",
    "Library/LaunchDaemons/com.evil.plist", "etc/xdg/autostart/evil.desktop",
    "Users/u/AppData/Roaming/Microsoft/Windows/Start Menu/Programs/Startup/evil.lnk",
    "ProgramData/Microsoft/Windows/Start Menu/Programs/StartUp/evil.bat",
]
PERSISTENCE_LOOK_ALIKES = [
    "docs/autostart.md", "config/autostart/readme.txt", "src/systemd/user/unit.md", "environment.d/x",
    "docs/Library/notes.md", "LaunchAgents/readme.md", ".config/autostart.md", ".config/autostartx/a",
    "Programs/Startup/x.lnk", "config/environment.d/x", "systemd/user/x.service",
]


@pytest.mark.parametrize("path", PERSISTENCE_DENIED)
def test_login_persistence_locations_are_on_the_write_floor(path: str) -> None:
    for variant in variants(path):
        rule = write_floor(split_components(variant))
        assert rule is not None, variant
    assert read_floor(split_components(path)) is None  # a write-only rule: reading them is fine


@pytest.mark.parametrize("path", PERSISTENCE_LOOK_ALIKES)
def test_persistence_look_alikes_in_a_project_stay_writable(path: str) -> None:
    assert write_floor(split_components(path)) is None
    assert write_floor(split_components("home/u/project/" + path)) is None


def test_a_moved_config_home_is_anchored_where_the_environment_says() -> None:
    config = persistence_anchor(["home", "u", "cfg"], CONFIG_HOME_PERSISTENCE)
    data = persistence_anchor(["home", "u", "data"], DATA_HOME_PERSISTENCE)
    assert write_floor(["home", "u", "cfg", "autostart", "x.desktop"], anchors=[config]) is not None
    assert write_floor(["home", "u", "CFG", "Systemd", "user", "x.service"], anchors=[config]) is not None
    assert write_floor(["home", "u", "cfg", "environment.d", "x.conf"], anchors=[config]) is not None
    assert write_floor(["home", "u", "data", "systemd", "user", "x"], anchors=[config, data]) is not None
    # Only directly below the anchored home, and only with the anchor.
    assert write_floor(["home", "u", "cfg", "autostart", "x.desktop"]) is None
    assert write_floor(["home", "u", "cfg", "app", "autostart", "x"], anchors=[config]) is None
    assert write_floor(["home", "u", "data", "autostart", "x"], anchors=[data]) is None
