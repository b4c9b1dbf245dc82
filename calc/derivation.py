"""Show-the-math steps: (key, formula, value, unit); key doubles as the i18n key step.<key>."""

from dataclasses import dataclass
from typing import Any

StepValue = int | float | str | bool | None


@dataclass(frozen=True, slots=True)
class Step:
    """One step of the math: ``value`` in ``unit``, computed as ``formula``."""

    key: str
    formula: str
    value: StepValue
    unit: str

    def as_dict(self) -> dict[str, Any]:
        return {"key": self.key, "formula": self.formula, "value": self.value, "unit": self.unit}


class Derivation:
    """Collects steps in order; ``add`` returns the value so formulas read top to bottom.
    ``Derivation(record=False)`` keeps nothing: for a search that evaluates many configurations
    and shows none of their math (the values are the same either way)."""

    __slots__ = ("record", "steps")

    def __init__(self, record: bool = True) -> None:
        self.record = record
        self.steps: list[Step] = []

    def add[V: StepValue](self, key: str, formula: str, value: V, unit: str = "") -> V:
        if self.record:
            self.steps.append(Step(key, formula, value, unit))
        return value

    def as_list(self) -> list[dict[str, Any]]:
        return [step.as_dict() for step in self.steps]
