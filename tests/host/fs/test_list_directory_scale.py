"""list_directory on wide trees and its timestamp text.

A desktop session's soft open-file limit is often 1,024, and a
``node_modules`` easily has more subfolders than that.  The walk must visit
them all with a bounded number of descriptors (one per level), never drop
subtrees silently; and when it truly cannot open a folder for a reason other
than "it went away", it says so instead of returning part of the tree.

The directory-wide floor check must let through and fold exactly what the
per-name read rule does.  The memoised timestamp formatter must spell every mtime exactly like
``iso_mtime`` (what read_file returns), including rounding to the microsecond.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from relavium_desktop.engine.errors import ToolFailedError
from relavium_desktop.engine.tools.fs_floors import (
    CREDENTIAL_BASENAMES,
    GIT_CONFIG_NAMES,
    PROTECTED_DIRS,
    ROOT_CONTEXT,
    FloorContext,
    fold_component,
    read_rule,
)
from relavium_desktop.host.fs import lister
from relavium_desktop.host.fs.text import iso_mtime
from tests.host.fs.conftest import Tree


@contextmanager
def _open_file_limit(headroom: int) -> Iterator[None]:
    """Lower this process's soft descriptor limit to what is open now plus ``headroom``."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    in_use = len(os.listdir("/proc/self/fd"))
    resource.setrlimit(resource.RLIMIT_NOFILE, (in_use + headroom, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_a_folder_with_more_subfolders_than_free_descriptors_is_listed_whole(tree: Tree) -> None:
    wide = tree.ws / "node_modules"
    for i in range(150):
        pkg = wide / f"pkg{i:03d}" / "lib"
        pkg.mkdir(parents=True)
        (pkg / "index.js").write_text("x")
    policy = tree.fs().policy
    with _open_file_limit(headroom=24):
        result = lister.list_directory(policy, "node_modules", recursive=True, glob=None)
    names = {e["name"] for e in result["entries"]}
    assert {f"pkg{i:03d}/lib/index.js" for i in range(150)} <= names
    assert len(names) == 450 and "truncated" not in result
    # Glob mode descends the same way (by directory type, without a stat per entry).
    with _open_file_limit(headroom=24):
        result = lister.list_directory(policy, "node_modules", recursive=True, glob="**/index.js")
    assert len(result["entries"]) == 150


def test_running_out_of_descriptors_fails_instead_of_listing_part_of_the_tree(tree: Tree) -> None:
    deep = tree.ws / "deep"
    path = deep
    for i in range(40):
        path = path / f"level{i}"
    path.mkdir(parents=True)
    (path / "bottom.txt").write_text("x")
    policy = tree.fs().policy
    with _open_file_limit(headroom=12), pytest.raises(ToolFailedError, match="open-file limit"):
        lister.list_directory(policy, "deep", recursive=True, glob=None)
    # With descriptors to spare the same tree lists to the bottom.
    result = lister.list_directory(policy, "deep", recursive=True, glob=None)
    assert any(e["name"].endswith("level39/bottom.txt") for e in result["entries"])
    assert len(os.listdir("/proc/self/fd")) < 64  # nothing leaked by the failed walk


_MIN_TS = datetime(1, 1, 2, tzinfo=UTC).timestamp()
_MAX_TS = datetime(9999, 12, 30, tzinfo=UTC).timestamp()


@settings(max_examples=1500)
@given(
    mtime=st.one_of(
        st.floats(min_value=_MIN_TS, max_value=_MAX_TS, allow_nan=False),
        # Around the microsecond rounding boundaries, where a carry changes the second.
        st.builds(
            lambda s, half: s + half * 5e-7,
            st.integers(-(10**10), 10**11),
            st.sampled_from([-1, 1, 3, 1999999]),
        ),
    )
)
def test_memoised_mtime_text_is_exactly_iso_mtime(mtime: float) -> None:
    fmt = lister.MtimeText()
    assert fmt.text(mtime) == iso_mtime(mtime)
    assert fmt.text(mtime) == iso_mtime(mtime)  # and again from the memo
    # A neighbour in the same second reuses the memoised head and must still be exact.
    assert fmt.text(mtime + 1e-3) == iso_mtime(mtime + 1e-3)


def test_listing_reports_the_same_timestamp_as_read_file(tree: Tree) -> None:
    target = tree.ws / "hello.txt"
    os.utime(target, ns=(0, 1_700_000_000_999_999_600))  # rounds up into the next second
    policy = tree.fs().policy
    entries = {
        e["name"]: e for e in lister.list_directory(policy, ".", recursive=False, glob=None)["entries"]
    }
    assert entries["hello.txt"]["lastModified"] == iso_mtime(target.stat().st_mtime) == "2023-11-14T22:13:21Z"


_FLOOR_NAMES = sorted(
    PROTECTED_DIRS | CREDENTIAL_BASENAMES | GIT_CONFIG_NAMES | {"config.json", "credentials"}
)
_SPELLINGS = st.sampled_from(
    [
        lambda n: n,
        str.upper,
        lambda n: n + ".",
        lambda n: n + " ",
        lambda n: n + ":x",
        lambda n: n + ".local",
        lambda n: "\uff0e" + n.lstrip(".") if n.startswith(".") else n + "\u00a0",
        lambda n: "x" + n,
    ]
)
_NAME = st.one_of(
    st.builds(
        lambda n, spell: spell(n), st.sampled_from([*_FLOOR_NAMES, ".env", ".env.prod", ".EnV"]), _SPELLINGS
    ),
    st.text(alphabet=st.characters(blacklist_characters="/\x00"), min_size=1, max_size=12),
    st.from_regex(r"[a-z0-9_.-]{1,12}", fullmatch=True),
).filter(lambda n: n not in (".", ".."))
_CONTEXT = st.sampled_from(
    [
        ROOT_CONTEXT,
        ROOT_CONTEXT.child(".docker"),
        ROOT_CONTEXT.child(".git"),
        ROOT_CONTEXT.child(".config").child("git"),
        ROOT_CONTEXT.child("git"),
    ]
)


@settings(max_examples=500)
@given(names=st.lists(_NAME, max_size=12, unique=True), ctx=_CONTEXT)
def test_directory_wide_floor_check_agrees_with_the_per_name_read_rule(
    names: list[str], ctx: FloorContext
) -> None:
    folded = lister.readable_folded(names, ctx)
    assert len(folded) == len(names)
    for name, one in zip(names, folded, strict=True):
        expected = fold_component(name)
        if read_rule(ctx, expected) is not None:
            assert one is None, name
        else:
            assert one == expected, name
