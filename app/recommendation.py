"""Which algorithm to use, per message size (SPEC section 10): the fastest by true time among
the optically feasible shapes: an algorithm whose reported shape is infeasible still counts
with its fastest feasible shape (`shapes.best_feasible`, found by the shape search)."""

from __future__ import annotations

import math
from collections.abc import Sequence

from app.planning import PlannedAlgorithm
from app.presentation.text import counted, parameters_text, percent_text
from app.schemas.results import ClosestToFeasible, Recommendation, parameter_values
from models.achievable import AchievableBound
from models.algorithms.catalog import algorithms as paper_algorithms
from solver.electrical import ElectricalComparison
from solver.plan import AlgorithmPlan


def recommendation(
    planned: Sequence[PlannedAlgorithm],
    electrical: ElectricalComparison | None = None,
    achievable: Sequence[AchievableBound] = (),
    class_bound: Sequence[AchievableBound] = (),
) -> list[Recommendation]:
    """Per message size (SPEC section 10): the fastest algorithm by true time among those
    whose feasibility block says feasible, with why; the faster infeasible ones it passed
    over; what the papers' closed forms would have picked. When none is feasible, no
    optical algorithm is named: the one closest to feasibility is, with the laser power it
    lacks. With the electrical baseline, E-Ring or E-RD is named where it is faster than the
    optical choice (simulated time where SimGrid ran, else Hockney). `achievable` and
    `class_bound`: the plan's bounds per size with the optics' hop limit (`PlanRun`), which
    the recommended shape, always optically feasible, is measured against (a row's own is
    the free bound where its reported shape is infeasible)."""
    advice = [
        _electrical(entry, i, electrical) if electrical is not None else entry
        for i, entry in enumerate(_optical(planned, achievable, class_bound))
    ]
    return advice


def _electrical(entry: Recommendation, i: int, electrical: ElectricalComparison) -> Recommendation:
    best = electrical.fastest(i)
    if best is None:
        return entry
    time_s = best.time_s(i)
    how = "simulated" if best.timings[i].simulated is not None else "Hockney"
    if entry.time_s is not None and entry.time_s <= time_s:
        entry.why += f"; faster than the electrical fat-tree ({best.name}: {time_s:.6g} s, {how})"
        return entry
    beaten = (
        "" if entry.algorithm is None else f"; the optical {entry.algorithm}: {entry.time_s:.6g} s"
    )
    entry.why = (
        f"{best.name} on the electrical fat-tree: {time_s:.6g} s ({how}){beaten}. " + entry.why
    )
    entry.algorithm, entry.time_s, entry.network = best.name, time_s, "electrical"
    entry.tied_with, entry.parameters, entry.hop_limit = [], None, None
    return entry


