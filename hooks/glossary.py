"""MkDocs hook: append the glossary as `*[ABBR]: text` lines in the page language (tooltips)."""

from __future__ import annotations

from typing import Any

import calc.data
from calc.display import LANGS  # the one language list (mkdocs.yml → calc/display/cldr.py)


# One abbreviation definition per glossary term, in the page language
def abbreviations(lang: str) -> str:
    lines = []
    for term in calc.data.records("glossary"):
        text = " ".join(str(term[lang]).split())
        lines.append(f"*[{term['abbr']}]: {text}")
    # one definition per block: Markdown's block processors re-test the rest of a block after
    # each definition, which made one 43-line block cost ~10 ms per page
    return "\n\n".join(lines)


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    lang = getattr(page.file, "locale", "en")
    return f"{markdown}\n\n{abbreviations(lang if lang in LANGS else 'en')}\n"
