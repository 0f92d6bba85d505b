"""The words a person reads first: a walker over a widget's visible texts and the rule they follow.

The design's rule: primary text is words for people.  Error codes
(``tool_denied``), reasons (``not_granted``), action classes and tool ids
(``fs_write``, ``write_file``, ``mcp_files_add``) and raw UTC timestamps may
appear only in an expanded detail.  A view marks such a container with
objectName ``details`` or the dynamic property ``details=True``; the walker
skips everything inside one.  Besides labels and buttons it reads the cells
of lists, tables and trees (their shown rows and columns): a table row is
read first as much as a label is.  Other view tests reuse :func:`primary_texts`
and :func:`assert_words_for_people`.
"""

from __future__ import annotations

import re

from relavium_desktop.engine.errors import DenyReason, ErrorCode, InvalidReason
from relavium_desktop.engine.llm.errors import ProviderErrorCode
from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
from relavium_desktop.engine.tools.tooldef import ActionClass
from relavium_desktop.ui.qt import (
    QAbstractButton,
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QListView,
    Qt,
    QTableView,
    QTextDocument,
    QTreeView,
    QWidget,
)

# Identifiers never read first: every code, reason, action class and tool id that is not an
# ordinary English word (the ones with an underscore), plus MCP tool ids by their shape.
IDS: frozenset[str] = frozenset(
    value
    for value in (
        *(str(c) for c in ErrorCode),
        *(str(r) for r in DenyReason),
        *(str(r) for r in InvalidReason),
        *(str(c) for c in ProviderErrorCode),
        *(str(a) for a in ActionClass),
        *(t.id for t in BUILTIN_TOOLS),
    )
    if "_" in value
)
_ID = re.compile(r"(?<![\w-])(" + "|".join(sorted(map(re.escape, IDS), key=len, reverse=True)) + r")(?![\w-])")
_MCP_ID = re.compile(r"(?<![\w-])mcp_\w+")
_TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT?\s?\d\d:")


def _in_details(widget: QWidget, root: QWidget) -> bool:
    node: QWidget | None = widget
    while node is not None:
        if node.objectName() == "details" or node.property("details") is True:
            return True
        if node is root:
            return False
        node = node.parentWidget()
    return False


def _plain(label: QLabel) -> str:
    rich = label.textFormat() == Qt.TextFormat.RichText
    if label.textFormat() == Qt.TextFormat.AutoText:
        rich = "<" in label.text() and ">" in label.text()  # Qt's own guess, roughly: tags present
    if rich:
        document = QTextDocument()
        document.setHtml(label.text())
        return document.toPlainText()
    return label.text()


MAX_ROWS = 200  # a long list is read the same way row after row; its first rows stand for it


def _cells(view: QAbstractItemView) -> list[str]:
    """The display texts of a list's, table's or tree's shown top-level rows and columns."""
    model = view.model()
    if model is None or isinstance(view, QHeaderView):  # a header shares its table's model: not its cells
        return []
    root = view.rootIndex()
    try:
        columns = model.columnCount(root)
    except TypeError:  # a list model (PySide keeps QAbstractListModel.columnCount private): one column
        columns = 1
    texts = []
    for row in range(min(model.rowCount(root), MAX_ROWS)):
        if isinstance(view, (QTableView, QListView)) and view.isRowHidden(row):
            continue
        for column in range(columns):
            if isinstance(view, (QTableView, QTreeView)) and view.isColumnHidden(column):
                continue
            value = model.index(row, column, root).data(Qt.ItemDataRole.DisplayRole)
            if isinstance(value, str):
                texts.append(value)
    return texts


def primary_texts(widget: QWidget) -> list[str]:
    """The texts of every visible label, button and list/table cell under ``widget``, outside any details."""
    texts: list[str] = []
    for child in [widget, *widget.findChildren(QWidget)]:
        if not child.isVisibleTo(widget) and child is not widget:
            continue
        if _in_details(child, widget):
            continue
        if isinstance(child, QLabel):
            text = _plain(child)
        elif isinstance(child, QAbstractButton):
            text = child.text()
        elif isinstance(child, QAbstractItemView):
            texts.extend(t for t in _cells(child) if t.strip())
            continue
        else:
            continue
        if text.strip():
            texts.append(text)
    return texts


def problems(text: str) -> list[str]:
    """What in ``text`` is not for people: ids, codes, raw timestamps."""
    found = [m.group(0) for m in _ID.finditer(text)] + [m.group(0) for m in _MCP_ID.finditer(text)]
    found += [m.group(0) for m in _TIMESTAMP.finditer(text)]
    if "+00:00" in text:
        found.append("+00:00")
    return found


def assert_words_for_people(widget: QWidget, where: str = "") -> list[str]:
    """Fail when a visible primary text of ``widget`` holds an id, a code or a raw timestamp."""
    texts = primary_texts(widget)
    bad = {text: problems(text) for text in texts if problems(text)}
    assert not bad, (where or widget.objectName(), bad)
    return texts
