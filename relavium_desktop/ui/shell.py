"""The main window shell on a qasync loop.

This first shell lists the registered tools and their guardrail classes; the
chat, workflow and settings views arrive with their issues.
"""

from __future__ import annotations

import asyncio
import json

from relavium_desktop.ui.qt import (
    QApplication,
    QLabel,
    QListWidget,
    QMainWindow,
    QPlainTextEdit,
    QSplitter,
    Qt,
    QVBoxLayout,
    QWidget,
)


class MainWindow(QMainWindow):
    def __init__(self) -> None:
        super().__init__()
        from relavium_desktop.engine.host import ToolHost
        from relavium_desktop.engine.tools.builtins import BUILTIN_TOOLS
        from relavium_desktop.engine.tools.registry import ToolRegistry

        self.setWindowTitle("Relavium Desktop")
        self.resize(1000, 640)
        self._tools = ToolRegistry(BUILTIN_TOOLS, ToolHost()).describe()
        splitter = QSplitter(Qt.Orientation.Horizontal)
        self.tool_list = QListWidget()
        for tool in self._tools:
            self.tool_list.addItem(f"{tool['id']}  ·  {tool['policy']['actionClass']}")
        self.detail = QPlainTextEdit()
        self.detail.setReadOnly(True)
        self.tool_list.currentRowChanged.connect(self._show_tool)
        splitter.addWidget(self.tool_list)
        splitter.addWidget(self.detail)
        splitter.setStretchFactor(1, 3)
        root = QWidget()
        layout = QVBoxLayout(root)
        layout.addWidget(QLabel("Built-in tools and their guardrail classes"))
        layout.addWidget(splitter)
        self.setCentralWidget(root)
        self.tool_list.setCurrentRow(0)

    def _show_tool(self, row: int) -> None:
        if 0 <= row < len(self._tools):
            self.detail.setPlainText(json.dumps(self._tools[row], indent=2))


def run_app(argv: list[str]) -> int:
    import qasync

    app = QApplication.instance() or QApplication(argv)
    app.setApplicationName("Relavium")
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    window = MainWindow()
    window.show()
    closed = asyncio.Event()
    app.aboutToQuit.connect(closed.set)
    with loop:
        loop.run_until_complete(closed.wait())
    return 0
