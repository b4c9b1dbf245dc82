"""The words of a derivation formula in the page language (issue 14: formulas fully localised).

calc writes each step's formula in English with symbols (`weights/t + KV per core + ...`). The
presenter replaces its English phrases with the language's text from data/i18n/<lang>/
formulas.toml `[phrase]` (same keys in every language): longest phrase first, whole words only,
so symbols (t, b, s, L, h), identifiers (head_dim, kv_heads) and functions (ceil, max) stay.
"""

import re
from functools import cache, lru_cache

from .. import data
from . import strings

_WORD = "A-Za-z0-9_-"   # a hyphen joins an id (capacity-block): no phrase inside it


@cache
def _pattern(lang: str) -> tuple[re.Pattern[str] | None, dict[str, str]]:
    phrases = strings.table(lang, "formulas", "phrase")
    if not phrases:
        return None, phrases
    ordered = sorted(phrases, key=len, reverse=True)
    body = "|".join(re.escape(p) for p in ordered)
    return re.compile(f"(?<![{_WORD}])(?:{body})(?![{_WORD}])"), phrases


@lru_cache(maxsize=2048)  # a calculator shows the same steps at every input change
def localise(formula: str, lang: str) -> str:
    """`formula` with its English phrases in `lang` (unknown words stay as they are)."""
    pattern, phrases = _pattern(strings.lang_or_default(lang))
    if pattern is None or not formula:
        return formula
    return pattern.sub(lambda m: phrases[m.group(0)], formula)


def _forget() -> None:
    _pattern.cache_clear()
    localise.cache_clear()


data.on_reset(_forget)  # the phrases are data
