"""Plan requests checked before anything is solved (app/planning.py `prepare`)."""

from __future__ import annotations

import pytest

from app.planning import _reach_note, prepare
from app.schemas.requests import PlanRequest
from models.algorithms.base import Collective
from models.errors import InvalidInputError
from solver.catalog import algorithms

VALUES = (0, [], [0], [2, 0], 8192)
CASES = [
    (collective, algorithm.name, spec.name, value)
    for collective in Collective
    for algorithm in algorithms(collective)
    for spec in algorithm.params
    for value in VALUES
]


@pytest.mark.parametrize(("collective", "name", "key", "value"), CASES)
def test_a_parameter_with_every_algorithm_is_checked_like_a_named_one(
    collective: Collective, name: str, key: str, value: object
) -> None:
    """Review (session 34): explicit parameters with "algorithms": "all" reached the
    families' refusals unchecked: 127 of 246 such requests were a 500 (ZeroDivisionError
    for H-Ring's group 0, IndexError, AssertionError). Whatever the value, `prepare`
    either accepts it or refuses it as the caller's to change (InvalidInputError: 400/422),
    and it refuses it with "all" exactly when it refuses it for that algorithm alone, or
    skips the algorithm for this ring."""
    body = {
        "ring": {"nodes": 8, "wavelengths_per_fiber": 2},
        "collective": collective.value,
        "parameters": {name: {key: value}},
        "message_sizes_bytes": [65536],
    }
    try:
        alone: InvalidInputError | None = None
        prepare(PlanRequest.model_validate(body | {"algorithms": [name]}))
    except InvalidInputError as refused:
        alone = refused
    try:
        spec = prepare(PlanRequest.model_validate(body))
    except InvalidInputError as refused:
        assert alone is not None, refused.message
        return
    if alone is not None:  # accepted with "all" only by skipping it, with its reason
        assert name in dict(spec.skipped)


def test_a_shape_for_an_algorithm_the_ring_skips_is_not_an_error() -> None:
    """Review (session 34): `"shape": {"rd": "paper"}` with every algorithm on N = 6 was a
    400 "shape given for rd, which is not among the algorithms" (RD was only skipped: N is
    not a power of two), so a sweep over N = 6 and 8 failed its N = 6 point. RD is skipped
    with its reason; a name that is no algorithm of the collective is still refused."""
    body = {
        "ring": {"nodes": 6, "wavelengths_per_fiber": 2},
        "collective": "allreduce",
        "shape": {"rd": "paper"},
        "message_sizes_bytes": [65536],
    }
    spec = prepare(PlanRequest.model_validate(body))
    assert "power" in dict(spec.skipped)["rd"]
    with pytest.raises(InvalidInputError, match="osm"):
        prepare(PlanRequest.model_validate(body | {"shape": {"osm": "paper"}}))


def test_an_electrical_simulation_beyond_its_hosts_is_refused_before_solving() -> None:
    """Review (session 34): N = 8192 with the simulated electrical baseline solved the
    optical plan for 10 s, then failed "simulate 2 to 4096 hosts, got 8192" without saying
    what to change. Refused by `prepare` now, naming the way out; without the simulation
    (Hockney times) the same ring is accepted."""
    from solver.electrical_sim import simgrid_available

    if not simgrid_available():
        pytest.skip("SimGrid is not installed: the baseline gives Hockney times only")
    body = {
        "ring": {"nodes": 8192, "wavelengths_per_fiber": 1},
        "collective": "allreduce",
        "algorithms": ["ring"],
        "electrical": True,
        "message_sizes_bytes": [65536],
    }
    with pytest.raises(InvalidInputError, match="simulate to false"):
        prepare(PlanRequest.model_validate(body))
    prepare(PlanRequest.model_validate(body | {"electrical_network": {"simulate": False}}))


def test_an_unknown_algorithm_name_is_not_echoed_whole() -> None:
    """Review (session 34): a 100000-character algorithm name came back whole in the 404."""
    from models.errors import UnknownAlgorithmError

    body = {"ring": {"nodes": 8, "wavelengths_per_fiber": 2}, "collective": "allgather",
            "algorithms": ["x" * 100_000], "message_sizes_bytes": [65536]}
    with pytest.raises(UnknownAlgorithmError) as refused:
        prepare(PlanRequest.model_validate(body))
    assert "x" * 64 in refused.value.message and "x" * 65 not in refused.value.message


def test_a_plan_whose_every_algorithm_is_skipped_while_solving_is_refused() -> None:
    """Fuzz of plan documents (session 34): an all-to-all on N = 8 within 2 hops, one
    lightpath received a slot, with a 1.84 dBm laser (no lightpath reliable): every
    algorithm was skipped while solving (synth by the optics, TRA by the hop limit, TRA2 by
    the node-limited scheduler's size, optimal by the exact model's), the document had no
    rows and no recommendation, and the CLI's table raised IndexError. Refused with every
    reason now."""
    from app.service import answer
    from models.errors import AlgorithmRefusedError

    body = {
        "ring": {"nodes": 8, "wavelengths_per_fiber": 2}, "collective": "alltoall",
        "message_sizes_bytes": [64], "max_lightpath_hops": 2, "max_rx_per_node": 1,
        "optics": {"laser_power_dbm": 1.84},
    }  # fmt: skip
    with pytest.raises(AlgorithmRefusedError) as refused:
        answer(prepare(PlanRequest.model_validate(body)))
    assert refused.value.message.startswith("no algorithm could be planned for this request: ")
    skipped = {s["algorithm"] for s in refused.value.detail["skipped"]}
    assert skipped == {"synth", "optimal", "tra", "tra2"}


