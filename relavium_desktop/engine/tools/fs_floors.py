"""Pure credential floors for the file tools: component folding, UNC, read and write floors.

The floors are the part of file scope no tier, grant or mode can lift, so
they live here, platform-free, where they are tested on every OS and where
both the host and the engine can ask them.  They work on path *components*
(never on a joined string) so ``a/b/.ssh/id_rsa`` and ``.ssh`` as a root are
judged by the same rule.  The write floor adds ``.git/`` folders, shell
start-up files and the login-time persistence locations
(:data:`PERSISTENCE_SEQUENCES`: autostart entries, systemd user units,
environment.d, launchd agents, the Windows Startup folder), each of which
runs code at the user's next login or shell.

Folding is deliberately conservative and the same on every OS: a component
is NFKC-normalised and case-folded, its ``:stream`` suffix is dropped and
trailing dots and spaces are stripped.  On a case-sensitive POSIX disk this
refuses a few harmless look-alikes (``.SSH``, ``.env:x``); on Windows and
macOS, where those spellings *are* the protected file, it is what keeps them
out.  Refusing too much is the safe side of this rule.

The walker folds one component at a time and carries a small
:class:`FloorContext` down the tree, so a recursive listing pays one set
lookup per entry instead of re-checking the whole path.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

# Directories whose whole subtree is confidential (read floor).
PROTECTED_DIRS: frozenset[str] = frozenset(
    {
        ".ssh",
        ".relavium",
        ".aws",
        ".env",
        ".kube",
        ".azure",
        ".terraform.d",
        "gcloud",
        "legacy_credentials",
    }
)

# Credential files by basename (read floor); matched on any component.
CREDENTIAL_BASENAMES: frozenset[str] = frozenset(
    {
        ".gitconfig",
        ".git-credentials",
        ".netrc",
        ".npmrc",
        ".pypirc",
        ".pgpass",
        ".envrc",
        ".dockercfg",
        "application_default_credentials.json",
        "credentials.tfrc.json",
        ".terraformrc",
        "terraform.rc",
    }
)

# Shell and session start-up files (write floor only): writing one is code
# execution at the user's next login or shell.
SHELL_STARTUP_BASENAMES: frozenset[str] = frozenset(
    {
        ".bashrc",
        ".bash_profile",
        ".bash_login",
        ".bash_logout",
        ".bash_aliases",
        ".profile",
        ".zshrc",
        ".zprofile",
        ".zshenv",
        ".zlogin",
        ".zlogout",
        ".kshrc",
        ".mkshrc",
        ".cshrc",
        ".tcshrc",
        ".login",
        ".logout",
        "config.fish",
        ".xprofile",
        ".xinitrc",
        ".xsession",
        ".xsessionrc",
        ".pam_environment",
    }
)

GIT_CONFIG_NAMES: frozenset[str] = frozenset({"config", "config.worktree"})

# Login-time persistence locations (write floor only): a file written in one
# runs code at the user's next login or session start, exactly like a shell
# start-up file.  Each is a sequence of folded components matched wherever it
# occurs in a path -- so every home (another $HOME, root's, a dotfiles repo
# stowed into the home) is covered without knowing where the home is -- and
# the location's folder itself and everything below it is refused.  The
# sequences start with a component no ordinary project folder has
# (``.config``, ``library/launchagents``, ``start menu``), so look-alikes such
# as ``docs/autostart.md`` or ``config/autostart/readme.txt`` stay writable.
#
# ``(sequence, rule)``; a longer sequence is matched on its last component.
PERSISTENCE_SEQUENCES: tuple[tuple[tuple[str, ...], str], ...] = (
    # XDG autostart entries (~/.config/autostart/*.desktop; /etc/xdg/autostart system-wide).
    ((".config", "autostart"), "login autostart entries (~/.config/autostart)"),
    (("etc", "xdg", "autostart"), "login autostart entries (/etc/xdg/autostart)"),
    # systemd user units, their *.wants/ links and the user manager's own config (user.conf).
    ((".config", "systemd"), "systemd user units (~/.config/systemd)"),
    ((".local", "share", "systemd"), "systemd user units (~/.local/share/systemd)"),
    (("etc", "xdg", "systemd"), "systemd user units (/etc/xdg/systemd)"),
    # The session environment systemd and display managers read at login.
    ((".config", "environment.d"), "login environment files (~/.config/environment.d)"),
    # macOS launchd agents and daemons (~/Library/LaunchAgents, /Library/...).
    (("library", "launchagents"), "launchd agents (~/Library/LaunchAgents)"),
    (("library", "launchdaemons"), "launchd daemons (/Library/LaunchDaemons)"),
    # The Windows Startup folder, per user (AppData\Roaming\...) and for all users (ProgramData\...).
    (("microsoft", "windows", "start menu", "programs", "startup"), "the Windows Startup folder"),
)
# What below a configuration home ($XDG_CONFIG_HOME) or data home ($XDG_DATA_HOME) runs at login.
CONFIG_HOME_PERSISTENCE: dict[str, str] = {
    "autostart": "login autostart entries ($XDG_CONFIG_HOME/autostart)",
    "systemd": "systemd user units ($XDG_CONFIG_HOME/systemd)",
    "environment.d": "login environment files ($XDG_CONFIG_HOME/environment.d)",
}
DATA_HOME_PERSISTENCE: dict[str, str] = {"systemd": "systemd user units ($XDG_DATA_HOME/systemd)"}

def fold_component(name: str) -> str:
    """The spelling a floor compares: NFKC, case-folded, no ``:stream``, no trailing dot/space.

    ``.`` and ``..`` are returned unchanged (stripping their dots would turn
    them into an empty name).
    """
    if name.isascii() and ":" not in name and name[-1:] not in (".", " ", ""):
        # Fast path for the common case: NFKC and casefold are lower() on ASCII.
        return name.lower()
    if name in (".", ".."):
        return name
    folded = unicodedata.normalize("NFKC", name).casefold()
    folded = unicodedata.normalize("NFKC", folded)
    folded = folded.split(":", 1)[0]
    stripped = folded.rstrip(". ")
    return stripped if stripped else folded


def split_components(path: str) -> list[str]:
    """Components of a tool path for floor checks; both separators split.

    On POSIX a backslash is an ordinary filename character, but splitting on
    it here only ever makes the floor stricter.
    """
    return [c for c in re.split(r"[\\/]+", path) if c not in ("", ".")]


def _is_dotenv(folded: str) -> bool:
    return folded == ".env" or folded.startswith(".env.")


def _is_gitdir(folded: str) -> bool:
    return folded == ".git" or folded.endswith(".git")


@dataclass(frozen=True, slots=True)
class FloorContext:
    """What a floor needs to know about a directory's ancestors.

    ``parent`` / ``grandparent`` are folded names; ``in_gitdir`` is true
    beneath a ``.git`` or bare ``*.git`` directory.
    """

    parent: str = ""
    grandparent: str = ""
    in_gitdir: bool = False

    def child(self, folded: str) -> FloorContext:
        return FloorContext(folded, self.parent, self.in_gitdir or _is_gitdir(folded))


ROOT_CONTEXT = FloorContext()


def read_rule(ctx: FloorContext, folded: str) -> str | None:
    """The read-floor rule ``folded`` (a child of ``ctx``) hits, or None."""
    if _is_dotenv(folded):
        return "dotenv files and folders (.env, .env.*)"
    if folded in PROTECTED_DIRS:
        return f"{folded}/ folders"
    if folded in CREDENTIAL_BASENAMES:
        return f"{folded} credential files"
    if folded == "config.json" and ctx.parent == ".docker":
        return ".docker/config.json"
    if folded in GIT_CONFIG_NAMES and ctx.in_gitdir:
        return "a repository's git config"
    if ctx.parent == "git" and (
        folded == "credentials" or (folded == "config" and ctx.grandparent == ".config")
    ):
        return "git's XDG credentials and config"
    return None


def read_denied_names(ctx: FloorContext) -> frozenset[str]:
    """Every folded name :func:`read_rule` denies under ``ctx`` except the dotenv prefix rule.

    Compiled once per directory so a listing pays one set lookup per entry;
    pair it with :func:`is_dotenv`.  Must agree with :func:`read_rule`
    (tested).
    """
    names = set(PROTECTED_DIRS | CREDENTIAL_BASENAMES)
    if ctx.parent == ".docker":
        names.add("config.json")
    if ctx.in_gitdir:
        names |= GIT_CONFIG_NAMES
    if ctx.parent == "git":
        names.add("credentials")
        if ctx.grandparent == ".config":
            names.add("config")
    return frozenset(names)


def is_dotenv(folded: str) -> bool:
    return _is_dotenv(folded)


def write_rule(ctx: FloorContext, folded: str) -> str | None:
    """The write-floor rule ``folded`` hits: the read floor plus git dirs and shell start-up files.

    Per component, for the walker; the multi-component persistence locations
    are added by :func:`write_floor`.
    """
    rule = read_rule(ctx, folded)
    if rule is not None:
        return rule
    if _is_gitdir(folded):
        return ".git/ folders"
    if folded in SHELL_STARTUP_BASENAMES:
        return "shell start-up files"
    if folded == "conf.d" and ctx.parent == "fish":
        return "shell start-up files"
    return None


@dataclass(frozen=True, slots=True)
class PersistenceAnchor:
    """A home folder whose children run code at login: ``$XDG_CONFIG_HOME``, ``$XDG_DATA_HOME``.

    ``prefix`` is the home's folded absolute components; ``children`` maps a
    folded child name to the rule it hits.  The host builds these from its
    environment (the engine cannot read one); the default locations
    (``~/.config``, ``~/.local/share``) are already covered by
    :data:`PERSISTENCE_SEQUENCES`.
    """

    prefix: tuple[str, ...]
    children: tuple[tuple[str, str], ...]  # (folded child name, rule): hashable, like the policy holding it

    def rule_for(self, folded: str) -> str | None:
        return next((rule for name, rule in self.children if name == folded), None)


def persistence_anchor(components: Sequence[str], children: Mapping[str, str]) -> PersistenceAnchor:
    return PersistenceAnchor(tuple(fold_component(c) for c in components if c not in ("", ".")),
                             tuple(children.items()))


def persistence_rule(folded: Sequence[str], anchors: Sequence[PersistenceAnchor] = ()) -> str | None:
    """The persistence rule a path of folded components hits (its location or anything below), or None."""
    for end in range(1, len(folded) + 1):
        last = folded[end - 1]
        for sequence, rule in PERSISTENCE_SEQUENCES:
            n = len(sequence)
            if last == sequence[-1] and end >= n and tuple(folded[end - n : end]) == sequence:
                return rule
        for anchor in anchors:
            n = len(anchor.prefix)
            if end == n + 1 and tuple(folded[:n]) == anchor.prefix:
                anchored = anchor.rule_for(last)
                if anchored is not None:
                    return anchored
    return None


def _check(components: Sequence[str], exempt_index: int | None, write: bool) -> str | None:
    ctx = ROOT_CONTEXT
    rule_of = write_rule if write else read_rule
    for index, raw in enumerate(components):
        if raw in ("", "."):
            continue
        folded = fold_component(raw)
        rule = rule_of(ctx, folded)
        if rule is not None and not (index == exempt_index and folded == ".relavium"):
            return rule
        ctx = ctx.child(folded)
    return None


def read_floor(components: Sequence[str], *, relavium_exempt_index: int | None = None) -> str | None:
    """The read-floor rule a path (as components) hits, or None when readable.

    ``relavium_exempt_index`` is the index of the one ``.relavium``
    component a host-issued scratch descriptor exempts; only that component
    and only the ``.relavium`` rule are lifted.
    """
    return _check(components, relavium_exempt_index, write=False)


def write_floor(
    components: Sequence[str],
    *,
    relavium_exempt_index: int | None = None,
    anchors: Sequence[PersistenceAnchor] = (),
) -> str | None:
    """The write-floor rule a path hits, or None when writable (floors only, not scope).

    ``anchors`` are the host's configuration/data homes when they are not
    the default ``~/.config`` / ``~/.local/share`` (see :class:`PersistenceAnchor`).
    """
    rule = _check(components, relavium_exempt_index, write=True)
    if rule is not None:
        return rule
    return persistence_rule([fold_component(c) for c in components if c not in ("", ".")], anchors)


def is_unc(path: str, *, windows: bool) -> bool:
    """Whether a raw tool path is a UNC / device path, refused before any I/O.

    ``\\\\server\\share`` (and ``\\\\?\\`` / ``\\\\.\\`` device forms) is refused on
    every OS.  On Windows the forward-slash and mixed-separator spellings are
    the same thing and refuse too; on POSIX ``//x`` is an ordinary absolute path.
    """
    if path.startswith("\\\\"):
        return True
    return bool(windows and len(path) >= 2 and path[0] in "\\/" and path[1] in "\\/")


# Folders whose writes are not refused by a floor but still always ask a
# human first, in every chat mode (key rings, per-user config and launchers).
ASK_BEFORE_WRITE_COMPONENTS: frozenset[str] = frozenset(
    {".gnupg", ".config", ".local", ".kube", ".docker", ".vscode", ".idea", ".github", "autostart"}
)


def is_protected_write(path: str) -> bool:
    """Whether a write to ``path`` is a protected-path write: on the write floor,
    or inside a folder whose writes always ask.  Pure, so the registry can flag
    the approval request and every surface agrees on what "protected" means."""
    components = split_components(path)
    if write_floor(components) is not None:
        return True
    return any(fold_component(c) in ASK_BEFORE_WRITE_COMPONENTS for c in components)

