"""The code stays readable in an afternoon: no module over 400 lines, no function over 80, and one over 60 says why.

A function of 61-80 lines carries a comment starting `# long:` in its first lines with the reason.
"""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import REPO

PACKAGE = REPO / "site_builder"


def sources() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_no_module_is_over_400_lines() -> None:
    long = {str(p.relative_to(REPO)): n for p in sources() if (n := len(p.read_text().splitlines())) > 400}
    assert not long, f"modules over 400 lines: {long}"


def test_no_function_is_over_80_lines_and_long_ones_say_why() -> None:
    too_long, unexplained = [], []
    for path in sources():
        text = path.read_text()
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                where = f"{path.relative_to(REPO)}:{node.lineno} {node.name} ({length} lines)"
                if length > 80:
                    too_long.append(where)
                elif length > 60:
                    head = lines[node.lineno - 1 : node.lineno + 12]
                    if not any(line.strip().startswith("# long:") for line in head):
                        unexplained.append(where)
    assert not too_long, f"functions over 80 lines: {too_long}"
    assert not unexplained, f"functions over 60 lines without a '# long:' reason: {unexplained}"