def _optical(
    planned: Sequence[PlannedAlgorithm],
    bound: Sequence[AchievableBound],
    class_bound: Sequence[AchievableBound],
) -> list[Recommendation]:
    advice: list[Recommendation] = []
    if not planned:
        return advice
    plans = [p.plan for p in planned]
    by_name = {p.plan.algorithm: p for p in planned}
    for i, size in enumerate(plans[0].timings):
        # each algorithm in its fastest shape at this size, feasible or not (the shape
        # reported is the first size's winner; `best_by_message` holds the others)
        ranked = sorted(
            (_fastest_shape(p, i) for p in planned),
            key=lambda p: (p.timings[i].time_s, p.true_steps, p.algorithm),
        )
        feasible = {
            p.plan.algorithm: shape for p in planned if (shape := _feasible_shape(p, i)) is not None
        }
        usable = sorted(
            (plan for plan, _ in feasible.values()),
            key=lambda p: (p.timings[i].time_s, p.true_steps, p.algorithm),
        )
        # what the papers' formulas would pick: each paper's claim for its own shape (a row
        # of another shape may have none: WRHT's m != 2w + 1, OpTree's unbalanced levels)
        claimed = [p.paper for p in planned if p.paper.timings[i].claimed_time_s is not None]
        by_claim = min(
            claimed, key=lambda p: (p.timings[i].claimed_time_s or 0.0, p.algorithm), default=None
        )
        fastest = ranked[0]
        entry = Recommendation(
            message_bytes=size.message_bytes,
            algorithm=None,
            time_s=None,
            feasible=bool(usable),
            tied_with=[],
            fastest_regardless_of_optics=fastest.algorithm,
            skipped_infeasible=[],
            closest_to_feasible=None,
            fastest_by_closed_form=None if by_claim is None else by_claim.algorithm,
            why="",
        )
        if not usable:
            # the least shortfall; among equal ones (ring and NE both need the 1-hop margin)
            # the faster
            closest = min(
                planned, key=lambda p: (_laser_shortfall_db(p), p.plan.timings[i].time_s)
            )
            short = _laser_shortfall_db(closest)
            entry.closest_to_feasible = ClosestToFeasible(
                algorithm=closest.plan.algorithm,
                laser_power_shortfall_db=short,
                min_laser_power_dbm=closest.optics.min_laser_power_dbm,
            )
            entry.why = (
                "no algorithm is optically feasible with these optics; closest: "
                f"{closest.plan.algorithm}, which needs {short:.3g} dB more laser power "
                f"(fastest regardless of optics: {fastest.algorithm})"
            ) + _unsearched(planned, i, from_paper=False)
            advice.append(entry)
            continue
        best = usable[0]
        t = best.timings[i]
        # faster in the shape reported, infeasible there (their feasible shapes are slower)
        skipped = [
            p.algorithm for p in ranked if p.algorithm != best.algorithm and _faster(p, best, i)
        ]
        tied = [p.algorithm for p in usable[1:] if p.timings[i].time_s <= t.time_s * (1 + 1e-9)]
        fraction = (
            f"{percent_text(bound[i].bound_s / t.time_s)} of the achievable "
            f"({bound[i].bound_s:.6g} s)"
            if bound
            else f"{percent_text(t.efficiency)} of the hardware bound's speed"
        )
        why = (
            f"{best.algorithm}: {counted(best.true_steps, 'true step')}, {t.time_s:.6g} s "
            f"({fraction}), optically feasible"
        )
        reported = by_name[best.algorithm]
        if best is not reported.plan:
            why += f" in its fastest feasible shape at this size, {parameters_text(best.params)}"
            why += (
                f" (the shape reported for it takes {reported.plan.timings[i].time_s:.6g} s here)"
                if reported.optics.feasible
                else " (the shape reported for it is optically infeasible)"
            )
        why += _class_note(by_name[best.algorithm], best, i, bound, class_bound)
        if skipped:
            why += f"; faster but optically infeasible: {', '.join(skipped)}"
        if tied:
            why += f"; tied with {', '.join(tied)}"
        slower = [p for p in usable[1:] if p.algorithm not in tied]
        if slower:
            runner = slower[0]
            why += (
                f"; next feasible {runner.algorithm}: {counted(runner.true_steps, 'step')}, "
                f"{runner.timings[i].time_s:.6g} s"
            )
        if not by_name[best.algorithm].algorithm.from_paper:
            papers = [p for p in usable if by_name[p.algorithm].algorithm.from_paper]
            if papers:
                paper = papers[0]
                versus = (
                    f"the fastest feasible paper algorithm ({paper.algorithm}: "
                    f"{paper.timings[i].time_s:.6g} s)"
                )
                if paper.algorithm in tied:
                    why += f"; as fast as {versus}"
                else:
                    ratio = _ratio_text(paper.timings[i].time_s / t.time_s)
                    why += f"; {ratio}x faster than {versus}"
            elif cut := _unsearched(planned, i, from_paper=True):
                why += "; no feasible paper algorithm found" + cut
            elif not any(p.algorithm.from_paper for p in planned):
                why += "; no paper algorithm in this plan"
                collective = by_name[best.algorithm].algorithm.collective
                if not paper_algorithms(collective):
                    why += f" (the papers propose none for {collective.prose})"
            else:
                why += "; no paper algorithm is optically feasible here"
        if by_claim is not None and by_claim.algorithm != best.algorithm:
            claim_text = counted(by_claim.claimed_steps or 0, "step")
            why += (
                f"; the papers' closed forms would pick {by_claim.algorithm} "
                f"(claimed {claim_text}, true {by_claim.true_steps})"
            )
        entry.algorithm, entry.time_s, entry.why = best.algorithm, t.time_s, why
        entry.tied_with, entry.skipped_infeasible = tied, skipped
        entry.parameters = parameter_values(best.params)
        entry.hop_limit = feasible[best.algorithm][1]
        advice.append(entry)
    return advice


