"""MkDocs hook: put the HTML tables made by the macros back into the page after Markdown.

The table macros (site_macros/tables.py) leave `<!-- nfg-block:<key> -->` in the Markdown and keep
the HTML on `page.nfg_blocks`, so Markdown never parses thousands of table cells. In two steps:

1. `on_page_content` swaps each marker for the table's text (one paragraph, no tags) between
   `<!--nfg-text:<key>-->` comments, and adds the ids inside the table (e.g. source anchors) to the
   page's anchors so MkDocs' link validation sees them.
2. `on_page_context` (hooks run after the plugins, so after the search plugin has indexed the
   page) swaps each text for the table's HTML.

The search index gets every word of the tables, but its HTML parser does not walk thousands of
table tags (that parse cost about as much as the rest of the search indexing).
"""

from __future__ import annotations

import re
from typing import Any

MARKER = re.compile(r"<!-- nfg-block:([0-9a-f]{16}) -->")
TEXT = re.compile(r"<!--nfg-text:([0-9a-f]{16})-->.*?<!--/nfg-text-->", re.DOTALL)
ID = re.compile(r"""\sid="([^"]+)\"""")
TAG = re.compile(r"<[^>]*>")
ROW_END = re.compile(r"</tr>|</th>|</td>")


class MissingBlockError(RuntimeError):
    """A marker without its HTML: the page would show an empty table."""


def text_of(block_html: str) -> str:
    """The words of an HTML block as one paragraph (entities kept: the text is still HTML)."""
    spaced = ROW_END.sub(" ", block_html)
    return "<p>" + " ".join(TAG.sub(" ", spaced).split()) + "</p>"


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    blocks: dict[str, str] = getattr(page, "nfg_blocks", None) or {}
    if not blocks and "nfg-block:" not in html:
        return html

    def swap(match: re.Match[str]) -> str:
        key = match.group(1)
        if key not in blocks:
            raise MissingBlockError(f"{page.file.src_uri}: no HTML for {match.group(0)}")
        return f"<!--nfg-text:{key}-->{text_of(blocks[key])}<!--/nfg-text-->"

    html = MARKER.sub(swap, html)
    anchors = getattr(page, "present_anchor_ids", None)
    if anchors is not None:
        for block in blocks.values():
            anchors.update(ID.findall(block))
    return html


def on_page_context(context: dict[str, Any], page: Any, config: Any, nav: Any) -> dict[str, Any]:
    blocks: dict[str, str] = getattr(page, "nfg_blocks", None) or {}
    if blocks and page.content:
        page.content = TEXT.sub(lambda match: blocks[match.group(1)], page.content)
        page.nfg_blocks = {}
    return context
