"""The validator accepts exactly the conflict-free, complete assignments."""

import pytest

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
