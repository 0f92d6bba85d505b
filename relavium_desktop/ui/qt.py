"""The one module that owns the Qt imports, each name listed once.

Everything in ``ui`` imports Qt names from here, so a binding switch or a
version workaround happens in one place.  The imports below are the list:
type checkers read them, so a name not listed here is an error where it is
used.  At run time a name resolves on first use (PEP 562) from the first of
QtCore, QtGui, QtWidgets and QtNetwork that has it: PySide6 builds each
wrapped class lazily, and resolving all of them up front cost ~100 ms before
the first paint -- which is also why names only a later page needs (the chat
transcript's text classes) cost nothing until that page is built.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    # ``X as X`` marks a re-export for the type checker (pyproject lets this file spell it).
    from PySide6.QtCore import QBuffer as QBuffer
    from PySide6.QtCore import QByteArray as QByteArray
    from PySide6.QtCore import QEvent as QEvent
    from PySide6.QtCore import QEventLoop as QEventLoop
    from PySide6.QtCore import QFileSystemWatcher as QFileSystemWatcher
    from PySide6.QtCore import QIODevice as QIODevice
    from PySide6.QtCore import QLineF as QLineF
    from PySide6.QtCore import QMimeData as QMimeData
    from PySide6.QtCore import QModelIndex as QModelIndex
    from PySide6.QtCore import QObject as QObject
    from PySide6.QtCore import QPersistentModelIndex as QPersistentModelIndex
    from PySide6.QtCore import QPoint as QPoint
    from PySide6.QtCore import QPointF as QPointF
    from PySide6.QtCore import QRect as QRect
    from PySide6.QtCore import QRectF as QRectF
    from PySide6.QtCore import QSettings as QSettings
    from PySide6.QtCore import QSize as QSize
    from PySide6.QtCore import Qt as Qt
    from PySide6.QtCore import QTimer as QTimer
    from PySide6.QtCore import QUrl as QUrl
    from PySide6.QtCore import Signal as Signal
    from PySide6.QtCore import Slot as Slot
    from PySide6.QtGui import QAction as QAction
    from PySide6.QtGui import QActionGroup as QActionGroup
    from PySide6.QtGui import QBrush as QBrush
    from PySide6.QtGui import QCloseEvent as QCloseEvent
    from PySide6.QtGui import QColor as QColor
    from PySide6.QtGui import QDesktopServices as QDesktopServices
    from PySide6.QtGui import QDragEnterEvent as QDragEnterEvent
    from PySide6.QtGui import QDragMoveEvent as QDragMoveEvent
    from PySide6.QtGui import QDropEvent as QDropEvent
    from PySide6.QtGui import QFont as QFont
    from PySide6.QtGui import QFontDatabase as QFontDatabase
    from PySide6.QtGui import QFontMetrics as QFontMetrics
    from PySide6.QtGui import QGuiApplication as QGuiApplication
    from PySide6.QtGui import QIcon as QIcon
    from PySide6.QtGui import QImage as QImage
    from PySide6.QtGui import QKeyEvent as QKeyEvent
    from PySide6.QtGui import QKeySequence as QKeySequence
    from PySide6.QtGui import QMouseEvent as QMouseEvent
    from PySide6.QtGui import QPainter as QPainter
    from PySide6.QtGui import QPainterPath as QPainterPath
    from PySide6.QtGui import QPaintEvent as QPaintEvent
    from PySide6.QtGui import QPalette as QPalette
    from PySide6.QtGui import QPen as QPen
    from PySide6.QtGui import QPixmap as QPixmap
    from PySide6.QtGui import QPolygonF as QPolygonF
    from PySide6.QtGui import QResizeEvent as QResizeEvent
    from PySide6.QtGui import QShortcut as QShortcut
    from PySide6.QtGui import QShowEvent as QShowEvent
    from PySide6.QtGui import QStandardItem as QStandardItem
    from PySide6.QtGui import QStandardItemModel as QStandardItemModel
    from PySide6.QtGui import QTextBlockFormat as QTextBlockFormat
    from PySide6.QtGui import QTextCharFormat as QTextCharFormat
    from PySide6.QtGui import QTextCursor as QTextCursor
    from PySide6.QtGui import QTextDocument as QTextDocument
    from PySide6.QtGui import QTextDocumentFragment as QTextDocumentFragment
    from PySide6.QtGui import QTextOption as QTextOption
    from PySide6.QtGui import QTextTable as QTextTable
    from PySide6.QtGui import QWheelEvent as QWheelEvent
    from PySide6.QtNetwork import QLocalServer as QLocalServer
    from PySide6.QtNetwork import QLocalSocket as QLocalSocket
    from PySide6.QtWidgets import QAbstractItemView as QAbstractItemView
    from PySide6.QtWidgets import QApplication as QApplication
    from PySide6.QtWidgets import QButtonGroup as QButtonGroup
    from PySide6.QtWidgets import QCheckBox as QCheckBox
    from PySide6.QtWidgets import QComboBox as QComboBox
    from PySide6.QtWidgets import QDialog as QDialog
    from PySide6.QtWidgets import QFileDialog as QFileDialog
    from PySide6.QtWidgets import QFormLayout as QFormLayout
    from PySide6.QtWidgets import QFrame as QFrame
    from PySide6.QtWidgets import QGraphicsDropShadowEffect as QGraphicsDropShadowEffect
    from PySide6.QtWidgets import QGraphicsLineItem as QGraphicsLineItem
    from PySide6.QtWidgets import QGraphicsPathItem as QGraphicsPathItem
    from PySide6.QtWidgets import QGraphicsPolygonItem as QGraphicsPolygonItem
    from PySide6.QtWidgets import QGraphicsRectItem as QGraphicsRectItem
    from PySide6.QtWidgets import QGraphicsScene as QGraphicsScene
    from PySide6.QtWidgets import QGraphicsSimpleTextItem as QGraphicsSimpleTextItem
    from PySide6.QtWidgets import QGraphicsView as QGraphicsView
    from PySide6.QtWidgets import QGridLayout as QGridLayout
    from PySide6.QtWidgets import QGroupBox as QGroupBox
    from PySide6.QtWidgets import QHBoxLayout as QHBoxLayout
    from PySide6.QtWidgets import QHeaderView as QHeaderView
    from PySide6.QtWidgets import QInputDialog as QInputDialog
    from PySide6.QtWidgets import QKeySequenceEdit as QKeySequenceEdit
    from PySide6.QtWidgets import QLabel as QLabel
    from PySide6.QtWidgets import QLineEdit as QLineEdit
    from PySide6.QtWidgets import QListWidget as QListWidget
    from PySide6.QtWidgets import QListWidgetItem as QListWidgetItem
    from PySide6.QtWidgets import QMainWindow as QMainWindow
    from PySide6.QtWidgets import QMenu as QMenu
    from PySide6.QtWidgets import QMessageBox as QMessageBox
    from PySide6.QtWidgets import QPlainTextEdit as QPlainTextEdit
    from PySide6.QtWidgets import QProgressBar as QProgressBar
    from PySide6.QtWidgets import QPushButton as QPushButton
    from PySide6.QtWidgets import QRadioButton as QRadioButton
    from PySide6.QtWidgets import QScrollArea as QScrollArea
    from PySide6.QtWidgets import QSizePolicy as QSizePolicy
    from PySide6.QtWidgets import QSpinBox as QSpinBox
    from PySide6.QtWidgets import QSplitter as QSplitter
    from PySide6.QtWidgets import QStackedWidget as QStackedWidget
    from PySide6.QtWidgets import QStyle as QStyle
    from PySide6.QtWidgets import QStyledItemDelegate as QStyledItemDelegate
    from PySide6.QtWidgets import QStyleOptionComboBox as QStyleOptionComboBox
    from PySide6.QtWidgets import QStyleOptionViewItem as QStyleOptionViewItem
    from PySide6.QtWidgets import QStylePainter as QStylePainter
    from PySide6.QtWidgets import QSystemTrayIcon as QSystemTrayIcon
    from PySide6.QtWidgets import QTableWidget as QTableWidget
    from PySide6.QtWidgets import QTableWidgetItem as QTableWidgetItem
    from PySide6.QtWidgets import QTabWidget as QTabWidget
    from PySide6.QtWidgets import QTextBrowser as QTextBrowser
    from PySide6.QtWidgets import QToolButton as QToolButton
    from PySide6.QtWidgets import QVBoxLayout as QVBoxLayout
    from PySide6.QtWidgets import QWidget as QWidget
else:
    _MODULES = ("QtCore", "QtGui", "QtWidgets", "QtNetwork")

    def __getattr__(name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        for module in _MODULES:
            value = getattr(importlib.import_module(f"PySide6.{module}"), name, None)
            if value is not None:
                globals()[name] = value  # later lookups skip this hook
                return value
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def is_alive(obj: object) -> bool:
    """Whether a Qt object's C++ side still exists: a background result may arrive after its widget closed."""
    import shiboken6

    return bool(shiboken6.isValid(obj))
