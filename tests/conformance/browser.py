"""A scripted browser for sign-in tests: GET the page, follow every redirect, report nothing.

Started through ``$BROWSER`` exactly as a person's browser would be; the
authorization servers under test approve at once and redirect to the
loopback callback, so following redirects is the whole "user".  With
``SCRIPTED_BROWSER_LOG`` set, the final status is appended to that file.
"""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def main(url: str) -> int:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=30) as response:
            status = response.status
    except urllib.error.HTTPError as exc:
        status = exc.code
    except OSError as exc:
        status = f"error {type(exc).__name__}"
    log = os.environ.get("SCRIPTED_BROWSER_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as f:
            f.write(f"{status}\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
