"""Exact RWA of one stage with OR-Tools CP-SAT (formulation in solver.formulation)."""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from solver.assignment import Assignment
from solver.formulation import Formulation, assignment_from


@dataclass(frozen=True)
class ExactOutcome:
    assignment: Assignment | None
    colours: int | None
    bound: int
    proven: bool  # optimal (or infeasible) proven
    timed_out: bool


def solve_cpsat(
    form: Formulation, time_limit_s: float, hint: Assignment | None = None, workers: int = 2
) -> ExactOutcome:
    model = cp_model.CpModel()
    c_range = range(form.colours)
    y = {(a, c): model.new_bool_var(f"y{a}_{c}") for a in range(len(form.arcs)) for c in c_range}
    u = [model.new_bool_var(f"u{c}") for c in c_range]
    by_demand: dict[int, list[int]] = {}
    for a, (i, _) in enumerate(form.arcs):
        by_demand.setdefault(i, []).append(a)
    for i, arcs in by_demand.items():
        model.add(sum(y[a, c] for a in arcs for c in c_range) == form.counts[i])
    for clique in form.cliques:
        for c in c_range:
            model.add(sum(y[a, c] for a in clique) <= u[c])
    for a in range(len(form.arcs)):
        for c in c_range:
            model.add_implication(y[a, c], u[c])
    for c in range(form.colours - 1):
        model.add_implication(u[c + 1], u[c])
    model.add(sum(u) >= form.lower_bound)
    model.minimize(sum(u))
    if hint is not None:
        demand, direction, colour = hint.expand()
        index = {arc: a for a, arc in enumerate(form.arcs)}
        used = {
            (index[(int(i), int(o))], int(c))
            for i, o, c in zip(demand, direction, colour, strict=True)
        }
        for key, var in y.items():
            model.add_hint(var, key in used)
        top = int(colour.max()) + 1 if len(colour) else 0
        for c in c_range:
            model.add_hint(u[c], c < top)
    solver = cp_model.CpSolver()
    solver.parameters.max_time_in_seconds = max(time_limit_s, 0.01)
    solver.parameters.num_workers = workers
    status = solver.solve(model)
    bound = round(solver.best_objective_bound) if status != cp_model.UNKNOWN else form.lower_bound
    if status in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        chosen = [key for key, var in y.items() if solver.value(var)]
        colours = round(solver.objective_value)
        return ExactOutcome(
            assignment_from(form, chosen),
            colours,
            max(bound, form.lower_bound),
            status == cp_model.OPTIMAL,
            status == cp_model.FEASIBLE,
        )
    if status == cp_model.INFEASIBLE:
        return ExactOutcome(None, None, form.colours + 1, True, False)
    return ExactOutcome(None, None, form.lower_bound, False, True)
