"""Log lines, masked: every record of every logger, before any handler sees it.

Both entry points (the ``relavium`` command and the desktop app) call
:func:`configure_logging` first thing.  It installs :class:`MaskingFilter`
at the one place every record passes through -- the log record factory --
because a filter attached to a logger sees only records logged to that very
logger, not to its children (``relavium_desktop.host.mcp`` would slip past a
filter on ``relavium_desktop``), and a handler added later (by a library, a
test, a user's config) would need its own.  The message is rendered and
masked at creation, arguments included, as is a traceback's text.

``RELAVIUM_LOG=debug`` (or ``info``, ``warning``, ``error``) sends the
app's own log lines (the ``relavium`` and ``relavium_desktop`` loggers) to
stderr at that level, for diagnosing a problem; they are masked like every
other line.
"""

from __future__ import annotations

import logging
import os
import sys
from collections.abc import Callable, Mapping
from typing import Any

LOG_ENV = "RELAVIUM_LOG"
APP_LOGGERS = ("relavium", "relavium_desktop")
_LEVELS = {"debug": logging.DEBUG, "info": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
_FORMAT = "relavium %(levelname)s %(name)s: %(message)s"


class MaskingFilter(logging.Filter):
    """Masks a record in place: its rendered message, its traceback text and stack; never drops it."""

    def filter(self, record: logging.LogRecord) -> bool:
        mask_record(record)
        return True


def mask_record(record: logging.LogRecord) -> None:
    if getattr(record, "_relavium_masked", False):
        return
    # Imported with the first record, not with configure_logging: its patterns compile on import
    # (~10 ms), which a start that logs nothing before its first paint need not pay.
    from relavium_desktop.engine.tools.masking import mask_text

    try:
        message = record.getMessage()
    except Exception:  # noqa: BLE001 -- a bad format string: logging reports it later, with no args shown
        message = str(record.msg)
    record.msg, record.args = mask_text(message), None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = mask_text(record.exc_text)
    if record.stack_info:
        record.stack_info = mask_text(record.stack_info)
    setattr(record, "_relavium_masked", True)  # noqa: B010 -- LogRecord declares no such field


_FACTORY_MARK = "_relavium_masking"


def install_record_masking() -> None:
    """Mask every log record as it is created (idempotent)."""
    previous: Callable[..., logging.LogRecord] = logging.getLogRecordFactory()
    if getattr(previous, _FACTORY_MARK, False):
        return

    def factory(*args: Any, **kwargs: Any) -> logging.LogRecord:
        record = previous(*args, **kwargs)
        mask_record(record)
        return record

    setattr(factory, _FACTORY_MARK, True)
    logging.setLogRecordFactory(factory)


_HANDLER_MARK = "_relavium_stderr"


def configure_logging(env: Mapping[str, str] | None = None) -> None:
    """Masked logging for this process; with ``RELAVIUM_LOG=<level>`` the app's logs go to stderr."""
    install_record_masking()
    level = _LEVELS.get((os.environ if env is None else env).get(LOG_ENV, "").strip().lower())
    if level is None:
        return
    for name in APP_LOGGERS:
        logger = logging.getLogger(name)
        logger.setLevel(level)
        if any(getattr(h, _HANDLER_MARK, False) for h in logger.handlers):
            continue
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter(_FORMAT))
        handler.addFilter(MaskingFilter())
        setattr(handler, _HANDLER_MARK, True)
        logger.addHandler(handler)
