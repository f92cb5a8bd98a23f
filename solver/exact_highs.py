"""Exact RWA of one stage as a Pyomo model solved by HiGHS (formulation in solver.formulation).

Each constraint family is built by one block-style rule, as in oemof: demand coverage,
clique (link x colour) capacity, colour ordering and the lower-bound cut."""

from __future__ import annotations

import math
import time

import pyomo.environ as pyo
from pyomo.contrib.solver.common.factory import SolverFactory
from pyomo.contrib.solver.common.results import SolutionStatus, TerminationCondition

from solver.exact_cpsat import ExactOutcome
from solver.formulation import Formulation, assignment_from


def build_model(form: Formulation) -> pyo.ConcreteModel:
    m = pyo.ConcreteModel("rwa_stage")
    m.A = pyo.RangeSet(0, len(form.arcs) - 1)
    m.C = pyo.RangeSet(0, form.colours - 1)
    m.K = pyo.RangeSet(0, len(form.cliques) - 1) if form.cliques else pyo.Set(initialize=[])
    m.y = pyo.Var(m.A, m.C, within=pyo.Binary)
    m.u = pyo.Var(m.C, within=pyo.Binary)
    by_demand: dict[int, list[int]] = {}
    for a, (i, _) in enumerate(form.arcs):
        by_demand.setdefault(i, []).append(a)
    m.D = pyo.Set(initialize=sorted(by_demand))

    def cover(m: pyo.ConcreteModel, i: int) -> pyo.Expression:
        """sum over directions and colours of y[i, o, c] = k_i."""
        return sum(m.y[a, c] for a in by_demand[i] for c in m.C) == form.counts[i]

    def clique(m: pyo.ConcreteModel, q: int, c: int) -> pyo.Expression:
        """Arcs over one directed link share colour c at most once, and only if c is used."""
        return sum(m.y[a, c] for a in form.cliques[q]) <= m.u[c]

    def used(m: pyo.ConcreteModel, a: int, c: int) -> pyo.Expression:
        return m.y[a, c] <= m.u[c]

    def order(m: pyo.ConcreteModel, c: int) -> pyo.Expression:
        """u[c] >= u[c + 1]: colours are used from 0 upwards (symmetry breaking)."""
        if c == form.colours - 1:
            return pyo.Constraint.Skip
        return m.u[c] >= m.u[c + 1]

    m.cover = pyo.Constraint(m.D, rule=cover)
    m.clique = pyo.Constraint(m.K, m.C, rule=clique)
    m.used = pyo.Constraint(m.A, m.C, rule=used)
    m.order = pyo.Constraint(m.C, rule=order)
    m.bound = pyo.Constraint(expr=sum(m.u[c] for c in m.C) >= form.lower_bound)
    m.objective = pyo.Objective(expr=sum(m.u[c] for c in m.C), sense=pyo.minimize)
    return m


def solve_highs(form: Formulation, time_limit_s: float) -> ExactOutcome:
    """The model solved by HiGHS within `time_limit_s`, the model's build (Pyomo, seconds on
    a few hundred demands) included: it ran on top of the limit (review, session 34: 10 s
    took 17.9 s)."""
    started = time.monotonic()
    m = build_model(form)
    solver = SolverFactory("highs")
    result = solver.solve(
        m,
        time_limit=max(time_limit_s - (time.monotonic() - started), 0.01),
        load_solutions=False,
        raise_exception_on_nonoptimal_result=False,
        threads=1,
    )
    tc = result.termination_condition
    bound = result.objective_bound
    # HiGHS stopped at its time limit before a finite dual bound gives -inf (review, session
    # 34: an OverflowError in math.ceil)
    known = bound is not None and math.isfinite(bound)
    bound_int = max(form.lower_bound, math.ceil(bound - 1e-6)) if known else form.lower_bound
    if tc in (TerminationCondition.provenInfeasible, TerminationCondition.infeasibleOrUnbounded):
        return ExactOutcome(None, None, form.colours + 1, True, False)
    if result.solution_status in (SolutionStatus.optimal, SolutionStatus.feasible):
        result.solution_loader.load_vars()
        chosen = [(a, c) for a in m.A for c in m.C if pyo.value(m.y[a, c]) > 0.5]
        colours = round(pyo.value(m.objective))
        proven = tc == TerminationCondition.convergenceCriteriaSatisfied
        return ExactOutcome(
            assignment_from(form, chosen),
            colours,
            bound_int if not proven else colours,
            proven,
            not proven,
        )
    return ExactOutcome(None, None, bound_int, False, True)
