"""MkDocs hook: the heading anchors' tooltip ("Permanent link") in the page language.

Markdown's toc extension writes `<a class="headerlink" ... title="Permanent link">` on every
heading (mkdocs.yml `toc.permalink_title`), the same text for every language. This hook swaps that
title for the page language's `[text] permalink` of data/i18n/<lang>/site.toml, in the page's
content (the article; the theme, the search index and the TOC do not carry the title). The page
language is the one mkdocs-static-i18n set on the page's file (`page.file.locale`).
"""

from __future__ import annotations

import html
import re
from functools import cache
from typing import Any

import calc.data
from calc.display import LANGS  # the one language list (mkdocs.yml → calc/display/cldr.py)

DEFAULT_TITLE = "Permanent link"  # Python-Markdown's toc default for permalink_title


def page_language(page: Any, config: Any) -> str:
    locale = getattr(getattr(page, "file", None), "locale", None)
    if locale is None:
        i18n = config.plugins.get("i18n") if config is not None else None
        locale = getattr(i18n, "current_language", None)
    return str(locale) if locale in LANGS else "en"


def source_title(config: Any) -> str:
    """The title toc writes (mkdocs.yml `toc.permalink_title`, else toc's default)."""
    toc = (getattr(config, "mdx_configs", None) or {}).get("toc") or {}
    title = toc.get("permalink_title")
    return str(title) if title else DEFAULT_TITLE


def translated_title(lang: str) -> str:
    return str(calc.data.i18n(lang, "site")["text"]["permalink"])


def attribute(text: str) -> str:
    """`text` escaped as Markdown's serializer escapes an attribute value (& < > ")."""
    return html.escape(text, quote=False).replace('"', "&quot;")


@cache
def _pattern(source: str) -> re.Pattern[str]:
    return re.compile(r'(<a\s[^>]*?\bclass="headerlink"[^>]*?\stitle=")'
                      + re.escape(attribute(source)) + r'"')


def translate(content: str, source: str, title: str) -> str:
    """`content` with every heading anchor's title `source` replaced by `title`."""
    if source == title:
        return content
    replacement = attribute(title)
    return _pattern(source).sub(lambda m: f'{m.group(1)}{replacement}"', content)


def on_page_content(html_text: str, page: Any, config: Any, files: Any) -> str:
    return translate(html_text, source_title(config), translated_title(page_language(page, config)))
