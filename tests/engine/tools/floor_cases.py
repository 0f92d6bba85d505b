"""Paths the filesystem floors refuse or allow, and the spellings that must fold to them.

Shared by the pure predicate tests (tests/engine/tools/test_fs_floors.py) and the
real host tests (tests/host/fs/test_floors_host.py).
"""

from __future__ import annotations

READ_DENIED = [
    ".ssh/id_rsa", "a/b/.ssh/id_rsa", ".relavium/history.db", ".aws/credentials", ".env/x",
    ".kube/config", ".azure/token", ".terraform.d/x", "x/gcloud/creds", "legacy_credentials/a",
    ".env", "proj/.env.local", ".env.production", ".docker/config.json", ".git/config",
    ".git/config.worktree", "x.git/config", "repo/.git/worktrees/w/config.worktree",
    "repo/.git/modules/sub/config", ".config/git/credentials", ".config/git/config",
    ".gitconfig", ".git-credentials", ".netrc", ".npmrc", ".pypirc", ".pgpass", ".envrc",
    ".dockercfg", "application_default_credentials.json", "credentials.tfrc.json",
    ".terraformrc", "terraform.rc",
]
ALLOWED = [
    ".envelope", "env/x", "my.gitconfig.bak", "ssh/id_rsa", ".sshx/a", "config", "docker/config.json",
    "src/git/config", ".github/workflows/ci.yml", ".gitignore", ".env_example", "notes/.environment",
    "a.env", "gcloudish/x", "README.md",
]


def variants(path: str) -> list[str]:
    comps = path.split("/")
    return [
        path,
        path.upper(),
        "/".join(c.title() for c in comps),
        "/".join(c + "." for c in comps),
        "/".join(c + " " for c in comps),
        "/".join(c + " . " for c in comps),
        "/".join(c + ":stream" for c in comps),
        "/".join(c + "::$DATA" for c in comps),
        "/".join(c.upper() + ". :s" for c in comps),
        "/".join("\uff0e" + c[1:] if c.startswith(".") else c for c in comps),  # fullwidth dot (NFKC)
    ]
