"""The one module that owns the Qt imports.

Everything in ``ui`` imports Qt names from here, so a binding switch or a
version workaround happens in one place.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer, Signal, Slot
from PySide6.QtGui import QAction, QCloseEvent, QIcon
from PySide6.QtWidgets import (
    QApplication,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMainWindow,
    QPlainTextEdit,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

__all__ = [
    "QAction",
    "QApplication",
    "QCloseEvent",
    "QHBoxLayout",
    "QIcon",
    "QLabel",
    "QListWidget",
    "QMainWindow",
    "QObject",
    "QPlainTextEdit",
    "QSplitter",
    "QTimer",
    "QVBoxLayout",
    "QWidget",
    "Qt",
    "Signal",
    "Slot",
]
