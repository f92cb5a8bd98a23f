"""What a paper's reproduction returns (SPEC section 9): findings, tables with what each column
means, figure data, and the paper's coverage (each of its tables and figures, reproduced or
not and why). `app.reproduction.writer` writes them; nothing here knows a paper."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from models.findings import Finding


@dataclass
class Table:
    """Rows of one reproduced table; `meanings` says what each column holds, with its unit."""

    name: str
    title: str
    columns: list[str]
    rows: list[list[Any]] = field(default_factory=list)
    meanings: dict[str, str] = field(default_factory=dict)

    @classmethod
    def of(cls, name: str, title: str, columns: Mapping[str, str]) -> Table:
        return cls(name, title, list(columns), [], dict(columns))


@dataclass
class Series:
    label: str
    x: list[float]
    y: list[float]
    style: str = "o-"


@dataclass
class Chart:
    name: str
    title: str
    x_label: str
    y_label: str
    series: list[Series]
    log_x: bool = False
    log_y: bool = False
    # The paper's own series (read off its figure or printed in its text), drawn beside
    # rwaopt's in a second panel when present.
    paper_series: list[Series] = field(default_factory=list)
    # Values the paper prints on the x axis (a crossover size, a best depth): dotted lines.
    paper_marks: list[tuple[float, str]] = field(default_factory=list)
    note: str = ""  # what the figure shows, under it
    zoom_from_x: float | None = None  # a second panel: the same series from this x on


@dataclass(frozen=True)
class Covered:
    """One table or figure of a paper: where the report rebuilds it (tables / charts / finding
    items), or why it cannot."""

    item: str  # "Table 1", "Fig. 4"
    content: str  # what the paper shows there
    tables: tuple[str, ...] = ()
    charts: tuple[str, ...] = ()  # chart names, or prefixes ending in "*"
    findings: tuple[str, ...] = ()  # finding items
    not_reproducible: str = ""  # why, when nothing rebuilds it
    pending: str = ""  # reproducible, but not built yet: what is missing
    # For a figure: which of its values the paper prints (drawn beside rwaopt's), or why its
    # series cannot be drawn.
    paper_values: str = ""


@dataclass
class Section:
    """One paper's reproduction."""

    target: str
    title: str
    text: str
    platform: str = ""  # the paper's platform and parameters, as used here
    findings: list[Finding] = field(default_factory=list)
    tables: list[Table] = field(default_factory=list)
    charts: list[Chart] = field(default_factory=list)
    coverage: list[Covered] = field(default_factory=list)
