"""The environment a child process gets: built, never copied from the app.

Base variables (the complete list; nothing else from the app leaks through):

* POSIX: ``PATH`` (the host's search path), ``HOME`` (from the password
  database, not the app's possibly redirected ``$HOME``), ``LANG`` and
  ``LC_ALL`` (``C.UTF-8``, so output is decodable and stable), ``TMPDIR``.
* Windows: ``PATH``, ``PATHEXT``, ``SYSTEMROOT``, ``WINDIR``, ``COMSPEC``,
  ``USERPROFILE``, ``HOME``, ``TEMP``, ``TMP``.

On top of these come only the variables the node declared, each name having
passed the engine's env allowlist (inert names plus the policy's
``allowedEnv``, never a hijack family; checked again here, since a host must
not trust that every caller went through the registry).  A declared name can
never replace ``PATH`` or ``HOME``: both are in a hijack family.

Git gets the same base plus switches that keep it from prompting, paging,
reading the user's global/system config (and with it credential helpers) or
lazily fetching over the network.
"""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path

from relavium_desktop.engine.tools.env_policy import check_declared_env

POSIX_BASE_NAMES = ("PATH", "HOME", "LANG", "LC_ALL", "TMPDIR")
WINDOWS_BASE_NAMES = (
    "PATH", "PATHEXT", "SYSTEMROOT", "WINDIR", "COMSPEC", "USERPROFILE", "HOME", "TEMP", "TMP",
)
LOCALE = "C.UTF-8"


def _home() -> str:
    if sys.platform != "win32":
        import pwd

        try:
            return pwd.getpwuid(os.getuid()).pw_dir
        except KeyError:
            pass
    return str(Path.home())


def base_environment(search_path: Sequence[str]) -> dict[str, str]:
    """The platform-minimal environment every child starts from."""
    path = os.pathsep.join(search_path)
    tmp = tempfile.gettempdir()
    if sys.platform == "win32":
        root = os.environ.get("SYSTEMROOT", r"C:\Windows")
        return {
            "PATH": path,
            "PATHEXT": ".COM;.EXE;.BAT;.CMD",
            "SYSTEMROOT": root,
            "WINDIR": root,
            "COMSPEC": rf"{root}\System32\cmd.exe",
            "USERPROFILE": _home(),
            "HOME": _home(),
            "TEMP": tmp,
            "TMP": tmp,
        }
    return {"PATH": path, "HOME": _home(), "LANG": LOCALE, "LC_ALL": LOCALE, "TMPDIR": tmp}


def child_environment(
    base: Mapping[str, str],
    declared: Mapping[str, str],
    *,
    tool_id: str = "run_command",
    allowed: Collection[str] | None = None,
) -> dict[str, str]:
    """Base plus the declared variables, after the env allowlist.

    ``allowed`` is the policy's ``allowedEnv`` (run_command passes it, empty
    when the policy lists none).  ``None`` is for a declaration that is itself
    the user's explicit listing -- an MCP server entry the user or workflow
    author wrote, whose ``env`` names exist only to start that server -- where
    only the hijack families apply.
    """
    check_declared_env(tool_id, declared, allowed=allowed)
    env = dict(base)
    env.update(declared)
    return env


# Environment switches for every git the host runs.
GIT_ENV = {
    "GIT_TERMINAL_PROMPT": "0",  # never ask for a username/password
    "GIT_CONFIG_NOSYSTEM": "1",  # no /etc/gitconfig
    "GIT_CONFIG_GLOBAL": os.devnull,  # no ~/.gitconfig: its credential helpers stay unread
    "GIT_PAGER": "cat",
    "PAGER": "cat",
    "GIT_EDITOR": ":",  # git's own "no editor"
    "GIT_OPTIONAL_LOCKS": "0",  # status does not rewrite the index behind the user's back
    "GIT_NO_LAZY_FETCH": "1",  # a partial clone must not fetch from a remote
    "GIT_ADVICE": "0",
}


def git_environment(base: Mapping[str, str]) -> dict[str, str]:
    env = dict(base)
    env.update(GIT_ENV)
    return env
