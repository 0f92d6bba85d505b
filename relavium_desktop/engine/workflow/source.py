"""YAML text -> plain data plus a map from data paths to line:column.

ruamel.yaml's round-trip loader keeps the position of every key and item;
we keep that tree beside the plain copy handed to pydantic, so a validation
error's ``loc`` (or a graph check's path) can be turned back into the exact
``file:line:column`` the author wrote.  Pure: it parses text, never a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError

from relavium_desktop.engine.workflow.errors import Issue

Path = Sequence[str | int]


class SourceMap:
    def __init__(self, tree: Any) -> None:
        self._tree = tree

    def locate(self, path: Path) -> tuple[int, int] | None:
        """1-based (line, column) of the deepest key/item of ``path`` that exists.

        Segments that name no key (pydantic's union tags, a missing field) are
        skipped, so a missing field points at its parent mapping.
        """
        node = self._tree
        pos: tuple[int, int] | None = (1, 1)
        for seg in path:
            if isinstance(node, CommentedMap) and isinstance(seg, str) and seg in node:
                line, col = node.lc.key(seg)
                pos = (line + 1, col + 1)
                node = node[seg]
            elif isinstance(node, CommentedSeq) and isinstance(seg, int) and 0 <= seg < len(node):
                line, col = node.lc.item(seg)
                pos = (line + 1, col + 1)
                node = node[seg]
            else:
                continue
        return pos

    def issue(self, path: Path, message: str) -> Issue:
        pos = self.locate(path)
        return Issue(message, pos[0], pos[1]) if pos else Issue(message)


def _plain(value: Any) -> Any:
    """Strip ruamel's wrapper types so models and JSON see plain Python values."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, float):
        return float(value)
    if isinstance(value, str):
        return str(value)
    return str(value)


def parse_yaml(text: str) -> tuple[Any, SourceMap]:
    """Parse text; a YAML syntax error becomes one positioned :class:`Issue`."""
    yaml = YAML(typ="rt")
    try:
        tree = yaml.load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        message = f"YAML syntax error: {exc.problem or exc.context or 'invalid document'}"
        if mark is not None:
            raise YamlSyntaxError(Issue(message, mark.line + 1, mark.column + 1)) from None
        raise YamlSyntaxError(Issue(message)) from None
    return _plain(tree), SourceMap(tree)


class YamlSyntaxError(Exception):
    def __init__(self, issue: Issue) -> None:
        super().__init__(issue.message)
        self.issue = issue
