"""A media producer run as its own process, so tests can SIGKILL it mid-publication.

``python -m tests.host.media.producer ROOT slow`` publishes CHUNKS chunks with
a pause after each (a slow network stream); ``... ROOT stdin`` publishes one
chunk per stdin line, so the test decides when it ends.  "ready" is printed
once the store is about to receive bytes; the digest is printed at the end.
"""

from __future__ import annotations

import hashlib
import sys
import time
from collections.abc import Iterator
from pathlib import Path

from relavium_desktop.host.media import MediaStore

CHUNKS = 48
CHUNK_SIZE = 64 * 1024


def chunk(i: int) -> bytes:
    return hashlib.sha256(str(i).encode()).digest() * (CHUNK_SIZE // 32)


def expected_digest() -> str:
    h = hashlib.sha256()
    for i in range(CHUNKS):
        h.update(chunk(i))
    return h.hexdigest()


def _slow() -> Iterator[bytes]:
    for i in range(CHUNKS):
        yield chunk(i)
        time.sleep(0.006)


def _from_stdin() -> Iterator[bytes]:
    for i, _line in enumerate(sys.stdin):
        yield chunk(i)
        print(f"chunk {i}", flush=True)


def main() -> None:
    store = MediaStore(Path(sys.argv[1]))
    print("ready", flush=True)
    source = _slow() if sys.argv[2] == "slow" else _from_stdin()
    ref = store.publish_stream(source, "application/octet-stream")
    print(ref.sha256, flush=True)


if __name__ == "__main__":
    main()
