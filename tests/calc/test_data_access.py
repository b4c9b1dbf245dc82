"""calc.data: record sets, i18n, the single-record fast path and specs built from the data."""

import datetime

import pytest

from calc import data
from calc.errors import CalcError
from calc.units import BYTES_PER_GIB


@pytest.mark.parametrize("name", data.RECORD_NAMES)
def test_record_sets_are_lists_of_dicts(name: str) -> None:
    found = data.records(name)
    assert isinstance(found, list)
    assert all(isinstance(item, dict) for item in found)


def test_dates_are_dates_and_sources_are_merged() -> None:
    sources = data.records("sources")
    assert len(sources) >= 10
    assert any(isinstance(s.get("as_of"), datetime.date) for s in sources)


@pytest.mark.parametrize(("name", "table"), [("models", "model"), ("instances", "instance"),
                                             ("chips", "chip"), ("cores", "core")])
def test_single_record_parse_equals_full_parse(name: str, table: str) -> None:
    for full in data.records(name):
        assert data._single(name, str(full["id"])) == full, (table, full["id"])


def test_specs_from_data() -> None:
    inf2 = data.instance("inf2.48xlarge")
    assert inf2.logical_cores == 24
    assert inf2.chip.usable_memory_per_core_bytes == 16 * BYTES_PER_GIB
    trn2 = data.instance("trn2.48xlarge")
    assert trn2.logical_cores == 64 and trn2.chip.lnc == 2
    assert trn2.chip.peak_flops_per_core["bf16"] == 2 * 79e12
    assert data.instance("p5.48xlarge").logical_cores == 8
    with pytest.raises(CalcError):
        data.instance("nope")
    with pytest.raises(CalcError):
        data.model("nope")


def test_i18n_files_load() -> None:
    assert "step" in data.i18n("ja", "steps")
    assert "error" in data.i18n("es", "errors.toml")
