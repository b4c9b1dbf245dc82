"""Builders for the generated tables and links.

Tables are HTML, not Markdown tables, and they bypass Markdown altogether: a reference page has
thousands of cells, and Python-Markdown (tables, inline patterns, md_in_html, abbr) spent most of
the build on them. A macro puts an HTML comment marker in the Markdown and keeps the HTML on the
page object (`page.nfg_blocks`); hooks/html_blocks.py puts it back after conversion.
Cells must already be HTML-safe (values.py escapes every figure and text it formats).
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Sequence
from typing import Any

MARKER = "<!-- nfg-block:{key} -->"


def stash(env: Any, block_html: str) -> str:
    """Keep `block_html` on the current page; return the marker that stands for it in Markdown."""
    key = hashlib.sha1(block_html.encode("utf-8")).hexdigest()[:16]
    page = env.page
    blocks: dict[str, str] = getattr(page, "nfg_blocks", None) or {}
    blocks[key] = block_html
    page.nfg_blocks = blocks
    return "\n\n" + MARKER.format(key=key) + "\n\n"


def table(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    """An HTML table as a raw block (blank lines around it so Markdown passes it through)."""
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "\n".join("<tr>" + "".join(f"<td>{cell}</td>" for cell in row) + "</tr>"
                     for row in rows)
    return f"\n\n<table>\n<thead><tr>{head}</tr></thead>\n<tbody>\n{body}\n</tbody>\n</table>\n\n"


def link(text: str, target: str) -> str:
    """A Markdown link (for prose: MkDocs validates and rewrites .md targets)."""
    return f"[{text}]({target})"


def html_link(text: str, href: str, css: str = "", lang: str = "") -> str:
    """An HTML link for table cells; `text` is escaped here (`css`: a class, `lang`: the text's
    language when it differs from the page's, e.g. a source title as published)."""
    attrs = (f' class="{html.escape(css, quote=True)}"' if css else "") + (
        f' lang="{html.escape(lang, quote=True)}"' if lang else "")
    return f'<a href="{html.escape(href, quote=True)}"{attrs}>{html.escape(text)}</a>'


def code(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"