def _class_note(
    planned: PlannedAlgorithm,
    best: AlgorithmPlan,
    i: int,
    bound: Sequence[AchievableBound],
    class_bound: Sequence[AchievableBound],
) -> str:
    """"" or, for an all-reduce, the recommended (optically feasible) shape against the bound
    of the schedules that form each complete sum at one node and copy it, with the optics'
    hop limit (docs/achievable.md): inside that
    class, how much of the gap to the achievable no schedule of it can close; outside it, the
    margin by which it beats every such schedule, when it does."""
    inside = planned.algorithm.reduces_then_broadcasts(best.ring, best.params)
    if not class_bound or inside is None:
        return ""
    within, least = class_bound[i].bound_s, bound[i].bound_s
    time_s = best.timings[i].time_s
    if inside:
        return (
            f"; it forms each sum at one node and copies it: {time_s / within:.3g}x the bound "
            f"of such schedules ({within:.6g} s, {within / least:.3g}x the achievable)"
        )
    if time_s < within:
        ratio = _ratio_text(within / time_s)
        return (
            f"; it forms sums at several nodes and is {ratio}x faster than any schedule that "
            f"forms each sum at one node and copies it can be ({within:.6g} s)"
        )
    return ""


def _unsearched(planned: Sequence[PlannedAlgorithm], i: int, from_paper: bool) -> str:
    """"" or a note naming the algorithms (paper ones only, with `from_paper`) whose shape
    search was cut by its budget before finding a feasible shape at size i: "none feasible"
    is then not proven for them."""
    cut = [
        p.plan.algorithm
        for p in planned
        if (p.algorithm.from_paper or not from_paper)
        and p.best is not None
        and not p.best.report.exhaustive
        and _feasible_shape(p, i) is None
    ]
    if not cut:
        return ""
    return (
        f" (the shape search of {', '.join(cut)} was cut by its time budget before finding "
        "a feasible shape: raise the search budget, search_budget_s or --search-budget)"
    )


def _ratio_text(ratio: float) -> str:
    """A speed ratio above 1 to three significant digits, or as many more as it takes not to
    read as 1 ('1.0004', not '1')."""
    digits = 3
    while f"{ratio:.{digits}g}" == "1" and digits < 12:
        digits += 1
    return f"{ratio:.{digits}g}"


def _faster(a: AlgorithmPlan, b: AlgorithmPlan, i: int) -> bool:
    return (a.timings[i].time_s, a.true_steps, a.algorithm) < (
        b.timings[i].time_s,
        b.true_steps,
        b.algorithm,
    )


def _fastest_shape(planned: PlannedAlgorithm, i: int) -> AlgorithmPlan:
    """The algorithm's fastest shape at message size i, optically feasible or not: the
    shape search's winner there, or, without a search, the plan itself."""
    best = planned.best
    return best.by_message[i] if best is not None and best.by_message else planned.plan


def _feasible_shape(planned: PlannedAlgorithm, i: int) -> tuple[AlgorithmPlan, int | None] | None:
    """The algorithm's fastest optically feasible shape at message size i and the hop limit
    it was routed within: the shape search's `best_feasible` (routed within the hop limit
    when that made it feasible), or, without a search, the plan itself when its optics
    pass (routed within the request's max_lightpath_hops)."""
    best = planned.best
    if best is not None and best.feasible_by_message:
        found = best.feasible_by_message[i]
        return None if found is None else (found.plan, found.hop_limit)
    return (planned.plan, planned.max_hops) if planned.optics.feasible else None


def _laser_shortfall_db(planned: PlannedAlgorithm) -> float:
    """How much more laser power the plan needs to be reliable (inf when no power would do)."""
    need = planned.optics.min_laser_power_dbm
    if need is None or not math.isfinite(need):
        return math.inf
    return need - planned.optics.params.laser_power_dbm
