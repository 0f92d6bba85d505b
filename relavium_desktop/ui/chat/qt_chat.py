"""Qt names only the chat view needs, kept beside it.

``ui/qt.py`` holds what the first paint needs; the chat view's text classes
(document cursor, text browser, scroll area, desktop services for spill
links) load with the chat package instead of widening that module.
"""

from __future__ import annotations

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices, QTextCursor, QTextDocument
from PySide6.QtWidgets import QInputDialog, QScrollArea, QTextBrowser

__all__ = ["QDesktopServices", "QInputDialog", "QScrollArea", "QTextBrowser", "QTextCursor", "QTextDocument", "QUrl"]
