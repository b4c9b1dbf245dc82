"""MkDocs hook: a 404 page per language, the default language's at the root.

mkdocs-static-i18n renders the theme's 404.html once per language, each time to the site root, so
the root page was the last language built (Spanish, with Spanish navigation) for every reader.
Each build's rendered 404 is kept here (after csp.py's policy, priority -100); the outer build then
writes the default language's to /404.html (the one GitHub Pages serves for every missing path)
and each other language's to /<lang>/404.html. Before the service worker lists the files
(runtime_assets, -200).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

TEMPLATE = "404.html"
_rendered: dict[str, str] = {}


def _language(config: Any) -> str | None:
    i18n = config.plugins.get("i18n")
    return None if i18n is None else str(i18n.current_language)


@event_priority(-150)  # after csp.py (-100) has put its policy into the page
def on_post_template(output_content: str, template_name: str, config: Any) -> str:
    language = _language(config)
    if template_name == TEMPLATE and language is not None:
        _rendered[language] = output_content
    return output_content


@event_priority(-150)  # after mkdocs-static-i18n (-100) built every language
def on_post_build(config: Any) -> None:
    i18n = config.plugins.get("i18n")
    if i18n is None or getattr(i18n, "building", False):
        return   # an inner per-language build: the outer one writes every page
    site_dir = Path(config.site_dir)
    for language in i18n.config.languages:
        page = _rendered.get(language.locale)
        if page is None:
            continue
        target = site_dir / TEMPLATE if language.default else (
            site_dir / language.locale / TEMPLATE)
        if target.parent.is_dir():
            target.write_text(page, "utf-8")
    _rendered.clear()
