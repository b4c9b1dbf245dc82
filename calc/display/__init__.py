"""The presentation layer: every number of a calculator becomes text here, in every language.

Used by the mkdocs macros at build time and by the browser worker at run time (same wheel):
- `present(request, lang)` / `present_json` (calc.display.presenter): results ready to display;
- `numbers`: CLDR number, percent and USD formatting (data in `cldr`, generated from Babel);
- `units`: the one units table (spellings in data/i18n/<lang>/site.toml [unit]);
- `parse.parse_number`: typed numbers from text in the page language;
- `calculators`: the calculator pages' fields, derived from calc.inputs.PARAMS.
"""

from .numbers import LANGS
from .parse import parse_number
from .presenter import present, present_json

__all__ = ["LANGS", "parse_number", "present", "present_json"]
