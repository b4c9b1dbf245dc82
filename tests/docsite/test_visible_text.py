"""No message key is visible on any page in any language (text and tooltip attributes outside
<script>/<style>/<template>): "not published" and its reasons are always labels, never keys."""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from site_html import html_pages

import calc.data

pytestmark = pytest.mark.site

HIDDEN = {"script", "style", "template", "noscript"}
SHOWN_ATTRS = {"title", "alt", "aria-label", "placeholder"}


def message_keys() -> set[str]:
    """Keys of the site and calc label tables that hold 'not published' and its reasons."""
    keys = set(calc.data.i18n("en", "site")["text"]) | set(calc.data.i18n("en", "steps")["reason"])
    return {k for k in keys if "_" in k}


RAW_KEY = re.compile(r"\b(?:" + "|".join(sorted(map(re.escape, message_keys()))) +
                     r"|\w+_missing(?:_reason|_note)?)\b")


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.hidden: list[str] = []
        self.texts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in HIDDEN:
            self.hidden.append(tag)
        self.texts += [value for name, value in attrs if name in SHOWN_ATTRS and value]

    def handle_endtag(self, tag: str) -> None:
        if self.hidden and self.hidden[-1] == tag:
            self.hidden.pop()

    def handle_data(self, data: str) -> None:
        if not self.hidden:
            self.texts.append(data)


def visible_text(path: Path) -> str:
    parser = _Visible()
    parser.feed(path.read_text("utf-8"))
    return "\n".join(parser.texts)


def test_the_check_sees_a_raw_key():
    assert RAW_KEY.search("not published (not_published)")
    assert RAW_KEY.search("(peak_flops_missing)")
    assert not RAW_KEY.search("not published (no on-demand price)")


def test_no_raw_message_key_is_visible(built_site):
    found = []
    for path in html_pages(built_site.site_dir):
        for match in RAW_KEY.finditer(visible_text(path)):
            found.append(f"{path.relative_to(built_site.site_dir)}: {match.group(0)}")
    assert found == []


# calc's booleans and keys rendered inside guide pages go through the locale filters (yesno,
# fitverdict, padded, bound, kv_rule); the English words must not leak into ja/es pages.
ENGLISH_VERDICTS = ("does not fit", "padded heads", "memory-bandwidth-bound", "compute-bound",
                    "KV heads replicated up to the TP degree", "MHA fallback")


@pytest.mark.parametrize("lang", ["ja", "es"])
def test_calc_words_are_in_the_page_language(built_site, lang):
    found = []
    for page in ("guide/memory", "guide/pricing"):
        text = visible_text(built_site.site_dir / lang / page / "index.html")
        found += [f"{lang}/{page}: {w}" for w in ENGLISH_VERDICTS if w in text]
    assert found == []


def test_calc_words_in_english_pages(built_site):
    text = visible_text(built_site.site_dir / "guide" / "memory" / "index.html")
    assert "fits" in text and "padded heads" in text
