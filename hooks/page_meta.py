"""MkDocs hook: every page needs a `description:` in its front matter; hreflang and canonical
links are page-relative.

A page without a description is logged as a warning, which fails the build under `strict: true`.
The alternates go to the template as `nfg_hreflang`, the canonical link as `nfg_canonical` (see
overrides/main.html). Both are relative to the page, so they never name the host (or sub-path)
of SITE_URL: served from another host, Material's language selector fetches
`<alternate>/sitemap.xml` from the host the page came from, not from SITE_URL's host (which
logged errors). The sitemap.xml files keep absolute <loc>s (the sitemap protocol requires them).
"""

from __future__ import annotations

import logging
from typing import Any
from urllib.parse import urljoin, urlsplit

from mkdocs.plugins import event_priority
from mkdocs.utils import get_relative_url

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


def site_path(site_url: str, url: str) -> str:
    """An absolute URL under site_url as a path from the site root ("ja/", "" for the root)."""
    base = urlsplit(site_url).path.rstrip("/") + "/"
    path = urlsplit(url).path
    return path[len(base):] if path.startswith(base) else path.lstrip("/")


def page_relative(target: str, page_url: str) -> str:
    """The site-root directory `target` ("ja/", "") as a link from the page at `page_url`."""
    relative = get_relative_url(target or ".", page_url or ".")
    return relative if relative.endswith("/") else relative + "/"


def relative_language_roots(config: Any, page_url: str) -> list[dict[str, str]]:
    site_url = config.site_url or "http://127.0.0.1:8000/"
    return [{"lang": link["lang"],
             "href": page_relative(site_path(site_url, link["href"]), page_url)}
            for link in language_roots(config)]


# The <link rel="alternate" hreflang> tags point at the language homes, not at the same page in
# the other language: Material fetches `<alternate href>/sitemap.xml` for each of them (to keep the
# reader on the same page when switching), so page-level alternates would 404 on every page.
# The header's language switcher is still contextual (mkdocs-static-i18n rewrites its links).
@event_priority(-100)
def on_page_context(context: dict[str, Any], page: Any, config: Any, nav: Any) -> dict[str, Any]:
    page_url = str(getattr(page, "url", "") or "")
    context["nfg_hreflang"] = relative_language_roots(config, page_url)
    context["nfg_canonical"] = page_relative(page_url, page_url) if page_url != "404.html" else None
    return context
