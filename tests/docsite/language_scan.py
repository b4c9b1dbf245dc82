"""Find English sentences (runs of >= 3 ASCII words with an English function word) and spaces between Japanese characters in the visible text of built
ja/es pages (issue 13 item 3).

Visible text = text nodes and tooltip attributes (title, alt, aria-label, placeholder) outside
<script>/<style>/<template>/<noscript>, outside code (<code>, <pre>, <kbd>, <samp>), quotes
(<q>, <blockquote>), source titles (`class="nfg-source-title"`) and proper names marked
`<span lang="en" class="nfg-name">`. Everything else (including text marked lang="en" without
being a name) counts: a data text shown in English on a ja/es page is a leftover.

Run as a script to count: `python tests/docsite/language_scan.py <site_dir>`.
"""

from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

HIDDEN = {"script", "style", "template", "noscript"}
EXCLUDED = {"code", "pre", "kbd", "samp", "q", "blockquote"}
EXCLUDED_CLASSES = {"nfg-source-title", "nfg-name"}
SHOWN_ATTRS = {"title", "alt", "aria-label", "placeholder"}
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}

# Words that only English sentences use (none is a Spanish word, none is part of a product
# name such as "NeuronLink-v2" or "Inferentia2")
FUNCTION_WORDS = frozenset("""
the is are was were be been being of and not for with per on to in by from at or this that these
those it its than which when where while only into onto between across within without about can
cannot must should would could will does do has have had there their they we you our your each
every any all some more most less than then also but if so such because after before over under
""".split())
# A run of words made of ASCII letters (digits and -./+_ inside): "NeuronLink-v2", "trn2.48xlarge"
# (not glued to a non-ASCII letter: "allí" holds no English "all")
WORD = r"(?<![^\W\d_])[A-Za-z][A-Za-z0-9'’\-./+_]*(?![^\W\d_])"
# Product names that hold an English function word (removed before the check)
NAMES = ("FSx for Lustre", "Capacity Blocks for ML", "Mixture of Experts")
RUN = re.compile(rf"{WORD}(?:[ ,;:()]+{WORD}){{2,}}")
MIN_FUNCTION_WORDS = 1

CJK = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uff66-\uff9f]"
CJK_SPACE_CJK = re.compile(rf"{CJK}[ \t\u00a0\u3000]+{CJK}")


class _Visible(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[bool] = []   # per open element: is text inside it excluded?
        self.texts: list[str] = []

    def _excluded(self) -> bool:
        return bool(self.stack) and self.stack[-1]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: (v or "") for k, v in attrs}
        excluded = (self._excluded() or tag in HIDDEN or tag in EXCLUDED
                    or bool(EXCLUDED_CLASSES & set(a.get("class", "").split())))
        if not excluded and not (self.stack and self.stack[-1]):
            self.texts += [a[name] for name in SHOWN_ATTRS if a.get(name)]
        if tag not in VOID:
            self.stack.append(excluded)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in VOID:
            self.stack.pop()

    def handle_endtag(self, tag: str) -> None:
        if tag not in VOID and self.stack:
            self.stack.pop()

    def handle_data(self, data: str) -> None:
        if not self._excluded():
            self.texts.append(data)


def visible_texts(html_text: str) -> list[str]:
    parser = _Visible()
    parser.feed(html_text)
    return [t for t in parser.texts if t.strip()]


def english_runs(text: str) -> list[str]:
    """Runs of >= 3 ASCII words holding an English function word in lower case (a Title Case run
    such as "Time To First Token" is the expansion of an abbreviation, a name)."""
    found = []
    text = " ".join(text.split())
    for name in NAMES:
        text = text.replace(name, "")
    for match in RUN.finditer(text):
        words = re.findall(WORD, match.group(0))
        if sum(w in FUNCTION_WORDS for w in words) >= MIN_FUNCTION_WORDS:
            found.append(match.group(0))
    return found


def cjk_spaces(text: str) -> list[str]:
    return [text[max(0, m.start() - 8):m.end() + 8] for m in CJK_SPACE_CJK.finditer(text)]


def pages(site_dir: Path, lang: str) -> list[Path]:
    return sorted(p for p in (site_dir / lang).rglob("*.html") if p.name != "404.html")


def scan(site_dir: Path, lang: str) -> tuple[list[str], list[str]]:
    """(English runs, CJK-space snippets) on every page of one language, each 'page: text'."""
    english, spaces = [], []
    for path in pages(site_dir, lang):
        rel = path.relative_to(site_dir)
        for text in visible_texts(path.read_text("utf-8")):
            english += [f"{rel}: {run}" for run in english_runs(text)]
            if lang == "ja":
                spaces += [f"{rel}: {snip!r}" for snip in cjk_spaces(text)]
    return english, spaces


if __name__ == "__main__":
    site = Path(sys.argv[1])
    for language in ("ja", "es"):
        eng, sp = scan(site, language)
        verbose = "-v" in sys.argv
        if verbose:
            print("\n".join(eng + sp))
        unique = len({e.split(": ", 1)[1] for e in eng})
        print(f"{language}: english runs {len(eng)} (unique {unique}), cjk spaces {len(sp)}")
