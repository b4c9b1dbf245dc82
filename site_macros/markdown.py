"""Small Markdown builders for the generated tables."""

from __future__ import annotations

from collections.abc import Sequence


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """A Markdown table; a blank line before and after so it always parses."""
    lines = ["| " + " | ".join(_cell(h) for h in headers) + " |",
             "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return "\n\n" + "\n".join(lines) + "\n\n"


def link(text: str, target: str) -> str:
    return f"[{text}]({target})"
