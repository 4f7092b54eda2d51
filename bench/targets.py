"""The performance targets (docs/performance.md, "Targets"): each benchmark prints what it
measured beside its target in one form, so `make bench` ends with every ratio and whether it met
its mark. Nothing here fails a run: a target missed is a finding, not an error.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True)
class Target:
    """One measured figure and its mark: `at_least` for ratios and rates, `at_most` for
    latencies and spreads."""

    name: str
    value: float
    mark: float
    kind: Literal["at_least", "at_most"]
    unit: str = "x"
    # What the figure is against (the baseline of the same run), for the reader.
    against: str = ""

    @property
    def met(self) -> bool:
        return self.value >= self.mark if self.kind == "at_least" else self.value <= self.mark

    def line(self) -> str:
        sign = ">=" if self.kind == "at_least" else "<="
        verdict = "met" if self.met else "MISSED"
        against = f" (against {self.against})" if self.against else ""
        return (
            f"target {self.name}: {_figure(self.value, self.unit)}{against}, "
            f"target {sign} {_figure(self.mark, self.unit)}: {verdict}"
        )


def _figure(value: float, unit: str) -> str:
    if unit == "x":
        return f"{value:.2f}x"
    if unit == "%":
        return f"{value:.1f}%"
    if abs(value) >= 1000:
        return f"{value:,.0f} {unit}"
    return f"{value:.2f} {unit}"


def report(targets: list[Target]) -> None:
    """Prints each target's line, after a heading a reader can find in the output."""
    print("\n== targets ==")
    for target in targets:
        print(target.line())
