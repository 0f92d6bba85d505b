"""Log lines are masked at record creation, for every logger; RELAVIUM_LOG shows them on stderr."""

from __future__ import annotations

import logging
import subprocess
import sys
from collections.abc import Iterator

import pytest

from relavium_desktop.host.log_masking import MaskingFilter, install_record_masking

KEY = "ghp_Lq2Wm4Ne6Rb8Tc0Yd2Uf4Ig6Oh8Pj0Ak2Sl"


@pytest.fixture
def record_factory() -> Iterator[None]:
    previous = logging.getLogRecordFactory()
    yield
    logging.setLogRecordFactory(previous)


class _Keep(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


def test_every_logger_is_masked_args_and_traceback_included(record_factory: None) -> None:
    install_record_masking()
    install_record_masking()  # idempotent
    handler = _Keep()
    logger = logging.getLogger("relavium_desktop.some.child")
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)
    try:
        logger.warning("server said %s", KEY)
        try:
            raise RuntimeError(f"boom {KEY}")
        except RuntimeError:
            logger.exception("failed with %r", {"token": KEY})
    finally:
        logger.removeHandler(handler)
    text = "\n".join(handler.lines)
    assert "server said ***" in text and "Traceback" in text and "RuntimeError: boom ***" in text
    assert KEY[4:12] not in text


def test_the_filter_masks_a_record_in_place() -> None:
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "key %s", (KEY,), None)
    assert MaskingFilter().filter(record) is True
    assert record.getMessage() == "key ***"


def test_relavium_log_debug_shows_the_apps_logs_on_stderr_masked(tmp_path: object) -> None:
    script = (
        "import logging\n"
        "from relavium_desktop.host.log_masking import configure_logging\n"
        "configure_logging()\n"
        f"logging.getLogger('relavium.mcp').debug('MCP server x: %s', {KEY!r})\n"
        "logging.getLogger('relavium_desktop.application.agents').info('plain line')\n"
    )
    env = {"RELAVIUM_LOG": "debug", "PATH": "/usr/bin:/bin"}
    proc = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=60,
                          check=True)
    assert "relavium DEBUG relavium.mcp: MCP server x: ***" in proc.stderr
    assert "relavium INFO relavium_desktop.application.agents: plain line" in proc.stderr
    assert KEY[4:12] not in proc.stderr
    quiet = subprocess.run([sys.executable, "-c", script], env={"PATH": "/usr/bin:/bin"}, capture_output=True,
                           text=True, timeout=60, check=True)
    assert quiet.stderr == ""
