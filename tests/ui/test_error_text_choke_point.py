"""Guard: an exception's text reaches the UI only through ``ui/error_text.py``.

Every module under ``relavium_desktop/ui`` is parsed with ``ast``.  An
*exception variable* is a name bound by ``except ... as NAME`` or a
parameter annotated as an exception (``exc: BaseException``).  Turning one
into text -- ``str(exc)``, ``repr(exc)``, ``f"{exc}"``, ``exc.args``,
``exc.strerror``, ``"%s" % exc``, ``"{}".format(exc)`` -- is allowed only
inside a call to ``error_text(...)`` or ``first_line(...)``, which mask,
clip and apply the display rule.  So a new banner that shows an error
without masking fails here, naming its file and line.  ``type(exc).__name__``
is a class name, not the error's text, and is allowed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import relavium_desktop.ui as ui_package

UI_ROOT = Path(ui_package.__file__).parent
CHOKE_POINTS = frozenset({"error_text", "first_line"})
TEXT_CALLS = frozenset({"str", "repr", "ascii", "format"})
# ``strerror`` is not here: it is the OS's fixed sentence for an errno ("Permission denied").
TEXT_ATTRIBUTES = frozenset({"args", "message", "msg", "filename", "filename2", "reason", "text"})
EXCEPTION_ANNOTATIONS = ("Exception", "Error", "BaseException")


def _exception_annotation(node: ast.expr | None) -> bool:
    if node is None:
        return False
    return any(
        isinstance(n, ast.Name | ast.Attribute)
        and (n.id if isinstance(n, ast.Name) else n.attr).endswith(EXCEPTION_ANNOTATIONS)
        for n in ast.walk(node)
    )


def _called_name(call: ast.Call) -> str:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return ""


class _Finder(ast.NodeVisitor):
    """Collects (line, snippet) where an exception variable becomes text outside the choke point."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.names: list[set[str]] = [set()]
        self.inside_choke = 0
        self.found: list[tuple[int, str]] = []

    # -- scopes binding exception variables --------------------------------
    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.names.append(self.names[-1] | {node.name})
            self.generic_visit(node)
            self.names.pop()
        else:
            self.generic_visit(node)

    def _visit_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        args = node.args
        params = [*args.posonlyargs, *args.args, *args.kwonlyargs]
        bound = {a.arg for a in params if _exception_annotation(a.annotation)}
        self.names.append(self.names[-1] | bound)
        self.generic_visit(node)
        self.names.pop()

    visit_FunctionDef = _visit_function
    visit_AsyncFunctionDef = _visit_function
    visit_Lambda = _visit_function

    # -- what counts as text ------------------------------------------------
    def _mentions(self, node: ast.AST) -> bool:
        """Whether ``node`` carries an exception variable's text (``type(exc)`` does not)."""
        names = self.names[-1]
        if not names:
            return False
        if isinstance(node, ast.Name):
            return node.id in names
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names:
            return node.attr in TEXT_ATTRIBUTES  # exc.errno, exc.kind: not the error's text
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id in names:
                return True  # exc.describe(): a method of the error returns its text
            if _called_name(node) == "getattr" and len(node.args) >= 2 and self._mentions(node.args[0]):
                attr = node.args[1]
                return not isinstance(attr, ast.Constant) or attr.value in TEXT_ATTRIBUTES
        if isinstance(node, ast.Call) and _called_name(node) in ("type", "isinstance", "id"):
            return False
        if isinstance(node, ast.Call) and _called_name(node) in CHOKE_POINTS:
            return False
        return any(self._mentions(child) for child in ast.iter_child_nodes(node))

    def _flag(self, node: ast.AST) -> bool:
        """Record ``node`` (outside a choke point); True when recorded, so its parts are not reported again."""
        if self.inside_choke:
            return False
        snippet = ast.get_source_segment(self.source, node) or ast.dump(node)
        self.found.append((getattr(node, "lineno", 0), snippet))
        return True

    def visit_Raise(self, node: ast.Raise) -> None:
        """Text put into a raised exception is shown where that exception is caught, which is guarded too."""

    def visit_Call(self, node: ast.Call) -> None:
        name = _called_name(node)
        if name in CHOKE_POINTS:
            self.inside_choke += 1
            self.generic_visit(node)
            self.inside_choke -= 1
            return
        if isinstance(node.func, ast.Name) and name in TEXT_CALLS and any(self._mentions(a) for a in node.args):
            if self._flag(node):
                return
        elif (
            name == "format"
            and isinstance(node.func, ast.Attribute)
            and any(self._mentions(a) for a in [*node.args, *(k.value for k in node.keywords)])
        ) and self._flag(node):
            return
        self.generic_visit(node)

    def visit_FormattedValue(self, node: ast.FormattedValue) -> None:
        if self._mentions(node.value) and self._flag(node):
            return
        self.generic_visit(node)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if (
            isinstance(node.value, ast.Name)
            and node.value.id in self.names[-1]
            and node.attr in TEXT_ATTRIBUTES
            and self._flag(node)
        ):
            return
        self.generic_visit(node)

    def visit_BinOp(self, node: ast.BinOp) -> None:
        if (
            isinstance(node.op, ast.Mod)
            and isinstance(node.left, ast.Constant)
            and isinstance(node.left.value, str)
            and self._mentions(node.right)
            and self._flag(node)
        ):
            return
        self.generic_visit(node)


