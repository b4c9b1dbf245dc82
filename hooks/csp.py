"""MkDocs hook: a strict Content-Security-Policy on every page, written at build time.

on_post_page (every Markdown page) and on_post_template (404.html and other HTML templates) hash
every inline <script> the page holds that a browser executes (classic and module scripts; not
data blocks such as type="application/json") and insert, as the first element of <head>:

    <meta http-equiv="Content-Security-Policy" content="default-src 'self'; script-src 'self'
      'wasm-unsafe-eval' 'sha256-…' …; …; object-src 'none'; base-uri 'self'">

The hashes are computed from whatever HTML the theme, the overrides and the macros produced, so the
policy follows any change to Material or the calculator templates without a hand-kept list.

Why each source (see ARCHITECTURE.md "Content-Security-Policy"):
- script-src 'self' + hashes: Material's bundle and inline snippets, our boot/search-defer snippets,
  Chart.js and the calculator modules are files on this site; no 'unsafe-inline', no 'unsafe-eval'.
- 'wasm-unsafe-eval': WebAssembly compilation (Pyodide) in a context the page policy governs.
- worker-src 'self': the calculator's module worker, its code-cache priming worker and Material's
  search worker are site files.
- connect-src 'self': search index, sitemaps (language switch), Pyodide runtime, the calc wheel.
- img-src 'self' data:: Material's CSS icons are data: SVGs; diagrams are site files.
- style-src 'self' 'unsafe-inline': the widget CSS block and style attributes (styles only;
  scripts stay strict).
- A <meta> policy cannot carry frame-ancestors, report-uri or sandbox; those need HTTP headers,
  which GitHub Pages does not let a site set.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import Any

from mkdocs.plugins import event_priority

SCRIPT = re.compile(r"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)
TYPE_ATTR = re.compile(r"""\btype\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s>]+))""", re.I)
SRC_ATTR = re.compile(r"\bsrc\s*=", re.I)
HEAD_OPEN = re.compile(r"<head\b[^>]*>", re.I)
EXISTING = re.compile(r"<meta\s+http-equiv=\"Content-Security-Policy\"[^>]*>\s*", re.I)
JS_TYPES = {
    "", "module", "text/javascript", "application/javascript", "text/ecmascript",
    "application/ecmascript", "application/x-javascript", "text/jscript", "text/livescript",
    "text/x-javascript", "text/x-ecmascript", "text/javascript1.0", "text/javascript1.5",
}

BASE_DIRECTIVES: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("default-src", ("'self'",)),
    ("script-src", ("'self'", "'wasm-unsafe-eval'")),
    ("style-src", ("'self'", "'unsafe-inline'")),
    ("img-src", ("'self'", "data:")),
    ("font-src", ("'self'",)),
    ("connect-src", ("'self'",)),
    ("worker-src", ("'self'",)),
    ("manifest-src", ("'self'",)),
    ("media-src", ("'self'",)),
    ("frame-src", ("'none'",)),
    ("object-src", ("'none'",)),
    ("base-uri", ("'self'",)),
    ("form-action", ("'self'",)),
)


def is_executable(attrs: str) -> bool:
    """Whether a <script> with these attributes runs (its text is what script-src governs)."""
    if SRC_ATTR.search(attrs):
        return False
    found = TYPE_ATTR.search(attrs)
    if not found:
        return True
    value = next(group for group in found.groups() if group is not None)
    return value.strip().lower() in JS_TYPES


def inline_scripts(html: str) -> list[str]:
    """Text of every executable inline script, as the HTML parser hands it to the engine."""
    return [body for attrs, body in SCRIPT.findall(html) if is_executable(attrs)]


def script_hash(text: str) -> str:
    # the HTML parser normalises CR LF and lone CR to LF before the script sees its text
    normalised = text.replace("\r\n", "\n").replace("\r", "\n")
    digest = hashlib.sha256(normalised.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def policy(html: str) -> str:
    hashes = sorted(set(script_hash(text) for text in inline_scripts(html)))
    parts = []
    for name, sources in BASE_DIRECTIVES:
        values = list(sources) + (hashes if name == "script-src" else [])
        parts.append(f"{name} {' '.join(values)}")
    return "; ".join(parts)


def with_policy(html: str) -> str:
    """The page with its policy as the first element of <head> (replacing an earlier one)."""
    html = EXISTING.sub("", html)
    head = HEAD_OPEN.search(html)
    if head is None:
        return html
    meta = f'<meta http-equiv="Content-Security-Policy" content="{policy(html)}">'
    return html[: head.end()] + meta + html[head.end():]


@event_priority(-100)  # last: after every hook and plugin that edits the HTML
def on_post_page(output: str, page: Any, config: Any) -> str:
    return with_policy(output)


@event_priority(-100)
def on_post_template(output_content: str, template_name: str, config: Any) -> str:
    if template_name.endswith(".html") and "<head" in output_content:
        return with_policy(output_content)
    return output_content
