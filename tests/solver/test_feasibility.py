"""Per-lightpath optics of plans (solver.feasibility) against brute force and the paper's
worst case (OpTree journal eqs. 4-9)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.algorithms.catalog import CATALOG
from models.errors import AlgorithmRefusedError
from models.optics import OpticalParameters, min_laser_power_dbm
from models.ring import ANY_DIRECTION, Direction, Ring
from models.stage import Stage, within_hops
from solver.feasibility import evaluate_plan, neighbours
from solver.outcome import Method, SolveOptions
from solver.plan import plan_algorithm
from solver.solve import solve_stage


def brute_neighbours(n: int, table: dict[str, np.ndarray]) -> tuple[list[int], list[int]]:
    """Rx: nodes after the source up to the destination where another lightpath of the same
    (slot, direction, fibre) starts or ends; Tx: another one starting at the same source."""
    rows = list(zip(*(table[k].tolist() for k in
                      ("source", "destination", "direction", "slot", "fiber", "hops")),
                    strict=True))  # fmt: skip
    rx, tx = [], []
    for i, (s, _, o, t, f, h) in enumerate(rows):
        path = [(s + j) % n if o == 0 else (s - j) % n for j in range(1, h + 1)]
        others = [r for j, r in enumerate(rows) if j != i and (r[2], r[3], r[4]) == (o, t, f)]
        rx.append(sum(any(v in (r[0], r[1]) for r in others) for v in path))
        tx.append(int(any(r[0] == s for r in others)))
    return rx, tx


@st.composite
def stages(draw: st.DrawFn) -> tuple[Ring, Stage]:
    n = draw(st.integers(3, 9))
    ring = Ring(n, draw(st.integers(1, 2)), draw(st.integers(1, 3)))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(1, n - 1),
                                    st.integers(1, 3)), min_size=1, max_size=12))  # fmt: skip
    s = [p[0] for p in pairs]
    d = [(p[0] + p[1]) % n for p in pairs]
    return ring, Stage.from_demands(n, s, d, [p[2] for p in pairs])


@settings(max_examples=60, deadline=None)
@given(stages())
def test_neighbour_counts_match_brute_force(case: tuple[Ring, Stage]) -> None:
    ring, stage = case
    result = solve_stage(ring, stage, SolveOptions(method=Method.HEURISTIC, time_limit_s=5.0))
    table = result.assignment.lightpaths(ring, stage)
    rx, tx = neighbours(ring, table)
    assert (rx.tolist(), tx.tolist()) == brute_neighbours(ring.nodes, table)
    import solver.feasibility as feasibility

    for factor in (0, 10**9):  # the binary-search path, then the dense prefix path
        saved, feasibility.DENSE_FACTOR = feasibility.DENSE_FACTOR, factor
        try:
            again = neighbours(ring, table)
        finally:
            feasibility.DENSE_FACTOR = saved
        assert (again[0].tolist(), again[1].tolist()) == (rx.tolist(), tx.tolist())
    # Never worse than the paper's worst case at the lightpath's own length (eq. 8).
    assert (rx <= table["hops"]).all() and (tx <= 1).all()


@settings(max_examples=120, deadline=None)
@given(st.data(), st.booleans())
def test_ends_per_cell_match_a_count_either_way(data: st.DataObject, crowded: bool) -> None:
    """`_ends_at` counts cells with np.bincount where lightpaths outnumber cells (`crowded`)
    and keeps one index per cell otherwise: both say what a plain count says."""
    from solver.feasibility import _ends_at

    size = data.draw(st.integers(1, 30))
    many = st.integers(size, 3 * size) if crowded else st.integers(1, size - 1 or 1)
    count = data.draw(many)
    cells = st.lists(st.integers(0, size - 1), min_size=count, max_size=count)
    sources, destinations = np.array(data.draw(cells)), np.array(data.draw(cells))
    active, shared, sends_twice = _ends_at(size, sources, destinations)
    ends = [list(sources).count(c) + list(destinations).count(c) for c in range(size)]
    sends = [list(sources).count(c) for c in range(size)]
    assert active.tolist() == [e >= 1 for e in ends]
    assert shared.tolist() == [e >= 2 for e in ends]
    assert sends_twice.tolist() == [e >= 2 for e in sends]


def all_to_all_table(ring: Ring) -> tuple[Stage, object]:
    n = ring.nodes
    stage = Stage.from_demands(n, *zip(*[(s, d) for s in range(n) for d in range(n)
                                         if s != d], strict=True))  # fmt: skip
    result = solve_stage(ring, stage, SolveOptions(method=Method.HEURISTIC, time_limit_s=5.0))
    return stage, result.assignment


def test_dense_neighbours_in_chunks_equal_one_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    ring = Ring(12, 1, 2)
    stage, assignment = all_to_all_table(ring)
    table = assignment.lightpaths(ring, stage)  # type: ignore[attr-defined]
    import solver.feasibility as feasibility

    monkeypatch.setattr(feasibility, "DENSE_FACTOR", 10**9)
    whole = neighbours(ring, table)
    monkeypatch.setattr(feasibility, "CHUNK_CELLS", 30)  # two groups of 12 nodes per chunk
    parts = neighbours(ring, table)
    assert all((a == b).all() for a, b in zip(whole, parts, strict=True))
    assert (whole[0].tolist(), whole[1].tolist()) == brute_neighbours(ring.nodes, table)


@pytest.mark.parametrize("window", [1, 5, 40])
def test_stage_in_slot_windows_equals_one_window(
    monkeypatch: pytest.MonkeyPatch, window: int
) -> None:
    """Windows of a few slots give the same counts, worst case and laser power as one pass;
    the counts are checked against brute-force neighbours and per-lightpath optics."""
    import solver.feasibility as feasibility
    from models import optics

    ring = Ring(12, 1, 2)
    stage, assignment = all_to_all_table(ring)
    # Both constraints fail for some lightpaths and not for others (60 on power, 104 on BER).
    params = OpticalParameters(laser_power_dbm=2.35, rx_crosstalk_dbm_per_node=-20.0)
    one = feasibility.evaluate_stage(ring, stage, assignment, params, 0)  # type: ignore[arg-type]
    monkeypatch.setattr(feasibility, "WINDOW_LIGHTPATHS", window)
    assert len(feasibility.slot_windows(ring, assignment)) > 1  # type: ignore[arg-type]
    parts = feasibility.evaluate_stage(ring, stage, assignment, params, 0)  # type: ignore[arg-type]
    assert parts == one
    table = assignment.lightpaths(ring, stage)  # type: ignore[attr-defined]
    rx, tx = brute_neighbours(ring.nodes, table)
    each = optics.lightpaths(params, table["hops"], rx, tx)
    assert one.lightpaths == len(rx)
    assert one.failing == int(((each.margin_db < 0) | (each.ber >= params.target_ber)).sum())
    assert one.failing_power == int((each.margin_db < 0).sum())
    assert one.failing_ber == int((each.ber >= params.target_ber).sum())
    assert 0 < one.failing_power < one.failing_ber < one.lightpaths
    assert one.min_laser_power_dbm == pytest.approx(float(each.min_laser_power_dbm.max()))
    # the worst lightpath needs the most laser power (a failing one: review, session 33,
    # found a passing lightpath of higher BER named 'worst' beside a failing one); the
    # stage's worst BER and margin are each the extreme over every lightpath
    assert one.worst is not None and one.worst.blocking
    assert one.worst.min_laser_power_dbm == pytest.approx(float(each.min_laser_power_dbm.max()))
    assert one.worst_ber == pytest.approx(float(each.ber.max()))
    assert one.worst_margin_db == pytest.approx(float(each.margin_db.min()))


def check_not_worse(report, params: OpticalParameters) -> None:  # type: ignore[no-untyped-def]
    assert report.worst is not None
    hops = report.closed_form_hops
    assert max(s.max_hops for s in report.stages) <= hops
    lit = [s for s in report.stages if s.lightpaths]  # TRA2's shared-memory rounds: none
    assert max(s.worst_ber for s in lit) <= float(report.closed_form.ber)
    assert min(s.worst_margin_db for s in lit) >= float(report.closed_form.margin_db)
    assert report.min_laser_power_dbm <= float(min_laser_power_dbm(params, hops, hops, 1))


@pytest.mark.parametrize("n", [8, 12, 16])
@pytest.mark.parametrize("algorithm", CATALOG, ids=lambda a: f"{a.collective}-{a.name}")
def test_small_plans_never_worse_than_the_closed_form(algorithm, n: int) -> None:
    ring = Ring(n, 1, 4)
    if algorithm.refusal(ring, algorithm.fill_defaults(ring, {})):
        pytest.skip("the algorithm does not run on this N")
    params = OpticalParameters()
    plan = plan_algorithm(algorithm, ring, algorithm.resolve(ring), [4096])
    check_not_worse(evaluate_plan(plan, params), params)


@settings(max_examples=40, deadline=None)
@given(
    algorithm=st.sampled_from(CATALOG),
    n=st.integers(4, 40),
    w=st.sampled_from([2, 4, 8]),
    laser=st.floats(-5, 60),
)
def test_plans_within_the_papers_path_length_never_worse(algorithm, n, w, laser) -> None:  # type: ignore[no-untyped-def]
    """Property: a plan whose lightpaths respect the paper's worst-case length (eq. 4 for
    OpTree, N - 1 otherwise) is never worse than the closed-form worst case (eqs. 5-9)."""
    ring = Ring(n, 1, w)
    if algorithm.refusal(ring, algorithm.fill_defaults(ring, {})):
        return
    params = OpticalParameters(laser_power_dbm=laser)
    free = plan_algorithm(
        algorithm, ring, algorithm.resolve(ring), [4096], options=SolveOptions(time_limit_s=2)
    )
    limit = math.floor(evaluate_plan(free, params).closed_form_hops)
    try:
        plan = plan_algorithm(
            algorithm,
            ring,
            algorithm.resolve(ring),
            [4096],
            options=SolveOptions(time_limit_s=2, max_hops=limit),
        )
    except AlgorithmRefusedError:
        return  # a demand needs more than the paper's L_max either way round
    check_not_worse(evaluate_plan(plan, params), params)


def test_optree_step_optimum_needs_longer_paths_than_eq4() -> None:
    """Finding: at N=20 (w=4) OpTree 3,3,3 (k = 3 = k*, the balanced cover) has a
    step-optimal RWA (11 steps, proven) that routes an 18-hop lightpath, beyond eq. (4)'s
    L_max = 13.63; held to 13 hops the proven optimum is 12."""
    algorithm = next(a for a in CATALOG if a.name == "optree")
    ring = Ring(20, 1, 4)
    params = OpticalParameters()
    shape = algorithm.resolve(ring, {"branching": (3, 3, 3)})
    free = plan_algorithm(algorithm, ring, shape, [1])
    report = evaluate_plan(free, params)
    assert report.closed_form_hops == pytest.approx(13.6319, abs=1e-4)
    assert free.true_steps == free.steps_lower_bound == 11
    assert max(s.max_hops for s in report.stages) > 13.63
    held = plan_algorithm(algorithm, ring, shape, [1], options=SolveOptions(max_hops=13))
    assert held.true_steps == held.steps_lower_bound == 12


def test_loss_budget_routing_constraint() -> None:
    """OSM all-gather on N=8 is an all-to-all: with at most 2 hops every lightpath must take
    its short way, and pairs 3 or 4 apart cannot be served at all."""
    algorithm = next(a for a in CATALOG if a.name == "osm")
    ring = Ring(8, 1, 4)
    params = algorithm.resolve(ring)
    with pytest.raises(AlgorithmRefusedError, match="needs 3 hops, more than the limit of 2"):
        plan_algorithm(algorithm, ring, params, [1], options=SolveOptions(max_hops=2))
    free = plan_algorithm(algorithm, ring, params, [1])
    bound = plan_algorithm(algorithm, ring, params, [1], options=SolveOptions(max_hops=4))
    for s in bound.stages:
        assert int(s.result.assignment.lightpaths(ring, s.stage)["hops"].max()) <= 4
    assert bound.true_steps >= bound.steps_lower_bound
    assert free.steps_lower_bound <= bound.true_steps


def test_within_hops_directions() -> None:
    anyway, cw, ccw = ANY_DIRECTION, Direction.CW, Direction.CCW
    stage = Stage.from_demands(
        6, [0, 0, 0, 1], [1, 2, 5, 4], [1, 1, 1, 2], [anyway, cw, anyway, anyway]
    )
    short = within_hops(
        Stage.from_demands(6, [0, 0, 0], [1, 2, 5], [1, 1, 1], [anyway, cw, anyway]), 2
    )
    by_pair = {(int(s), int(d)): int(a) for s, d, a in
               zip(short.sources, short.destinations, short.allowed, strict=True)}  # fmt: skip
    # 0->1 and 0->2 (already cw-only) go clockwise, 0->5 counter-clockwise.
    assert by_pair[(0, 1)] == cw and by_pair[(0, 2)] == cw and by_pair[(0, 5)] == ccw
    assert within_hops(stage, 5).allowed.tolist() == [
        ANY_DIRECTION,
        Direction.CW,
        ANY_DIRECTION,
        ANY_DIRECTION,
    ]
    with pytest.raises(AlgorithmRefusedError, match="1 -> 4 needs 3 hops"):
        within_hops(Stage.from_demands(6, [1], [4]), 2)


def test_the_worst_lightpath_of_an_infeasible_plan_fails() -> None:
    """Review (session 33): WRHT's all-reduce at N = 256, w = 64 fails on its 128-hop
    lightpaths (margin -4.8 dB) while the 64-hop ones of other stages pass with a higher BER
    (2e-31); 'worst' was the passing one (highest BER first). Now the lightpath that needs
    the most laser power is the worst: a failing one, the one `blocking` names; the stages'
    worst BER and margin are the extremes of their own kind."""
    algorithm = next(a for a in CATALOG if (a.collective, a.name) == ("allreduce", "wrht"))
    ring = Ring(256, 1, 64)
    plan = plan_algorithm(algorithm, ring, algorithm.resolve(ring), [2**26])
    report = evaluate_plan(plan, OpticalParameters())
    assert not report.feasible and report.worst is not None
    assert report.worst.blocking.startswith("power: margin")
    assert report.worst.hops == max(s.max_hops for s in report.stages)
    assert report.worst.min_laser_power_dbm == report.min_laser_power_dbm
    passing = [s for s in report.stages if s.failing == 0]
    assert passing and max(s.worst_ber for s in passing) > report.worst.ber  # the old pick
    assert min(s.worst_margin_db for s in report.stages) == report.worst.margin_db


@pytest.mark.parametrize(
    ("collective", "nodes", "algorithm", "shape", "noise_dbm"),
    [("alltoall", 24, "tra2", "paper", None), ("allgather", 11, "ring", "paper", None),
     ("allgather", 16, "optree", "paper", None), ("allreduce", 12, "hring", "paper", None),
     # noise this high makes the BER, not the power margin, decide the least power
     ("allgather", 11, "ring", "paper", -12.0), ("allgather", 11, "ring", "paper", -13.65),
     ("allgather", 16, "optree", "paper", -14.0)],
)  # fmt: skip
def test_the_least_laser_power_reported_is_enough(
    collective: str, nodes: int, algorithm: str, shape: str, noise_dbm: float | None
) -> None:
    """Fuzz of plan documents (session 35): a plan reported its least laser power as
    4.300000000000001 dBm (printed 4.30), and planned again at 4.3 it was infeasible by
    8.9e-16 dB; where the BER decides, the power rounded to 1e-9 failed the strict BER
    check by 2e-9 relative (review, session 35). The reported power, and the power the CLI
    and page print (0.01 dBm, rounded up), given back, make the plan feasible; 0.01 dB less
    does not."""
    from app.planning import prepare
    from app.presentation.text import laser_text
    from app.schemas.requests import PlanRequest
    from app.service import answer

    def feasibility(laser_dbm: float | None) -> Any:
        body: dict[str, Any] = {
            "ring": {"nodes": nodes, "wavelengths_per_fiber": 1}, "collective": collective,
            "algorithms": [algorithm], "shape": shape, "message_sizes_bytes": [4096],
            "optics": {},
        }  # fmt: skip
        if laser_dbm is not None:
            body["optics"]["laser_power_dbm"] = laser_dbm
        if noise_dbm is not None:
            body["optics"]["other_noise_dbm"] = noise_dbm
        return answer(prepare(PlanRequest.model_validate(body))).algorithms[0].feasibility

    first = feasibility(None)
    need = first.min_laser_power_dbm
    assert need is not None
    if noise_dbm is not None:  # the BER decides here, not the power margin
        assert need > first.parameters.laser_power_dbm - first.margin_db + 0.01
    assert feasibility(need).feasible
    assert feasibility(float(laser_text(need))).feasible
    assert not feasibility(need - 0.01).feasible
