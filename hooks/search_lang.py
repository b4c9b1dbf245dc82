"""MkDocs hook: one search index per language (issue 14).

mkdocs-static-i18n stacks every language's pages into the one site-wide
`search/search_index.json`, searched with one configuration: a Japanese reader gets English
pages first, and "テンソル並列" finds nothing (Material's worker re-segments only the Han part of a
query term, so the Katakana + Han compound stays one term that no index token equals).

After the i18n plugin has written that index (its on_post_build runs at priority -100), this hook
splits it by language folder:
- `search/search_index.json`: the default language's pages only;
- `<lang>/search/search_index.json`: that language's pages only, each with its own `lang` and
  `separator` (SEARCH below); locations stay relative to the site root (Material resolves them
  against the page's `base`, the site root).
overrides/partials/search-defer.html sends Material's index request of a page in another language
to its language's file (by `<html lang>`). Japanese: TinySegmenter (Material loads it for `ja`)
segments the text, and the separator also splits at Katakana/Han boundaries, in pages and queries
alike, so compounds such as テンソル並列 and 量子化 are found.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mkdocs.plugins import event_priority

INDEX = Path("search") / "search_index.json"
KATAKANA = "\\u30a0-\\u30ff"
HAN = "\\u3400-\\u4dbf\\u4e00-\\u9fff"
SEPARATOR_JA = (
    "[\\s\\-\u3000\u3001\u3002\uff0c\uff0e]+"      # Material's Japanese separator
    f"|(?<=[{KATAKANA}])(?=[{HAN}])|(?<=[{HAN}])(?=[{KATAKANA}])"  # script boundaries
)
# per language: lunr languages (stemmers, segmenter) and the token separator
SEARCH: dict[str, dict[str, Any]] = {
    "en": {"lang": ["en"], "separator": "[\\s\\-]+"},
    "ja": {"lang": ["ja", "en"], "separator": SEPARATOR_JA},
    "es": {"lang": ["es", "en"], "separator": "[\\s\\-]+"},
}


def doc_lang(location: str, others: set[str], default: str) -> str:
    head = location.split("/", 1)[0]
    return head if head in others else default


def split_index(index: dict[str, Any], default: str, others: set[str]
                ) -> dict[str, dict[str, Any]]:
    """{lang: index with only that language's docs and its own search config}."""
    by_lang: dict[str, list[dict[str, Any]]] = {lang: [] for lang in (default, *sorted(others))}
    for doc in index.get("docs", []):
        by_lang[doc_lang(str(doc.get("location", "")), others, default)].append(doc)
    out = {}
    for lang, docs in by_lang.items():
        config = {**index.get("config", {}), **SEARCH.get(lang, {"lang": [lang]})}
        out[lang] = {"config": config, "docs": docs}
    return out


@event_priority(-110)  # after mkdocs-static-i18n wrote the stacked index
def on_post_build(config: Any) -> None:
    site_dir = Path(config.site_dir)
    i18n = config.plugins.get("i18n")
    path = site_dir / INDEX
    if i18n is None or not path.exists():
        return
    default = next(lang.locale for lang in i18n.config.languages if lang.default)
    others = {lang.locale for lang in i18n.config.languages if not lang.default}
    if not all((site_dir / lang).is_dir() for lang in others):
        return  # a per-language inner build: the outer build splits the stacked index
    index = json.loads(path.read_text(encoding="utf-8"))
    for lang, part in split_index(index, default, others).items():
        target = path if lang == default else site_dir / lang / INDEX
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(json.dumps(part, ensure_ascii=False, separators=(",", ":")),
                          encoding="utf-8")
