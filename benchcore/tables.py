"""Markdown tables for reports and cards."""
from __future__ import annotations

from typing import Any, Sequence


def fmt(v: Any, digits: int = 3) -> str:
    if isinstance(v, float):
        return "n/a" if v != v else f"{v:.{digits}f}"
    return str(v)


def markdown_table(header: Sequence[str], rows: Sequence[Sequence[Any]], digits: int = 3) -> str:
    """Render a GitHub-flavoured markdown table.

    >>> print(markdown_table(["a", "b"], [[1, 0.5]]))
    | a | b |
    |---|---|
    | 1 | 0.500 |
    """
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(fmt(v, digits) for v in row) + " |" for row in rows]
    return "\n".join(lines)
