"""Per-language data texts: data/i18n/<lang>/data.toml holds every non-English text of the data
records (ARCHITECTURE.md §1), keyed by data file, table, record and English field:

    [chips.chip."inferentia2"]
    memory_bandwidth_missing = "..."          # the text of `memory_bandwidth_missing` in <lang>
    ["sources/hardware".source."aws-inf2"]
    title = "..."
    [prices.price."trn2.3xlarge ap-southeast-4 on-demand"]   # price: "instance region kind"
    [api_prices.api_price."llama-3.1-405b Amazon Bedrock on-demand us-east-1"]
                                            # api_price: "model provider offer region"
    [support_matrix.status."beta"]
    en = "..."              # `en`: the language's own field (glossary, status labels)

On load (calc.data_check.check_tree) each text goes back onto its record as the sibling the rest
of the code reads (`<field>_<lang>`, `<lang>` for `en`, `<base>_<lang>` for `<base>_en`), so
calc.display.data_text and every caller see one record in every language. A key that names no
data file, record or English field is a DataFault naming file, record and field.
"""

from collections.abc import Callable
from typing import Any

OVERLAY_FILE = "data.toml"
ENGLISH = "en"
# data files that are not checked record files but carry texts (optional)
EXTRA_FILES = ("support_matrix.toml", "api_prices.toml")

Record = dict[str, Any]


def overlay_path(lang: str) -> str:
    return f"i18n/{lang}/{OVERLAY_FILE}"


def overlay_lang(path: str) -> str | None:
    """The language of data/i18n/<lang>/data.toml, else None."""
    parts = path.split("/")
    if len(parts) == 3 and parts[0] == "i18n" and parts[2] == OVERLAY_FILE:
        return parts[1]
    return None


def record_id(table: str, rec: Record) -> str | None:
    if table in ("price", "api_price"):   # "instance region kind" / "model provider offer region"
        parts = ((rec.get("instance"), rec.get("region"), rec.get("kind")) if table == "price"
                 else (rec.get("model"), rec.get("provider"), rec.get("offer"),
                       rec.get("region")))
        return " ".join(str(p) for p in parts) if all(isinstance(p, str) for p in parts) else None
    found = rec.get("id")
    return found if isinstance(found, str) else None


def sibling_key(field: str, lang: str) -> str:
    """The record key the `lang` text of English field `field` is read under."""
    if field == ENGLISH:
        return lang
    if field.endswith(f"_{ENGLISH}"):
        return f"{field[: -len(ENGLISH) - 1]}_{lang}"
    return f"{field}_{lang}"


def english_field(rec: Record, key: str, lang: str) -> str | None:
    """The English field whose `lang` sibling `key` is, else None (inverse of sibling_key)."""
    if key == lang:
        return ENGLISH
    if not key.endswith(f"_{lang}"):
        return None
    base = key[: -len(lang) - 1]
    return base if base in rec else f"{base}_{ENGLISH}"


def _records(doc: dict[str, Any], table: str) -> dict[str, Record]:
    """id -> record of `table` in a document: an array of tables or a table of named tables."""
    value = doc.get(table)
    if isinstance(value, list):
        return {rid: rec for rec in value if isinstance(rec, dict)
                and (rid := record_id(table, rec)) is not None}
    if isinstance(value, dict):
        return {name: rec for name, rec in value.items() if isinstance(rec, dict)}
    return {}


def apply(docs: dict[str, dict[str, Any]], label: Callable[[str], str]) -> list[Any]:
    """Put every text of the docs' i18n/<lang>/data.toml onto its record (mutates docs);
    the DataFaults of keys that point at no data file, record or English field."""
    from .data_check import DataFault

    faults: list[DataFault] = []
    for path, overlay in sorted(docs.items()):
        lang = overlay_lang(path)
        if lang is None or lang == ENGLISH:
            continue
        where = label(path)
        for stem, tables in overlay.items():
            target = docs.get(f"{stem}.toml")
            if target is None or not isinstance(tables, dict):
                faults.append(DataFault(where, "-", str(stem), "names no data file"))
                continue
            for table, by_id in tables.items():
                known = _records(target, table)
                if not known or not isinstance(by_id, dict):
                    faults.append(DataFault(where, f"{stem}.{table}", "-", "names no table"))
                    continue
                for rid, fields in by_id.items():
                    rec = known.get(rid)
                    if rec is None or not isinstance(fields, dict):
                        faults.append(DataFault(where, f'{stem}.{table} "{rid}"', "-",
                                                f"names no record of data/{stem}.toml"))
                        continue
                    for field, value in fields.items():
                        if field not in rec:
                            faults.append(DataFault(where, f'{stem}.{table} "{rid}"', field,
                                                    "names no English field of the record"))
                            continue
                        rec[sibling_key(field, lang)] = value
    return faults
