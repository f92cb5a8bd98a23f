"""The validator accepts exactly the conflict-free, complete assignments."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from models.errors import InvalidAssignmentError
from models.ring import Direction
from models.stage import Stage
from solver.assignment import Assignment
from solver.validator import validate


def stage() -> Stage:
    # 0->2 (k=2), 1->3, on 4 nodes
    return Stage.from_demands(4, [0, 1], [2, 3], [2, 1])


def test_accepts_valid() -> None:
    a = Assignment.from_runs([0, 0, 1], [0, 1, 0], [0, 0, 1], [1, 1, 1])
    report = validate(stage(), a)
    assert report.unit_lightpaths == 3 and report.colours_used == 2


def test_rejects_conflict_on_shared_link() -> None:
    # 0->2 CW uses links 0, 1; 1->3 CW uses links 1, 2: same colour 0 conflicts on link 1.
    a = Assignment.from_runs([0, 0, 1], [0, 1, 0], [0, 0, 0], [1, 1, 1])
    with pytest.raises(InvalidAssignmentError, match="conflict"):
        validate(stage(), a)


def test_rejects_two_units_of_one_demand_on_one_colour() -> None:
    a = Assignment.from_runs([0, 0, 1], [0, 0, 1], [0, 0, 0], [1, 1, 1])
    with pytest.raises(InvalidAssignmentError, match="conflict"):
        validate(stage(), a)


def test_rejects_wrap_around_conflict() -> None:
    # 3->1 CW uses links 3, 0; 0->1 CW uses link 0.
    s = Stage.from_demands(4, [3, 0], [1, 1], [1, 1])
    with pytest.raises(InvalidAssignmentError, match="conflict"):
        validate(s, Assignment.from_runs([0, 1], [0, 0], [5, 5], [1, 1]))
    validate(s, Assignment.from_runs([0, 1], [0, 0], [5, 6], [1, 1]))


def test_opposite_directions_never_conflict() -> None:
    s = Stage.from_demands(4, [0, 2], [2, 0], [1, 1])
    validate(s, Assignment.from_runs([0, 1], [0, 1], [0, 0], [1, 1]))  # CW 0->2, CCW 2->0


def test_rejects_missing_and_extra_units() -> None:
    with pytest.raises(InvalidAssignmentError, match="needs 2 lightpaths"):
        validate(stage(), Assignment.from_runs([0, 1], [0, 0], [0, 1], [1, 1]))
    with pytest.raises(InvalidAssignmentError, match="needs 2 lightpaths"):
        validate(stage(), Assignment.from_runs([0, 1], [0, 0], [0, 3], [3, 1]))


def test_rejects_forbidden_direction() -> None:
    s = Stage.from_demands(4, [0], [2], [1], [Direction.CW])
    with pytest.raises(InvalidAssignmentError, match="direction"):
        validate(s, Assignment.from_runs([0], [1], [0], [1]))


@pytest.mark.parametrize("chunk", [1, 2, 3, 1000])
def test_colour_windows_find_every_conflict(chunk: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked a few colours at a time, a run spanning several windows is split correctly:
    units of one demand on colours 0..5 are fine; a second run overlapping colour 4 is not."""
    import solver.validator as validator

    monkeypatch.setattr(validator, "CHUNK_UNITS", chunk)
    ring_stage = Stage.from_demands(4, [0, 1], [2, 3], [6, 1])
    fine = Assignment.from_runs([0, 1], [0, 0], [0, 6], [6, 1])
    assert validate(ring_stage, fine).colours_used == 7
    clash = Assignment.from_runs([0, 1], [0, 0], [0, 4], [6, 1])
    with pytest.raises(InvalidAssignmentError, match="colour 4"):
        validate(ring_stage, clash)


def test_a_window_of_colours_no_run_uses_is_skipped(monkeypatch: pytest.MonkeyPatch) -> None:
    """Three units on colours 0, 1 and 30, checked one unit's worth of colours at a time: the
    windows are [0, 10), [10, 21), [21, 31), and the middle one holds nothing."""
    import solver.validator as validator

    monkeypatch.setattr(validator, "CHUNK_UNITS", 1)
    s = Stage.from_demands(4, [0, 1, 2], [1, 2, 3], [1, 1, 1])
    report = validate(s, Assignment.from_runs([0, 1, 2], [0, 0, 0], [0, 1, 30], [1, 1, 1]))
    assert report.colours_used == 31 and report.unit_lightpaths == 3


def _brute_conflict(stage: Stage, a: Assignment) -> bool:
    """Two unit lightpaths on one direction and colour sharing a link, link by link."""
    n = stage.nodes
    held: set[tuple[int, int, int]] = set()
    demand, direction, colour = a.expand()
    for i, way, c in zip(demand.tolist(), direction.tolist(), colour.tolist(), strict=True):
        s, d = int(stage.sources[i]), int(stage.destinations[i])
        first, hops = (s, (d - s) % n) if way == Direction.CW else (d, (s - d) % n)
        for link in range(first, first + hops):
            if (way, c, link % n) in held:
                return True
            held.add((way, c, link % n))
    return False


@pytest.mark.parametrize("chunk", [1, 3, 10**6])  # unit lightpaths a colour window holds
@pytest.mark.parametrize("cells_per_piece", [0, 10**9])  # always sorted / always counted
@given(data=st.data())
@settings(max_examples=100, deadline=None)
def test_conflicts_found_exactly_as_link_by_link(
    cells_per_piece: int, chunk: int, data: st.DataObject
) -> None:
    """Random stages and colourings: the validator rejects exactly the assignments with two
    units on one direction, colour and link, whichever way it checks (the per-link count or
    the sort) and however many colour windows it splits them into (runs spanning several)."""
    import solver.validator as validator

    n = data.draw(st.integers(2, 9))
    pairs = data.draw(st.lists(
        st.tuples(st.integers(0, n - 1), st.integers(1, n - 1), st.integers(1, 3),
                  st.sampled_from([Direction.CW, Direction.CCW]), st.integers(0, 5)),
        min_size=1, max_size=8, unique_by=lambda p: (p[0], p[1])))  # one demand per pair
    s = Stage.from_demands(n, [p[0] for p in pairs], [(p[0] + p[1]) % n for p in pairs],
                           [p[2] for p in pairs])
    pair_of = zip(s.sources.tolist(), s.destinations.tolist(), strict=True)
    index = {pair: i for i, pair in enumerate(pair_of)}
    a = Assignment.from_runs([index[(p[0], (p[0] + p[1]) % n)] for p in pairs],
                             [int(p[3]) for p in pairs],
                             [p[4] for p in pairs], [p[2] for p in pairs])
    saved = validator.DENSE_CELLS_PER_PIECE, validator.CHUNK_UNITS
    validator.DENSE_CELLS_PER_PIECE, validator.CHUNK_UNITS = cells_per_piece, chunk
    try:
        if _brute_conflict(s, a):
            with pytest.raises(InvalidAssignmentError, match="conflict"):
                validate(s, a)
        else:
            validate(s, a)
    finally:
        validator.DENSE_CELLS_PER_PIECE, validator.CHUNK_UNITS = saved
