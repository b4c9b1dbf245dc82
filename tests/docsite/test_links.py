"""Every internal link and anchor in the built HTML resolves (a stdlib link checker)."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from site_html import html_pages, parse

pytestmark = pytest.mark.site

SKIP_SCHEMES = {"mailto", "javascript", "data", "tel"}


def resolve(site_dir: Path, base_url: str, page: Path, href: str) -> tuple[Path, str] | None:
    """The file an internal href points at and its fragment; None for links to other hosts."""
    page_url = base_url + page.relative_to(site_dir).as_posix()
    url = urljoin(page_url, href)
    parts = urlsplit(url)
    base = urlsplit(base_url)
    if parts.scheme in SKIP_SCHEMES or parts.netloc != base.netloc:
        return None
    if not parts.path.startswith(base.path):
        return (site_dir / "__outside_site_url_path__", parts.fragment)
    target = site_dir / unquote(parts.path[len(base.path):])
    if parts.path.endswith("/") or target.is_dir():
        target = target / "index.html"
    return target, unquote(parts.fragment)


def broken_links(site_dir: Path, base_url: str) -> list[str]:
    broken = []
    for page in html_pages(site_dir):
        for tag, href in parse(page).hrefs:
            if urlsplit(href).scheme in SKIP_SCHEMES:
                continue
            resolved = resolve(site_dir, base_url, page, href)
            if resolved is None:
                continue
            target, fragment = resolved
            where = f"{page.relative_to(site_dir)}: <{tag} href={href!r}>"
            if not target.is_file():
                broken.append(f"{where} -> missing file")
            elif fragment and target.suffix == ".html" and fragment not in parse(target).ids:
                broken.append(f"{where} -> missing anchor #{fragment}")
    return broken


def test_internal_links_and_anchors_resolve(built_site):
    assert broken_links(built_site.site_dir, built_site.base_url) == []


def test_checker_finds_planted_errors(tmp_path):
    """The checker itself must fail on a missing page and on a missing anchor."""
    (tmp_path / "a").mkdir()
    (tmp_path / "index.html").write_text(
        '<a href="a/">ok</a><a href="a/#here">ok</a><a href="b/">bad</a><a href="a/#nope">bad</a>'
        '<a href="https://example.org/">external</a>', "utf-8")
    (tmp_path / "a" / "index.html").write_text('<h2 id="here">x</h2>', "utf-8")
    broken = broken_links(tmp_path, "http://127.0.0.1:1/nfg/")
    assert len(broken) == 2
    assert any("missing file" in b for b in broken) and any("#nope" in b for b in broken)
