"""The CLI's text and CSV views of the result models (the JSON view is the model itself)."""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal

from app.schemas.requests import PlanRequest
from app.schemas.results import (
    AlgorithmResult,
    BestByMessage,
    CatalogEntry,
    ElectricalResult,
    Feasibility,
    PlanResult,
    RwaResponse,
)
from models.achievable import FACTS
from models.closed_forms import Unit
from models.errors import InvalidInputError
from models.synthesis import centred, holding

BINARY_UNITS = (("TiB", 1 << 40), ("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10))
DECIMAL_UNITS = (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3))
UNITS = {"b": 1} | {unit.lower(): scale for unit, scale in (*DECIMAL_UNITS, *BINARY_UNITS)}
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*")



def laser_text(dbm: float) -> str:
    """A least laser power to 0.01 dBm, rounded up (to within 1e-7 dB, the residue the BER
    check forgives): printed 10.2 for 10.25, it was not enough when typed back."""
    return f"{math.ceil(dbm * 100 - 1e-5) / 100:.2f}"

def parse_size(text: str) -> float:
    """A message size as people write it: '65536', '1e6', '64KiB', '1 MiB', '4MB' (SI units
    are powers of 10, binary ones powers of 2; what `size_text` prints reads back)."""
    if text.strip().startswith("-"):
        raise InvalidInputError(f"--message-bytes {text!r}: a size must be positive (e.g. 1MiB)")
    match = _SIZE.fullmatch(text)
    unit = match.group(2).lower() if match else ""
    if match is None or unit not in ("", *UNITS):
        raise InvalidInputError(
            f"--message-bytes {text!r}: give bytes, or a number with B, "
            + ", ".join(unit for unit, _ in (*reversed(DECIMAL_UNITS), *reversed(BINARY_UNITS)))
            + " (e.g. 1MiB; any case)"
        )
    # exactly, in decimal: in binary floating point 4.1 x 10^6 is 4099999.9999999995
    exact = Decimal(match.group(1)) * UNITS.get(unit, 1)
    if exact != exact.to_integral_value():
        low = math.floor(exact)
        raise InvalidInputError(
            f"--message-bytes {text!r} is {float(exact):g} bytes; a message is a whole number "
            "of bytes: give " + (f"{low} or {low + 1}" if low else "1")
        )
    return float(exact)


SHOWN_ELSEWHERE = ("ring", "collective", "algorithms", "message_sizes_bytes", "workloads")


def settings_text(request: PlanRequest) -> str | None:
    """The plan's settings that differ from their defaults, as the request names them
    ('optics.laser_power_dbm = -30, max_lightpath_hops = 6'): what decided the result beyond
    the ring, the collective and the sizes (the planner page's summary). None: all default."""
    defaults = PlanRequest.model_construct().model_dump(mode="json")
    given = request.model_dump(mode="json")
    out = []
    for name, value in given.items():
        if name in SHOWN_ELSEWHERE or name not in defaults:
            continue
        default = defaults[name]
        if isinstance(value, dict) and isinstance(default, dict):
            out += [
                f"{name}.{key} = {_setting(item)}"
                for key, item in value.items()
                if item != default.get(key)
            ]
        elif value != default:
            out.append(f"{name} = {_setting(value)}")
    return ", ".join(out) or None


def _setting(value: object) -> str:
    if isinstance(value, bool):
        return "on" if value else "off"
    if isinstance(value, dict | list):
        return json.dumps(value, separators=(", ", ": "))
    return str(value)


def ber_text(ber: float | None) -> str:
    """A bit error rate: '2.01e-31'; one below the smallest double reads '< 1e-308', not 0."""
    if ber is None:
        return "-"
    return "< 1e-308" if ber == 0 else f"{ber:.3g}"


def whole_text(value: float) -> str:
    """A count as an integer when it is one (NE's N / 2 = 512, not 512.0), else as it is."""
    return str(int(value)) if float(value).is_integer() else f"{value:g}"


def percent_text(fraction: float) -> str:
    """A fraction to 0.1 %; a positive one that rounds to 0.0 % is "<0.1%" (TRA2 at N = 64,
    0.0056 % of the achievable, read 0.0 %)."""
    if 0 < fraction < 0.0005:
        return "<0.1%"
    return f"{fraction:.1%}"


def counted(count: float, noun: str) -> str:
    """'1 true step', '6 true steps', '1 piece': a count and its noun (plural in 's')."""
    return f"{whole_text(count)} {noun}" + ("" if count == 1 else "s")


def size_text(message_bytes: float) -> str:
    """A message size as people write it: the shortest text that is exact with at most 4
    significant digits, in a binary or a decimal unit (64 MiB, 1.5 KiB, 249.2 MB; 64 MB as
    given, not 62500 KiB; binary on a tie), else 4 significant digits of the largest decimal
    unit (a ResNet-50 gradient: 102.2 MB)."""
    exact = []
    for unit, scale in (*BINARY_UNITS, *DECIMAL_UNITS):
        value = message_bytes / scale
        if value >= 1 and float(f"{value:.4g}") == value:
            exact.append(f"{value:g} {unit}")
    if exact:
        return min(exact, key=len)  # min keeps the first (binary) of equal lengths
    for unit, scale in DECIMAL_UNITS:
        # the largest unit it rounds to at least 1 of (999999 B: 1 MB, not 1000 kB)
        if float(f"{message_bytes / scale:.4g}") >= 1:
            return f"{message_bytes / scale:.4g} {unit}"
    return f"{message_bytes:g} B"


def catalog_text(entries: list[CatalogEntry]) -> str:
    """One line per algorithm (collective, name, its closed form and, for a ring, the
    value), its source below, and a ring's refusal where the family cannot run on it."""
    if not entries:
        return ""
    wide = max(len(str(e.collective)) for e in entries)
    name_wide = max(len(e.name) for e in entries)
    indent = " " * (wide + name_wide + 2)
    lines = []
    for e in entries:
        line = f"{e.collective!s:<{wide}} {e.name:<{name_wide}} {e.closed_form.steps}"
        if e.claimed is not None and e.claimed.value is not None:
            unit = "" if e.claimed.unit == Unit.STEPS else f" {e.claimed.unit}"
            line += f"  = {whole_text(e.claimed.value)}{unit}"
        lines += [line, f"{indent}source: {e.closed_form.source}"]
        if e.refusal is not None:
            lines.append(f"{indent}refuses this ring: {e.refusal}")
    return "\n".join(lines) + "\n"


def rwa_text(answer: RwaResponse) -> str:
    """The stage's numbers on one line; `status` is the steps' (with node limits, chi can meet
    its bound while the steps are not proven: steps_lower_bound says how far)."""
    return (
        f"chi={answer.chi} lower_bound={answer.lower_bound} status={answer.status} "
        f"steps={answer.steps} steps_lower_bound={answer.steps_lower_bound} "
        f"method={answer.method} lightpaths={len(answer.assignment)}\n"
    )


def parameters_text(params: Mapping[str, object]) -> str:
    """A shape's parameters as `--param` reads them back ('radices=4x4x16,pieces=1'; lists
    joined by 'x'), without OpTree's derived `stages` and without synth's `holders` and
    `centres` where they are their no-op defaults (every residue holds a share, every top
    member forms sums). The one text of a shape: the CLI table, the page and the advice."""
    shown = {k: v for k, v in params.items() if k != "stages"}
    if "holders" in shown and holding(shown) is None:
        del shown["holders"]
    if "centres" in shown and centred(shown) is None:
        del shown["centres"]
    return ",".join(
        f"{k}={'x'.join(map(str, v)) if isinstance(v, list | tuple) else v}"
        for k, v in shown.items()
    )


def shape_text(plan: AlgorithmResult) -> str:
    """'best radices=4x4x16,pieces=1': which shape the row is, with its parameters."""
    return f"{plan.shape} {parameters_text(plan.parameters)}".strip()


def claim_text(value: float | None, unit: Unit | str | None) -> str:
    """The paper's claim in its own unit: '3' (optical steps), '4095 rounds', '-' (none);
    the CLI table and the page."""
    if value is None:
        return "-"
    return f"{value:g}" + ("" if unit in (None, Unit.STEPS, "steps") else f" {unit}")


def _row_marks(plan: AlgorithmResult) -> str:
    """' (gap)': true steps above their proven bound; ' (search cut)': the shape search
    stopped before it ruled out every other shape, so 'best' is the best found (for
    `optimal`, not the proven optimum of the model)."""
    search = plan.shapes.search
    cut = search is not None and not search.exhaustive
    return ("" if plan.steps_optimal else " (gap)") + (" (search cut)" if cut else "")


def plan_text(result: PlanResult) -> str:
    """Claimed vs true steps and times per algorithm, the searches, the recommendation and the
    optics table."""
    out: list[str] = []
    sizes = [t.message_bytes for t in result.algorithms[0].timings]
    shapes = [shape_text(p) + _row_marks(p) for p in result.algorithms]
    wide = max(28, *(len(shape) + 2 for shape in shapes))  # a long shape keeps the columns
    head = f"{'algorithm':<10}{'shape':<{wide}}{'claimed':>14}{'true':>8}{'bound':>8}{'paper':>8}"
    head += "".join(f"{size_text(m) + ' (s)':>14}{'of ach.':>9}" for m in sizes)
    out.append(head)
    for p, shape in zip(result.algorithms, shapes, strict=True):
        claimed = "-" if p.claimed is None else claim_text(p.claimed.value, p.claimed.unit)
        line = f"{p.algorithm:<10}{shape:<{wide}}{claimed:>14}{p.true_steps:>8}"
        line += f"{p.steps_lower_bound:>8}{p.shapes.paper.true_steps:>8}"
        line += "".join(
            f"{t.time_s:>14.6g}{percent_text(t.fraction_of_achievable):>9}" for t in p.timings
        )
        out.append(line)
    out += _achievable_lines(result)
    for p in result.algorithms:
        if p.claimed is not None and p.claimed.value is None and p.claimed.note:
            # a closed form of another shape (WRHT's all-gather): said, never set against
            # this row's true steps
            out.append(
                f"{p.algorithm}: {p.claimed.note}; the paper's shape takes "
                f"{p.shapes.paper.true_steps} true steps"
            )
        elif p.claimed is not None and p.claimed.note:
            # what the claim is (TRA2's form as printed, beside Proposition 3's value)
            claimed = claim_text(p.claimed.value, p.claimed.unit)
            out.append(f"{p.algorithm}: claimed {claimed}: {p.claimed.note}")
        if p.shapes.paper_beyond_hop_limit is not None:
            out.append(
                f"{p.algorithm}: its paper shape breaks the hop limit ("
                f"{p.shapes.paper_beyond_hop_limit}); 'paper' routes it without the limit, "
                "the row keeps to it"
            )
        if p.shapes.paper_beyond_node_limits is not None:
            out.append(
                f"{p.algorithm}: its paper shape cannot be scheduled within the per-node "
                f"limits ({p.shapes.paper_beyond_node_limits}); 'paper' is it without them, "
                "the row keeps to them"
            )
        search = p.shapes.search
        if search is not None and (search.evaluated + search.pruned > 1 or not search.exhaustive):
            how = "exhaustive" if search.exhaustive else f"cut: {search.note}"
            out.append(
                f"search {p.algorithm}: {counted(search.candidates, 'shape')}, "
                f"{search.evaluated} solved, {search.pruned} pruned by bounds"
                + (
                    f", {search.beyond_hop_limit} beyond the hop limit"
                    if search.beyond_hop_limit
                    else ""
                )
                + (f", {search.refused} refused by the family" if search.refused else "")
                + f", {search.seconds:.1f} s, {how}"
            )
            feasible = feasible_shape_text(p)
            out += [f"  {feasible}"] if feasible else []
            out += _best_by_size_lines(result, p)
        counts = p.message_counts
        if counts is not None:
            out.append(
                f"{p.algorithm}: K = {counts.rounds} rounds, D = "
                f"{counts.blocks_sent_per_process} blocks per process (counted on the "
                f"{counts.counted_on}); optical steps are rwaopt's own measure"
            )
    for skipped in result.skipped:
        out.append(f"skipped {skipped.algorithm}: {skipped.reason}")
    if result.electrical is not None:
        out += _electrical_lines(result.electrical)
    for r in result.recommendation:
        out.append(f"fastest feasible at {size_text(r.message_bytes)}: {r.why}")
    first = result.algorithms[0].feasibility
    out.append(
        f"optics (OpTree eqs. 4-9, SNR read in {first.parameters.snr_scale} by eq. 9, needs "
        f"{first.required_snr_db:.1f} dB; defaults are assumptions, see README):"
    )
    out.append(
        f"{'algorithm':<10}{'hops':>6}{'L_max':>8}{'margin dB':>11}{'worst BER':>11}"
        f"{'min laser dBm':>15}  feasible"
    )
    for p in result.algorithms:
        f = p.feasibility
        margin = "-" if f.margin_db is None else f"{f.margin_db:.2f}"
        ber = ber_text(f.ber)
        laser = "-" if f.min_laser_power_dbm is None else laser_text(f.min_laser_power_dbm)
        out.append(
            f"{p.algorithm:<10}{f.max_hops:>6}{f.closed_form.l_max_hops:>8.4g}"
            f"{margin:>11}{ber:>11}{laser:>15}  {feasibility_verdict(f)}"
        )
    return "\n".join(out) + "\n"


def feasibility_verdict(f: Feasibility) -> str:
    """'yes', or 'no' with the first stage that fails and how; marked when the longest
    lightpath exceeds the closed form's L_max (the CLI's table and the planner page)."""
    verdict = "yes"
    if not f.feasible:
        verdict = "no"
        if f.blocking is not None:
            st = f.stages[f.blocking.stage]
            verdict = (
                f"no: stage {st.index}: {st.failing}/{st.lightpaths} lightpaths fail "
                f"({st.failing_power} power, {st.failing_ber} BER)"
            )
            failing_stages = sum(1 for s in f.stages if s.failing)
            if failing_stages > 1:
                verdict += (
                    f"; {f.failing_lightpaths} of {sum(s.lightpaths for s in f.stages)} "
                    f"in {failing_stages} stages"
                )
    if f.max_hops > f.closed_form.l_max_hops:
        verdict += " [longest lightpath exceeds L_max]"
    return verdict


def fact_text(key: str) -> str:
    """A bound's deciding fact as docs/achievable.md names it ("Fact 3c", ...), its key beside
    (`models.achievable.FACTS`; a key this version does not know is shown as it is)."""
    return f"{FACTS.get(key, key).split(':')[0]} ({key})"


REDUCE_THEN_BROADCAST_FAMILIES = (
    "reduce-then-broadcast: ring, bt, hring, synth without a sweep, wrht with one "
    "representative left"
)
"""The all-reduce families that form each complete sum at one node and copy it
(`Algorithm.reduces_then_broadcasts`), as the CLI and the planner page name them."""


def exact_text(
    result: PlanResult, index: int, seconds: Callable[[float], str] = lambda t: f"{t:.6g} s"
) -> str | None:
    """The exact model's optimum at the plan's `index`-th message size, as the CLI and the
    planner page say it: the least time of its schedules (equal pieces, one per lightpath,
    1 to 4 pieces per item), which is not the least time of every schedule: an algorithm of
    the same plan that bundles pieces or cuts finer can be faster, and then is named."""
    a = result.achievable[index]
    if a.exact_s is None:
        return None
    text = (
        f"exact model's optimum {seconds(a.exact_s)} ({counted(a.exact_pieces or 1, 'piece')} "
        "per item, "
        "one piece per lightpath)"
    )
    faster = []
    for p in result.algorithms:
        if p.algorithm == "optimal" or len(p.timings) <= index:
            continue
        # the row's shape, or the family's fastest at this size (what the advice may name)
        other = faster_shape(p, index)
        time_s = min(p.timings[index].time_s, math.inf if other is None else other.time_s)
        if time_s < a.exact_s * (1 - 1e-9):
            faster.append((time_s, p.algorithm))
    if faster:
        time_s, name = min(faster)
        text += f", which {name} beats at {seconds(time_s)} by bundling or finer pieces"
    return text


def no_reach_text(result: PlanResult) -> str | None:
    """When the optics make not even a one-hop lightpath reliable, what the achievable is:
    no schedule is feasible, and the bound given is the one without the optics' limit."""
    if not result.algorithms or result.algorithms[0].feasibility.budget.max_lightpath_hops >= 1:
        return None
    return (
        "with these optics not even a one-hop lightpath is reliable, so no schedule is "
        "optically feasible: the bounds below are those without the optics' limit"
    )


def _achievable_lines(result: PlanResult) -> list[str]:
    """The bound on every schedule per size, its terms, and the exact optimum if computed."""
    out = [] if (note := no_reach_text(result)) is None else [note]
    for index, a in enumerate(result.achievable):
        terms = ", ".join(f"{name} {seconds:.6g}" for name, seconds in a.terms.items())
        line = (
            f"achievable at {size_text(a.message_bytes)}: no schedule is faster than "
            f"{a.bound_s:.6g} s (at least {a.slots} slot{'s' if a.slots != 1 else ''}, "
            + (
                f"least at {a.slots_at_bound}, where {fact_text(a.decided_by)} sets the bytes; "
                if a.decided_by is not None
                else ""
            )
            + f"lightpaths <= {counted(a.hop_limit, 'hop')}; "
            f"terms in s: {terms})"
        )
        exact = exact_text(result, index)
        if exact is not None:
            line += f"; {exact}"
        out.append(line)
        if a.reduce_then_broadcast_s is not None:
            out.append(
                "  schedules that form each sum at one node and copy it "
                f"({REDUCE_THEN_BROADCAST_FAMILIES}; each shape's `reduce_then_broadcast` "
                "in --json) are "
                f"no faster than {a.reduce_then_broadcast_s:.6g} s "
                f"({a.reduce_then_broadcast_s / a.bound_s:.3g}x the achievable)"
            )
    if note is None and any(not p.feasibility.feasible for p in result.algorithms):
        out.append(
            "(optically infeasible algorithms are measured against the bound without the "
            "optics' hop limit: "
            + ", ".join(f"{a.bound_without_optics_s:.6g} s" for a in result.achievable)
            + ")"
        )
    return out


def _electrical_lines(e: ElectricalResult) -> list[str]:
    head = f"{'electrical':<10}{'steps':>8}" + "".join(
        f"{size_text(t.message_bytes) + ' Hockney':>20}{'simulated':>12}"
        for t in next((a.timings for a in e.algorithms if a.timings), [])
    )
    out = [
        f"electrical fat-tree ({e.network.hosts_per_leaf} hosts per leaf, "
        f"{e.network.link_gbps:g} Gb/s, {e.network.link_latency_us:g} us; "
        f"{e.simulator or 'SimGrid not installed: Hockney only'}):",
        head,
    ]
    for a in e.algorithms:
        if a.refusal is not None:
            out.append(f"{a.algorithm:<10} {a.refusal}")
            continue
        line = f"{a.algorithm:<10}{a.steps.value:>8}"
        for t in a.timings:
            simulated = "-" if t.simulated_s is None else f"{t.simulated_s:.6g}"
            line += f"{t.hockney_s:>20.6g}{simulated:>12}"
        out.append(line)
    crossing = "none" if e.crossover_bytes is None else size_text(e.crossover_bytes)
    out.append(f"crossover: {crossing} ({e.crossover_note})")
    return out


CSV_COLUMNS = (
    "algorithm",
    "shape",
    "parameters",
    "claimed_steps",
    "true_steps",
    "steps_lower_bound",
    "steps_optimal",
    "channels_optimal",
    "paper_true_steps",
    "paper_beyond_hop_limit",  # True: paper_true_steps routes the paper's shape without it
    "paper_beyond_node_limits",  # True: paper_true_steps is without max_tx / max_rx
    "message_bytes",
    "time_s",
    "claimed_time_s",
    "hardware_bound_s",
    "efficiency",
    "achievable_s",
    "fraction_of_achievable",
    "reduce_then_broadcast",  # all-reduce: the shape forms each sum at one node (else empty)
    "reduce_then_broadcast_s",  # all-reduce: the bound of that class at this size
    "feasible",  # the row's shape is optically feasible
    "recommended",  # the plan recommends this algorithm at this size (as the sweep CSV)
    "recommended_parameters",  # on that row: the shape recommended (need not be the row's)
    "recommended_time_s",  # on that row: its time
)


def plan_csv(result: PlanResult) -> str:
    """One row per algorithm and message size."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    classes = {a.message_bytes: a.reduce_then_broadcast_s for a in result.achievable}
    chosen = {r.message_bytes: r for r in result.recommendation}
    for p in result.algorithms:
        for t in p.timings:
            advice = chosen.get(t.message_bytes)
            pick = advice if advice is not None and advice.algorithm == p.algorithm else None
            writer.writerow(
                [
                    p.algorithm,
                    p.shape,
                    json.dumps(p.parameters, separators=(",", ":")),
                    p.claimed_steps,
                    p.true_steps,
                    p.steps_lower_bound,
                    p.steps_optimal,
                    p.channels_optimal,
                    p.shapes.paper.true_steps,
                    p.shapes.paper_beyond_hop_limit is not None,
                    p.shapes.paper_beyond_node_limits is not None,
                    t.message_bytes,
                    t.time_s,
                    t.claimed_time_s,
                    t.hardware_bound_s,
                    t.efficiency,
                    t.achievable_s,
                    t.fraction_of_achievable,
                    p.reduce_then_broadcast,
                    classes.get(t.message_bytes),
                    p.feasibility.feasible,
                    pick is not None,
                    None
                    if pick is None or pick.parameters is None
                    else json.dumps(pick.parameters, separators=(",", ":")),
                    None if pick is None else pick.time_s,
                ]
            )
    return out.getvalue()


def feasible_shape_text(p: AlgorithmResult) -> str | None:
    """The family's fastest feasible shape when it is not the reported one, or that no shape
    is feasible (the CLI's line under the search, the page's feasibility cell); None when the
    reported shape is the fastest feasible one, or the family was not searched."""
    if p.shapes.search is None:
        return None
    feasible, best = p.shapes.best_feasible, p.shapes.best
    if feasible is None:
        return (
            f"no shape of {p.algorithm} is optically feasible"
            if p.shapes.search.exhaustive
            else f"no optically feasible shape of {p.algorithm} found before the cut"
        )
    if best is not None and feasible.parameters == best.parameters:
        return None
    within = "" if feasible.hop_limit is None else f", within {feasible.hop_limit} hops"
    shape = parameters_text(feasible.parameters)
    steps = counted(feasible.true_steps, "step")
    return f"fastest feasible {p.algorithm}: {shape}{within}: {steps}"


def faster_shape(p: AlgorithmResult, index: int) -> BestByMessage | None:
    """The family's fastest shape at the `index`-th message size when it is not the row's
    (the row is the first size's best): the CLI's line under the table, the page's cell."""
    search = p.shapes.search
    if search is None or index >= len(search.best_by_message):
        return None
    found = search.best_by_message[index]
    return None if found.parameters == p.parameters else found


def faster_shape_text(
    result: PlanResult,
    p: AlgorithmResult,
    index: int,
    seconds: Callable[[float], str] = lambda t: f"{t:.6g} s",
) -> str | None:
    """The family's fastest shape at the `index`-th size when it is not the row's, as the
    CLI's line and the page's cell say it: its shape, steps and time, its fraction of the
    achievable it is measured against (the bound without the optics' limit when it is
    optically infeasible, as for a row), and whether it is infeasible (it is feasible only
    as the search's fastest feasible shape here: same shape, same time, so routed the same)."""
    found = faster_shape(p, index)
    if found is None or p.shapes.search is None:
        return None
    feasible_ones = p.shapes.search.best_feasible_by_message[index : index + 1]
    infeasible = bool(feasible_ones) and (
        feasible_ones[0] is None
        or (feasible_ones[0].parameters, feasible_ones[0].time_s)
        != (found.parameters, found.time_s)
    )
    share = ""
    if index < len(result.achievable):
        bound = result.achievable[index]
        limit = bound.bound_without_optics_s if infeasible else bound.bound_s
        share = f" ({percent_text(limit / found.time_s)} of the achievable)"
    return (
        f"{parameters_text(found.parameters)}: {counted(found.true_steps, 'step')}, "
        f"{seconds(found.time_s)}{share}" + (", optically infeasible" if infeasible else "")
    )


def _best_by_size_lines(result: PlanResult, p: AlgorithmResult) -> list[str]:
    """Where another shape of the family is fastest at a message size than the row's (the
    row is the first size's best), that shape and its time: the recommendation may name it,
    and the table's row alone would not show its time."""
    out = []
    for i, timing in enumerate(p.timings):
        text = faster_shape_text(result, p, i)
        if text is not None:
            out.append(
                f"  at {size_text(timing.message_bytes)} the fastest {p.algorithm} is {text}"
            )
    return out
