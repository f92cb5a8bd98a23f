"""What the templates print: numbers with their units, and the verdicts the tables colour."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from app.presentation.text import (
    ber_text,
    claim_text,
    fact_text,
    feasibility_verdict,
    laser_text,
    parameters_text,
    percent_text,
    shape_text,
    size_text,
)
from app.schemas.results import AlgorithmResult


def seconds_text(seconds: float | None) -> str:
    """A duration in the unit that reads best: '77.2 us', '1.79 ms', '2.5 s'."""
    if seconds is None or not math.isfinite(seconds):
        return "-"
    if seconds == 0:
        return "0 s"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if abs(seconds) >= scale:
            return f"{seconds / scale:.3g} {unit}"
    return f"{seconds * 1e9:.3g} ns"


_SECONDS = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?(?:e[-+]?\d+)?) s\b")


def why_text(text: str) -> str:
    """A recommendation's reason with its times in the unit the page uses ('393 us', not
    '0.000393383 s': the page's own times read in ms and us beside it; review A, session
    34). The JSON and the CLI keep the seconds."""
    return _SECONDS.sub(lambda m: seconds_text(float(m.group(1))), text)


def percent_or_dash(fraction: float | None) -> str:
    return "-" if fraction is None else percent_text(fraction)


def number_text(value: float | None, digits: int = 4) -> str:
    if value is None:
        return "-"
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return f"{value:.{digits}g}"


def bytes_text(message_bytes: float | None) -> str:
    return "-" if message_bytes is None else size_text(message_bytes)


def verdict(plan: AlgorithmResult) -> str:
    """The row's colour: infeasible optics, steps proven optimal, or a gap to the bound."""
    if not plan.feasibility.feasible:
        return "infeasible"
    return "proven" if plan.steps_optimal else "gap"


def row_verdict(feasible: bool | None, proven: bool | None) -> str:
    """The same colour for a sweep's result row (no verdict for a row without a result)."""
    if feasible is None:
        return ""
    if not feasible:
        return "infeasible"
    return "proven" if proven else "gap"


@dataclass(frozen=True)
class FormField:
    """One input of the form's "more" fold, read off a request model's field."""

    name: str  # the JSON path, e.g. "optics.laser_power_dbm"
    label: str
    help: str
    default: str
    choices: tuple[str, ...]  # a select's options; empty: a number


def form_fields(prefix: str, model: type[BaseModel]) -> list[FormField]:
    """The model's fields as inputs: numbers, or a select for a `Literal` (e.g. snr_scale).
    Blank means the service's default, so every default is shown, not sent."""
    fields = []
    for name, info in model.model_fields.items():
        default: Any = info.get_default(call_default_factory=True)
        choices = tuple(getattr(info.annotation, "__args__", ()))
        choices = tuple(c for c in choices if isinstance(c, str))
        fields.append(
            FormField(
                name=f"{prefix}.{name}" if prefix else name,
                label=name.replace("_", " "),
                help=(info.description or "").strip(),
                default=_default_text(default),
                choices=choices,
            )
        )
    return fields


def _default_text(default: Any) -> str:
    if default is None:
        return ""
    return f"{default:g}" if isinstance(default, float) else str(default)


def stored_parameters_text(stored: str | None) -> str:
    """A sweep row's parameters (JSON text, as its CSV keeps them) the way the plan page and
    `--param` write a shape ('group=5,levels=0'; '' for none)."""
    if not stored:
        return ""
    return parameters_text(json.loads(stored))


def setting_value(value: object) -> str:
    """A swept setting's value as the sweep page writes it: None (the setting's 'no limit')
    as "none", not Python's "None"; an object or list as JSON, as the results CSV writes it
    (the page wrote Python's repr, {'simulate': False}; review, session 35)."""
    if value is None:
        return "none"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(",", ":"))
    return str(value)


FILTERS = {
    "setting": setting_value,
    "parameters": stored_parameters_text,
    "fact": fact_text,
    "seconds": seconds_text,
    "percent": percent_or_dash,
    "number": number_text,
    "why": why_text,
    "laser": lambda dbm: "-" if dbm is None else laser_text(dbm),
    "size": bytes_text,
    "shape": shape_text,
    "ber": ber_text,
    "claim": claim_text,
    "verdict": verdict,
    "feasibility": feasibility_verdict,
}
