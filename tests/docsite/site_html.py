"""Stdlib HTML parsing of the built site for the site tests (no third-party parser)."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

from calc import display

LANGS = display.LANGS  # the one language list (mkdocs.yml)

# attributes that make the browser load something
LOAD_ATTRS = {"src", "srcset", "data", "poster", "background"}
LINK_REL_LOADS = {"stylesheet", "icon", "preload", "modulepreload", "prefetch", "manifest",
                  "apple-touch-icon", "preconnect", "dns-prefetch", "shortcut"}


VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


@dataclass
class Page:
    path: Path
    ids: set[str] = field(default_factory=set)
    heading_ids: list[str] = field(default_factory=list)   # h1..h6 inside the article
    tables: int = 0                                         # inside the article
    code_blocks: int = 0                                    # <pre> inside the article
    content_links: list[str] = field(default_factory=list)  # <a href> inside the article
    hrefs: list[tuple[str, str]] = field(default_factory=list)  # (tag, url) for every a/link href
    loads: list[tuple[str, str, str]] = field(default_factory=list)  # (tag, attr, url)
    alternates: list[tuple[str, str]] = field(default_factory=list)  # (hreflang, href)
    meta_description: str | None = None
    html_lang: str = ""
    text: str = ""
    cells: list[dict[str, str]] = field(default_factory=list)  # data-field spans (+ row index)


class _Parser(HTMLParser):
    def __init__(self, page: Page) -> None:
        super().__init__(convert_charrefs=True)
        self.page = page
        self.article_depth = 0
        self.depth = 0
        self.row = 0
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: (v or "") for k, v in attrs}
        page = self.page
        self.depth += 1
        if "id" in a:
            page.ids.add(a["id"])
        if "name" in a and tag == "a":
            page.ids.add(a["name"])
        if tag == "html":
            page.html_lang = a.get("lang", "")
        if tag == "article" and "md-content__inner" in a.get("class", ""):
            self.article_depth = self.depth
        inside = self.article_depth and self.depth > self.article_depth
        if inside:
            if tag in {"h1", "h2", "h3", "h4", "h5", "h6"}:
                page.heading_ids.append(a.get("id", ""))
            elif tag == "table":
                page.tables += 1
            elif tag == "pre":
                page.code_blocks += 1
            elif tag == "a" and "href" in a and "headerlink" not in a.get("class", ""):
                page.content_links.append(a["href"])
            elif tag == "tr":
                self.row += 1
        if tag in {"a", "link", "area"} and "href" in a:
            page.hrefs.append((tag, a["href"]))
        if tag == "link":
            rels = set(a.get("rel", "").lower().split())
            if rels & LINK_REL_LOADS:
                page.loads.append((tag, "href", a.get("href", "")))
            if "alternate" in rels and "hreflang" in a:
                page.alternates.append((a["hreflang"], a.get("href", "")))
        for attr in LOAD_ATTRS & set(a):
            if attr == "data" and tag != "object":
                continue
            for url in a[attr].split(","):
                if url.strip():
                    page.loads.append((tag, attr, url.strip().split()[0]))
        if tag == "meta" and a.get("name") == "description":
            page.meta_description = a.get("content", "")
        if "data-field" in a and "data-value" in a:
            page.cells.append({"field": a["data-field"], "value": a["data-value"],
                               "row": str(self.row), "tag": tag})
        if tag in VOID:  # no end tag follows
            self.depth -= 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "article" and self.depth == self.article_depth:
            self.article_depth = 0
        self.depth -= 1

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.depth -= 1

    def handle_data(self, data: str) -> None:
        self.texts.append(data)


@cache
def parse(path: Path) -> Page:
    page = Page(path=path)
    parser = _Parser(page)
    parser.feed(path.read_text("utf-8"))
    page.text = "".join(parser.texts)
    return page


def html_pages(site_dir: Path) -> list[Path]:
    """Every HTML page of the site except the runtime assets."""
    return sorted(p for p in site_dir.rglob("*.html")
                  if "assets" not in p.relative_to(site_dir).parts)


def lang_of(site_dir: Path, page: Path) -> str:
    first = page.relative_to(site_dir).parts[0]
    return first if first in ("ja", "es") else "en"


def en_pages(site_dir: Path) -> list[Path]:
    return [p for p in html_pages(site_dir)
            if lang_of(site_dir, p) == "en" and p.name == "index.html"]


def translation(site_dir: Path, en_page: Path, lang: str) -> Path:
    return site_dir / lang / en_page.relative_to(site_dir)


def table_rows(path: Path, section_id: str | None = None) -> list[list[str]]:
    """Text of every row of the tables in a page (or in the section starting at `section_id`)."""
    html = path.read_text("utf-8")
    if section_id is not None:
        start = html.index(f'id="{section_id}"')
        nxt = html.find("<h2", start + 1)
        html = html[start: nxt if nxt != -1 else len(html)]

    class Rows(HTMLParser):
        def __init__(self) -> None:
            super().__init__(convert_charrefs=True)
            self.rows: list[list[str]] = []
            self.cell: list[str] | None = None

        def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
            if tag == "tr":
                self.rows.append([])
            elif tag in ("td", "th"):
                self.cell = []

        def handle_endtag(self, tag: str) -> None:
            if tag in ("td", "th") and self.cell is not None and self.rows:
                self.rows[-1].append(" ".join("".join(self.cell).split()))
                self.cell = None

        def handle_data(self, data: str) -> None:
            if self.cell is not None:
                self.cell.append(data)

    parser = Rows()
    parser.feed(html)
    return parser.rows
