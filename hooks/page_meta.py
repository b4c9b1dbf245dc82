"""MkDocs hook: every page needs a `description:` in its front matter; hreflang links are absolute.

A page without a description is logged as a warning, which fails the build under `strict: true`.
The absolute alternates go to the template as `nfg_hreflang` (see overrides/main.html).
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urljoin, urlsplit

from mkdocs.plugins import event_priority

log = logging.getLogger("mkdocs.hooks.page_meta")


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    description = str(page.meta.get("description") or "").strip()
    if not description:
        log.warning("page %s has no 'description:' in its front matter", page.file.src_uri)
    return markdown


# An alternate link (site-relative `ja/guide/` or root-absolute `/nfg/ja/`) as an absolute URL
def absolute(site_url: str, link: str) -> str:
    if urlsplit(link).scheme:
        return link
    if link.startswith("/"):
        return urljoin(site_url, link)
    return urljoin(site_url, "" if link in (".", "./") else link)


def language_roots(config: Any) -> list[dict[str, str]]:
    """Absolute URL of each language's home, from mkdocs-static-i18n's language switcher config."""
    site_url = config.site_url or "http://127.0.0.1:8000/"
    i18n = config.plugins.get("i18n")
    alternates = getattr(i18n, "extra_alternate", None) or config.extra.get("alternate") or []
    links = [{"lang": alt["lang"], "href": absolute(site_url, alt["link"])} for alt in alternates]
    default = next((link for link in links if link["lang"] == "en"), None)
    if default:
        links.append({"lang": "x-default", "href": default["href"]})
    return links


# The <link rel="alternate" hreflang> tags point at the language homes, not at the same page in
# the other language: Material fetches `<alternate href>/sitemap.xml` for each of them (to keep the
# reader on the same page when switching), so page-level alternates would 404 on every page.
# The header's language switcher is still contextual (mkdocs-static-i18n rewrites its links).
@event_priority(-100)
def on_page_context(context: dict[str, Any], page: Any, config: Any, nav: Any) -> dict[str, Any]:
    context["nfg_hreflang"] = language_roots(config)
    return context
