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


# after mkdocs-static-i18n (priority 50) has made config.extra.alternate contextual
@event_priority(-100)
def on_page_context(context: dict[str, Any], page: Any, config: Any, nav: Any) -> dict[str, Any]:
    site_url = config.site_url or "http://127.0.0.1:8000/"
    # mkdocs-static-i18n sets the attribute (config.extra.alternate), as Jinja reads it
    alternates = getattr(config.extra, "alternate", None) or config.extra.get("alternate") or []
    links = [{"lang": alt["lang"], "href": absolute(site_url, alt["link"])} for alt in alternates]
    default = next((link for link in links if link["lang"] == "en"), None)
    if default:
        links.append({"lang": "x-default", "href": default["href"]})
    context["nfg_hreflang"] = links
    return context
