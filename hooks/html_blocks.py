"""MkDocs hook: put the HTML tables made by the macros back into the page after Markdown.

The table macros (site_macros/tables.py) leave `<!-- nfg-block:<key> -->` in the Markdown and keep
the HTML on `page.nfg_blocks`, so Markdown never parses thousands of table cells. This hook swaps
each marker for its HTML, and adds the ids inside (e.g. source anchors) to the page's anchors so
MkDocs' link validation sees them.
"""

from __future__ import annotations

import re
from typing import Any

MARKER = re.compile(r"<!-- nfg-block:([0-9a-f]{16}) -->")
ID = re.compile(r"""\sid="([^"]+)\"""")


class MissingBlockError(RuntimeError):
    """A marker without its HTML: the page would show an empty table."""


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    blocks: dict[str, str] = getattr(page, "nfg_blocks", None) or {}
    if not blocks and "nfg-block:" not in html:
        return html

    def swap(match: re.Match[str]) -> str:
        try:
            return blocks[match.group(1)]
        except KeyError:
            raise MissingBlockError(f"{page.file.src_uri}: no HTML for {match.group(0)}") from None

    html = MARKER.sub(swap, html)
    anchors = getattr(page, "present_anchor_ids", None)
    if anchors is not None:
        for block in blocks.values():
            anchors.update(ID.findall(block))
    page.nfg_blocks = {}
    return html
