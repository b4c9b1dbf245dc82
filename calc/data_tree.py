"""Which files make up the data tree that calc.data_check checks and calc.data reads: apart
from the checks so that a process whose tree is kept checked on disk (calc.data_cache) can list
the files without loading the checks."""

from collections.abc import Callable

# file -> array-of-tables keys it must hold
FILES: dict[str, tuple[str, ...]] = {
    "chips.toml": ("core", "chip"),
    "instances.toml": ("instance",),
    "prices.toml": ("price",),
    "models.toml": ("model",),
    "measurements.toml": ("measurement",),
    "assumptions.toml": ("assumption",),
    "glossary.toml": ("term",),
    "claims.toml": ("claim",),
}


def data_files(list_dir: Callable[[str], list[str]]) -> list[str]:
    """Relative paths of every data file: FILES, sources/*.toml, i18n/<lang>/*.toml."""
    paths = list(FILES)
    paths += [f"sources/{n}" for n in sorted(list_dir("sources")) if n.endswith(".toml")]
    for lang in sorted(list_dir("i18n")):
        paths += [f"i18n/{lang}/{n}" for n in sorted(list_dir(f"i18n/{lang}"))
                  if n.endswith(".toml")]
    return paths