def leaks(source: str) -> list[tuple[int, str]]:
    finder = _Finder(source)
    finder.visit(ast.parse(source))
    return finder.found


def test_every_ui_module_shows_exception_text_only_through_error_text() -> None:
    modules = sorted(UI_ROOT.rglob("*.py"))
    assert len(modules) > 50, "the ui package was not found where expected"
    problems = [
        f"{path.relative_to(UI_ROOT.parent.parent)}:{line}: {snippet}"
        for path in modules
        if path.name != "error_text.py"
        for line, snippet in leaks(path.read_text(encoding="utf-8"))
    ]
    assert problems == [], "exception text reaches the UI without error_text():\n" + "\n".join(problems)


# The guard itself: each spelling an author might use is caught, the choke point and type names are not.
CAUGHT = [
    "try:\n    f()\nexcept OSError as exc:\n    label.setText(str(exc))\n",
    "try:\n    f()\nexcept OSError as err:\n    label.setText(f'failed: {err}')\n",
    "try:\n    f()\nexcept OSError as e:\n    label.setText(repr(e))\n",
    "try:\n    f()\nexcept OSError as e:\n    label.setText(e.args[0])\n",
    "try:\n    f()\nexcept OSError as e:\n    label.setText(e.filename)\n",
    "try:\n    f()\nexcept OSError as e:\n    label.setText('failed: %s' % e)\n",
    "try:\n    f()\nexcept OSError as e:\n    label.setText('failed: {}'.format(e))\n",
    "try:\n    f()\nexcept OSError as e:\n    later(lambda: label.setText(str(e)))\n",
    "def failed(self, exc: BaseException) -> None:\n    self.label.setText(f'{exc}')\n",
    "def failed(self, error: ValueError | None) -> None:\n    self.label.setText(str(error))\n",
    "def shown(self, problem: StorageError) -> None:\n    self.label.setText(f'{problem.describe()}')\n",
    "try:\n    f()\nexcept OSError as e:\n    label.setText(f'{getattr(e, \"args\", None)}')\n",
    "try:\n    f()\nexcept OSError as e:\n    label.setText(f'{e.strerror or e}')\n",
]
ALLOWED = [
    "try:\n    f()\nexcept OSError as exc:\n    label.setText(error_text(exc))\n",
    "try:\n    f()\nexcept OSError as exc:\n    label.setText(f'Could not save: {error_text(exc)}')\n",
    "try:\n    f()\nexcept OSError as exc:\n    label.setText(f'{type(exc).__name__}: {first_line(exc)}')\n",
    "try:\n    f()\nexcept OSError as exc:\n    raise RuntimeError('x') from exc\n",
    "try:\n    f()\nexcept OSError:\n    label.setText('could not save')\n",
    "try:\n    f()\nexcept ToolError as exc:\n    raise ConfigError(f'URL: {exc.message}') from None\n",
    "try:\n    f()\nexcept OSError as exc:\n    label.setText(f'cannot write: {exc.strerror}')\n",
    "try:\n    f()\nexcept OSError as exc:\n    label.setText(f'{exc.strerror or type(exc).__name__}')\n",
    "try:\n    f()\nexcept OSError as exc:\n    label.setText(f\"{getattr(exc, 'strerror', None)}\")\n",
]


def test_the_guard_catches_every_spelling_of_exception_text() -> None:
    for source in CAUGHT:
        assert leaks(source), source
    for source in ALLOWED:
        assert leaks(source) == [], source