def test_a_request_no_algorithm_accepts_says_why_for_each() -> None:
    """Review E (session 34): a reduce-scatter on N = 15, F = 2, w = 10 with a 0.43 dBm laser
    was refused as "no reducescatter algorithm accepts N=15 with these parameters" though
    none were given; the reasons collected while choosing (synth: the optics; optimal: its
    model's size) were dropped. They are the message and `detail.skipped` now."""
    from models.errors import AlgorithmRefusedError

    body = {
        "ring": {"nodes": 15, "fibers_per_direction": 2, "wavelengths_per_fiber": 10},
        "collective": "reducescatter", "message_sizes_bytes": [2**20],
        "optics": {"laser_power_dbm": 0.43},
    }  # fmt: skip
    with pytest.raises(AlgorithmRefusedError) as refused:
        prepare(PlanRequest.model_validate(body))
    message = refused.value.message
    assert "with these parameters" not in message
    assert "synth: with these optics not even a one-hop lightpath can be reliable" in message
    assert {s["algorithm"] for s in refused.value.detail["skipped"]} == {"synth", "optimal"}


def test_a_hop_limit_refusal_names_the_optics_when_they_reach_less() -> None:
    """Review E (session 34): with optics whose reach is 0 hops and max_lightpath_hops 1,
    TRA was refused as "no shape of tra keeps to max_lightpath_hops = 1", which asks the user
    to raise a limit that is not what binds; the refusal now says the optics do not carry
    even one hop. With optics that reach further than the limit it says nothing more."""
    from app.service import answer
    from models.errors import AlgorithmRefusedError

    def refusal(laser_dbm: float) -> str:
        body = {
            "ring": {"nodes": 8, "wavelengths_per_fiber": 4}, "collective": "alltoall",
            "message_sizes_bytes": [2**20], "max_lightpath_hops": 1, "algorithms": ["tra"],
            "optics": {"laser_power_dbm": laser_dbm},
        }  # fmt: skip
        with pytest.raises(AlgorithmRefusedError) as refused:
            answer(prepare(PlanRequest.model_validate(body)))
        return refused.value.message

    dark = refusal(-3.0)
    assert dark.startswith("no shape of tra keeps to max_lightpath_hops = 1")
    assert "not even a one-hop lightpath can be reliable: raise laser_power_dbm" in dark

    def note(laser_dbm: float, max_hops: int) -> str:
        body = {
            "ring": {"nodes": 64, "wavelengths_per_fiber": 4}, "collective": "alltoall",
            "message_sizes_bytes": [2**20], "max_lightpath_hops": max_hops,
            "algorithms": ["tra"], "optics": {"laser_power_dbm": laser_dbm},
        }  # fmt: skip
        return _reach_note(prepare(PlanRequest.model_validate(body)))

    assert note(3.0, 20) == (  # a 3 dBm laser reaches 10 hops (longest_reliable_hops)
        "; besides, with these optics no lightpath of more than 10 hops can be reliable")
    assert note(3.0, 10) == note(10.0, 20) == ""  # the limit binds, not the optics


def test_a_routing_constraint_never_costs_fewer_than_no_steps() -> None:
    """Fuzz of plan documents (session 35): WRHT all-gather (group 2, 4 levels) on N = 58,
    F = 3, w = 1, at most 2 lightpaths sent and 1 received a slot, within 46 hops: 280
    steps, every stage at its bound; routed freely the first-fit scheduler took 332, and
    `steps_cost` read -52. The limited schedule is one without the limit too."""
    from app.service import answer

    body = {
        "ring": {"nodes": 58, "fibers_per_direction": 3, "wavelengths_per_fiber": 1},
        "collective": "allgather", "algorithms": ["wrht"],
        "parameters": {"wrht": {"group": 2, "levels": 4}}, "max_tx_per_node": 2,
        "max_rx_per_node": 1, "max_lightpath_hops": 46, "message_sizes_bytes": [65536],
    }  # fmt: skip
    row = answer(prepare(PlanRequest.model_validate(body))).algorithms[0]
    constraint = row.routing_constraint
    assert constraint is not None and constraint.steps_cost >= 0
    assert constraint.true_steps_unconstrained <= row.true_steps


def test_an_explicit_shape_is_planned_when_the_paper_shape_is_beyond_the_node_limits() -> None:
    """Fuzz of plan documents (session 35): TRA2 with Q = 2 on N = 7, F = 3, w = 4, at most 4
    lightpaths sent a slot, was refused (413, "... fewer processes per node for TRA2") for
    its paper shape (Q = 64: 3584 colour classes, beyond the node-limited scheduler), solved
    beside it; the explicit shape has 56 lightpaths. It is planned within the limits now,
    the paper's shape without them, and the document says so."""
    from app.service import answer

    body = {
        "ring": {"nodes": 7, "fibers_per_direction": 3, "wavelengths_per_fiber": 4},
        "collective": "alltoall", "algorithms": ["tra2"],
        "parameters": {"tra2": {"processes_per_node": 2, "radix_inter": 4, "radix_intra": 2}},
        "max_tx_per_node": 4, "message_sizes_bytes": [4096],
    }  # fmt: skip
    row = answer(prepare(PlanRequest.model_validate(body))).algorithms[0]
    assert row.parameters["processes_per_node"] == 2
    assert row.true_steps >= row.steps_lower_bound > 0
    note = row.shapes.paper_beyond_node_limits
    assert note is not None and "node-limited schedule" in note
    assert row.shapes.paper.parameters["processes_per_node"] == 64
