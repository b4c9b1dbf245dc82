"""What the macros need to know about the page being rendered."""

from __future__ import annotations

import posixpath
from typing import Any

from .formatting import LANGS


def lang(env: Any) -> str:
    """The page language, set on the file by mkdocs-static-i18n (`en` outside a page)."""
    page = getattr(env, "page", None)
    locale = getattr(getattr(page, "file", None), "locale", None) if page else None
    return str(locale) if locale in LANGS else "en"


def link_to(env: Any, target_src: str) -> str:
    """A relative link from the current page to `target_src` (e.g. reference/sources.md)."""
    page = getattr(env, "page", None)
    src = str(getattr(getattr(page, "file", None), "src_uri", "index.md")) if page else "index.md"
    first, _, rest = src.partition("/")
    if first in LANGS and rest:
        src = rest
    return posixpath.relpath(target_src, start=posixpath.dirname(src) or ".")
