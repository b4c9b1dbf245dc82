"""What the macros need to know about the page being rendered."""

from __future__ import annotations

import posixpath
from typing import Any

from calc.display import LANGS


def lang(env: Any) -> str:
    """The page language, set on the file by mkdocs-static-i18n (`en` outside a page)."""
    page = getattr(env, "page", None)
    locale = getattr(getattr(page, "file", None), "locale", None) if page else None
    return str(locale) if locale in LANGS else "en"


def link_to(env: Any, target_src: str) -> str:
    """A relative link from the current page to `target_src` (e.g. reference/sources.md)."""
    src = _page_src(env)
    return posixpath.relpath(target_src, start=posixpath.dirname(src) or ".")


def _page_src(env: Any) -> str:
    page = getattr(env, "page", None)
    src = str(getattr(getattr(page, "file", None), "src_uri", "index.md")) if page else "index.md"
    first, _, rest = src.partition("/")
    return rest if first in LANGS and rest else src


def url_to(env: Any, target_dir_url: str) -> str:
    """A relative URL from the current page to a page URL such as reference/sources/."""
    src = _page_src(env).removesuffix(".md")
    page_dir = src.removesuffix("index").rstrip("/") if src.endswith("index") else src
    relative = posixpath.relpath(target_dir_url.rstrip("/") or ".", start=page_dir or ".")
    return "./" if relative == "." else relative + "/"
