"""`rwaopt reproduce`: rebuild the papers' tables and figures with rwaopt's certified numbers
beside the printed ones and the closed forms (SPEC section 9).

One module per paper (`optree_journal`, `optree_conference`, `wrht`, `optical_electrical`,
`tra`), each returning a `Section` (findings with computed verdicts, tables, figure data and
the paper's coverage); `plans` solves and caches plans, `writer` writes the report
(report.md, report.html, tables/*.csv, figures/*.svg|png, findings.json).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import get_args

from app.reproduction.base import Chart, Covered, Section, Series, Table
from app.reproduction.optical_electrical import optical_electrical
from app.reproduction.optree_conference import optree_conference
from app.reproduction.optree_journal import optree_journal
from app.reproduction.plans import PlanCache, Summary
from app.reproduction.tra import tra
from app.reproduction.wrht import wrht
from app.schemas.requests import ReproductionTarget as Target

TARGETS: tuple[Target, ...] = get_args(Target)

BUILDERS: dict[Target, Callable[[PlanCache, bool], Section]] = {
    "optree-journal": optree_journal,
    "optree-conference": optree_conference,
    "wrht": wrht,
    "optical-electrical": optical_electrical,
    "tra": tra,
}


def reproduce(targets: list[Target], quick: bool, cache: PlanCache) -> list[Section]:
    return [BUILDERS[t](cache, quick) for t in targets]


__all__ = [
    "BUILDERS",
    "TARGETS",
    "Chart",
    "Covered",
    "PlanCache",
    "Section",
    "Series",
    "Summary",
    "Table",
    "reproduce",
]
