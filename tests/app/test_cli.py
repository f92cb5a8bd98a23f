"""The CLI contract: `rwaopt algorithms`, `rwaopt rwa`, `rwaopt plan`, and their errors."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from app.cli import cli

runner = CliRunner()


def run(*args: str, stdin: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(cli, list(args), input=stdin)
    return result.exit_code, result.stdout, result.stderr


def test_algorithms_json_at_paper_scale() -> None:
    code, out, _ = run("algorithms", "--nodes", "1024", "--wavelengths", "64", "--json")
    assert code == 0
    entries = json.loads(out)
    # the papers' 12, then synth and optimal per collective (reduce-scatter: those alone)
    assert len(entries) == 12 + 8
    designed = [e for e in entries if e["name"] in ("synth", "optimal")]
    assert len(designed) == 8 and all(e["claimed"] is None for e in designed)
    names = [e["name"] for e in entries if e["collective"] == "reducescatter"]
    assert names == ["synth", "optimal"]
    entries = [e for e in entries if e["name"] not in ("synth", "optimal")]
    claimed = {(e["collective"], e["name"]): e["claimed_steps"] for e in entries}
    assert claimed[("allgather", "optree")] == 70
    assert claimed[("allgather", "wrht")] == 259
    assert claimed[("allgather", "osm")] == 2048
    tra = next(e for e in entries if e["name"] == "tra")
    assert claimed[("alltoall", "tra")] is None  # K counts rounds, not optical steps
    assert tra["claimed"] == {"value": 62, "unit": "rounds"}
    for e in entries:
        assert e["closed_form"]["source"] and e["closed_forms"][0]["text"]


def test_rwa_json(tmp_path: Path) -> None:
    stage = {
        "nodes": 6,
        "fibers": 1,
        "wavelengths": 2,
        "demands": [[0, 3, 2], [1, 4, 1], [2, 5, 1, "cw"], [5, 0, 1, "ccw"]],
    }
    path = tmp_path / "stage.json"
    path.write_text(json.dumps(stage))
    code, out, _ = run("rwa", "--input", str(path), "--json")
    assert code == 0
    payload = json.loads(out)
    assert set(payload) >= {"chi", "lower_bound", "status", "steps", "method", "assignment"}
    # Link 0..2 CW/CCW: 0->3 twice and 1->4 and 2->5(cw) cross links 1-2 clockwise or not;
    # the optimum is 3 channels (load bound), so 2 slots with 2 wavelengths.
    assert (payload["chi"], payload["steps"], payload["status"]) == (3, 2, "optimal")
    assert len(payload["assignment"]) == 5
    assert {p["direction"] for p in payload["assignment"] if p["source"] == 2} == {"cw"}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"nodes": 6, "demands": [[0, 9, 1]]}, "outside the ring"),
        ({"nodes": 6, "demands": [[2, 2, 1]]}, "source equals destination"),
        ({"nodes": 6, "demands": [[0, 1, 0]]}, "k >= 1"),
        ({"nodes": 1, "demands": []}, "nodes"),
        ({"nodes": 6, "wavelengths": 0, "demands": [[0, 1, 1]]}, "wavelengths"),
        ({"nodes": 6, "demands": [[0, 1]]}, "demand 0"),
    ],
)
def test_rwa_bad_input_exits_nonzero(body: dict, message: str) -> None:
    code, _, err = run("rwa", "--input", "-", "--json", stdin=json.dumps(body))
    assert code == 2
    assert message in err


def test_rwa_unreadable_file() -> None:
    code, _, err = run("rwa", "--input", "/nonexistent/stage.json")
    assert code == 2 and "cannot read" in err


def test_plan_json_contract() -> None:
    code, out, _ = run(
        "plan",
        "--collective",
        "allgather",
        "--algorithm",
        "optree",
        "--param",
        "branching=4,4",
        "--nodes",
        "16",
        "--wavelengths",
        "2",
        "--message-bytes",
        "1048576",
        "--json",
    )
    assert code == 0
    doc = json.loads(out)
    assert doc["ring"] == {"nodes": 16, "fibers_per_direction": 1, "wavelengths_per_fiber": 2}
    (plan,) = doc["algorithms"]
    assert doc["recommendation"][0]["algorithm"] == "optree"
    assert set(plan) >= {"claimed_steps", "true_steps", "time_s", "stages", "shapes"}
    assert plan["shape"] == "explicit" and plan["parameters"]["branching"] == [4, 4]
    # the paper's shape at N = 16: k* = 3 levels, 16 = 4 x 2 x 2
    assert plan["shapes"]["paper"]["parameters"]["branching"] == [4, 2, 2]
    for stage in plan["stages"]:
        assert set(stage) >= {"chi", "steps", "lower_bound", "status"}
    # The paper's motivation example: 4 + 8 = 12 steps with the 4-ary two-stage tree.
    assert [s["steps"] for s in plan["stages"]] == [4, 8]


def test_plan_refusal_says_what_works() -> None:
    code, _, err = run(
        "plan",
        "--collective",
        "allreduce",
        "--algorithm",
        "rd",
        "--nodes",
        "12",
        "--wavelengths",
        "8",
        "--message-bytes",
        "1",
    )
    assert code == 2 and "use N=8 or N=16" in err


def test_plan_unknown_parameter() -> None:
    code, _, err = run(
        "plan",
        "--collective",
        "allgather",
        "--algorithm",
        "ring",
        "--param",
        "radix=3",
        "--nodes",
        "8",
        "--wavelengths",
        "8",
        "--message-bytes",
        "1",
    )
    assert code == 2 and "has no parameter radix" in err


GOLDEN = Path(__file__).with_name("golden")
GOLDEN_ARGS = (
    "plan", "--collective", "allreduce", "--algorithm", "ring", "--algorithm", "rd",
    "--nodes", "4", "--wavelengths", "2", "--message-bytes", "4096", "--message-bytes", "1048576",
)  # fmt: skip


@pytest.mark.parametrize(
    ("flag", "golden"), [((), "plan_allreduce_n4.txt"), (("--csv",), "plan_allreduce_n4.csv")]
)
def test_plan_golden(flag: tuple[str, ...], golden: str) -> None:
    """The golden files were checked by hand against OpTree eq. (3), slot = d/B + a:
    ring all-reduce N=4 moves 2 (N-1) = 6 chunks of m/4; at m = 4096 B a slot is
    1024 * 8 / 40e9 + 25e-6 + 32 flits / 4e9 = 25.2128 us, so 151.2768 us; RD takes
    log2 4 = 2 slots of the whole message: 2 (4096 * 8 / 40e9 + 25e-6 + 128 / 4e9) =
    51.7024 us; at 1 MiB ring 6 * 79.4768 us = 476.8608 us beats RD 2 * 242.9072 us.
    Optics (eqs. 5-9, default parameters, eq. 9 read linearly): a ring lightpath i -> i+1 has
    1 hop, and its destination also transmits on the same fibre and slot, so 1 Rx neighbour:
    loss 1 + 0.1 = 1.1 dB, margin 10 - 1.1 - 1 = 7.90 dB, signal 8.9 dBm over noise
    1e-4 + 1e-4 mW (-36.99 dBm): SNR 45.89 dB = a ratio of 3.9e4, BER 0.5 e^(-3.9e4/4),
    below the smallest double ("< 1e-308");
    BER 1e-9 needs a ratio of 4 ln(0.5e9) = 80.1 (19.04 dB), i.e. a laser of
    1.1 + 19.04 - 36.99 = -16.85 dBm, so power decides: 1.1 + 1 = 2.10 dBm. RD's longest
    lightpath has 2 hops: margin 7.80 dB, 2.20 dBm. L_max = N - 1 = 3. Neither has a shape
    to search, so 'best' is the paper's.
    Achievable (docs/achievable.md), hop limit min(3, 80): X = 2 (N-1) m = 24576 B over
    N x 4 lightpaths = 1536 B. In 1 slot (and 2) each of the 4 far pairs (u, u + 2) needs a
    lightpath chain of its own (Fact 3d: a slot-1 lightpath carries only its sender's
    contribution on, a last-slot one only to its receiver), 2 hops each: Y = 8 m. And a
    slot-1 lightpath brings one contribution (cap 1; from slot 2 on cap 3 = N - 1), so in
    1 slot every contribution's tree (d = 1, 2, 1) pays its excess 1 four times over: Y =
    2 N - 2 + 4 = 10 m (Fact 3g) = 40960 B over 2 N C = 16 link-channels = 2560 B: 25 us +
    2560 B / 5 GB/s + 80 cycles = 25.532 us, least at 1 slot, where Fact 3g
    ('gossip_trees') sets the bytes. At 1 MiB that is 25 + 131.072 + 5.12 = 161.192 us, and
    2 slots cost the far chains' 8 m (50 + 104.8576 + 4.096 = 158.9536 us); 3 slots need
    only the gossip count 6 m (2 x 3 >= N - 1: 1-hop chains both ways, no excess), which the
    bytes a node receives also need: 75 + 78.6432 + 3.072 = 156.7152 us, least at 3 where
    Fact 3 ('link_capacity') sets them. Fractions: 151.2768 -> 16.9 %, 51.7024 -> 49.4 %,
    476.8608 -> 32.9 %, 485.8144 -> 32.3 %.
    Reduce-then-broadcast (docs/achievable.md): at least 2 ceil(2 / 3) = 2 slots, and per
    element an in-tree and an out-tree, F(4, 1) = 1 + 2 + 1 = 4 hops each at S = 2 (F(4, 2)
    = 3 at S = 4): Y = 8 m over 16 link-channels. At 4 KiB: 2 x 25 us + 2048 B / 5 GB/s +
    64 cycles = 50.4256 us (1.97x); at 1 MiB 50 + 104.8576 + 4.096 = 158.9536 us (S = 3:
    7 m, 170.33; S = 4: 6 m, 181.72), 1.01x, and ring, which is in the class, 3x it (RD
    forms every sum at both partners: outside it). Both are feasible; recommended: RD at
    4 KiB (51.7024 < 151.2768 us), ring at 1 MiB (476.8608 < 485.8144 us), each in its
    only shape ({}) at its row's time."""
    code, out, _ = run(*GOLDEN_ARGS, *flag)
    assert code == 0
    assert out == (GOLDEN / golden).read_text()


def test_plan_reports_paper_and_best_shapes() -> None:
    """At N = 64, w = 8 the paper's OpTree (k* = 4: 4,4,2,2) and the searched best, both
    proven; the best is never slower."""
    code, out, _ = run("plan", "--collective", "allgather", "--algorithm", "optree",
                       "--nodes", "64", "--wavelengths", "8", "--message-bytes", "1048576",
                       "--json")  # fmt: skip
    assert code == 0
    (plan,) = json.loads(out)["algorithms"]
    shapes = plan["shapes"]
    assert shapes["paper"]["parameters"]["branching"] == [4, 4, 2, 2]
    assert shapes["search"]["exhaustive"]
    assert shapes["search"]["evaluated"] + shapes["search"]["pruned"] >= 20
    assert plan["true_steps"] == shapes["best"]["true_steps"] <= shapes["paper"]["true_steps"]
    assert plan["time_s"] <= shapes["paper"]["times_s"][0]
    code, out, _ = run("plan", "--collective", "allgather", "--algorithm", "optree",
                       "--nodes", "64", "--wavelengths", "8", "--message-bytes", "1048576",
                       "--shape", "paper", "--json")  # fmt: skip
    (paper,) = json.loads(out)["algorithms"]
    assert paper["shape"] == "paper" and paper["shapes"]["search"] is None
    assert paper["true_steps"] == shapes["paper"]["true_steps"]


def test_plan_bad_shape() -> None:
    code, _, err = run("plan", "--collective", "allgather", "--nodes", "8", "--wavelengths",
                       "2", "--message-bytes", "1", "--shape", "widest")  # fmt: skip
    assert code == 2 and "use 'best' or 'paper'" in err


def test_tra_claims_rounds_not_steps() -> None:
    code, out, _ = run("plan", "--collective", "alltoall", "--algorithm", "tra", "--nodes",
                       "16", "--wavelengths", "4", "--message-bytes", "4096", "--shape",
                       "paper", "--json")  # fmt: skip
    assert code == 0
    (tra,) = json.loads(out)["algorithms"]
    assert tra["claimed"]["unit"] == "rounds" and tra["claimed"]["value"] == 6  # r = 4: 2 x 3
    assert tra["claimed_steps"] is None and tra["steps_difference"] is None
    assert tra["message_counts"] == {"rounds": 6, "blocks_sent_per_process": 24,
                                     "counted_on": "schedule"}  # fmt: skip


def test_algorithms_unknown_collective() -> None:
    code, _, err = run("algorithms", "--collective", "broadcast")
    assert code == 2 and "use one of: allgather, allreduce, alltoall" in err


PLAN8 = ("plan", "--collective", "allgather", "--nodes", "8", "--wavelengths", "4",
         "--message-bytes", "4096")  # fmt: skip


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ("--optics", "bogus=1"),
            "--optics bogus: not a key of --optics; its keys: laser_power_dbm, ",
        ),
        (
            ("--hardware", "bogus=1"),
            "--hardware bogus: not a key of --hardware; its keys: bandwidth",
        ),
        (("--optics", "laser_power_dbm=abc"), "--optics laser_power_dbm"),
        (("--optics", "laser_power_dbm"), "write key=value"),
        (("--max-hops", "x"), "give a number of hops or 'loss_budget'"),
        (("--algorithm", "osm", "--max-hops", "2"), "more than the limit of 2"),
        (
            ("--max-hops", "loss_budget", "--optics", "snr_scale=db"),  # eq. (9) as printed
            "not even a one-hop lightpath",
        ),
        (("--json", "--csv"), "choose one of --json and --csv"),
        # numbers given as key=value reach the schema as numbers, checked there
        (("--hardware", "flit_bytes=0"), "--hardware flit_bytes: Input should be greater than"),
        (("--hardware", "flit_bytes=32.5"), "--hardware flit_bytes: Input should be a valid int"),
        (
            ("--hardware", "flit_bytes=abc"),
            "--hardware flit_bytes: a number is needed here, not the string 'abc'",
        ),
        (("--algorithm", "all", "--algorithm", "ring"), "--algorithm all already names every"),
    ],
)
def test_plan_option_errors(extra: tuple[str, ...], message: str) -> None:
    code, _, err = run(*PLAN8, *extra)
    assert code == 2 and message in err
    assert "Value error" not in err  # pydantic's prefix for a validator's own text


def test_a_rule_across_fields_names_the_flags() -> None:
    code, _, err = run(*PLAN8[:-2])
    assert code == 2
    assert err == "error: options: give at least 1 message size: --message-bytes or --workload\n"


def test_hardware_numbers_set_the_slot_time() -> None:
    """--hardware flit_bytes=16 used to be refused ("a number is needed here, not the string
    '16'"). One Ring slot at N = 2 moves one 4096-byte item: 4096 * 8 / 40 Gb/s + 25 us +
    ceil(4096 / flit) cycles at 4 GHz, so halving the flit adds 128 cycles = 32 ns."""
    times = []
    for flit in ("32", "16"):
        code, out, _ = run(
            "plan",
            "--collective",
            "allgather",
            "--nodes",
            "2",
            "--wavelengths",
            "1",
            "--message-bytes",
            "4096",
            "--algorithm",
            "ring",
            "--json",
            "--hardware",
            f"flit_bytes={flit}",
            "--hardware",
            "clock_ghz=4",
        )
        assert code == 0
        times.append(json.loads(out)["algorithms"][0]["time_s"])
    assert times[0] == pytest.approx(4096 * 8 / 40e9 + 25e-6 + 128 / 4e9, rel=1e-12)
    assert times[1] - times[0] == pytest.approx(128 / 4e9, rel=1e-9)


def test_plan_optics_and_hop_limit() -> None:
    code, out, _ = run(*PLAN8, "--algorithm", "ring", "--algorithm", "osm", "--max-hops", "4",
                       "--optics", "snr_scale=linear", "--json")  # fmt: skip
    assert code == 0
    ring, osm = json.loads(out)["algorithms"]
    # Ring all-gather: one-hop lightpaths, read linearly reliable (see the REST test).
    assert ring["feasibility"]["feasible"] and ring["feasibility"]["max_hops"] == 1
    assert osm["feasibility"]["max_hops"] <= 4
    assert osm["routing_constraint"]["max_lightpath_hops"] == 4
    assert osm["feasibility"]["parameters"]["snr_scale"] == "linear"


def test_plan_with_the_electrical_baseline() -> None:
    """The optical ring beside E-Ring and E-RD on the fat-tree at N = 128, 64 MiB."""
    code, out, _ = run("plan", "--collective", "allreduce", "--nodes", "128", "--wavelengths",
                       "64", "--message-bytes", "67108864", "--algorithm", "ring",
                       "--algorithm", "wrht", "--shape", "paper", "--electrical",
                       "--json")  # fmt: skip
    assert code == 0
    doc = json.loads(out)
    electrical = doc["electrical"]
    e_ring, e_rd = electrical["algorithms"]
    assert (e_ring["algorithm"], e_ring["steps"]["value"]) == ("e-ring", 254)
    assert (e_rd["algorithm"], e_rd["steps"]["value"]) == ("e-rd", 7)
    # eq. (8) and (9) by hand: see tests/models/test_electrical.py
    assert e_ring["timings"][0]["hockney_s"] == pytest.approx(0.04896412864)
    assert e_rd["timings"][0]["hockney_s"] == pytest.approx(0.15049885536)
    for e in (e_ring, e_rd):
        simulated = e["timings"][0]["simulated_s"]
        assert simulated is not None and simulated >= e["timings"][0]["hockney_route_s"] * 0.99
    assert e_rd["timings"][0]["simulation"]["delivered"] is True  # full simulation at 128
    # Every optical time here is below every electrical one, so optics wins at every size.
    optical = min(a["timings"][0]["time_s"] for a in doc["algorithms"])
    assert optical < e_ring["timings"][0]["hockney_s"]
    assert electrical["crossover_bytes"] is None
    assert "optics is faster" in electrical["crossover_note"]
    (advice,) = doc["recommendation"]
    assert advice["network"] == "optical" and "electrical fat-tree" in advice["why"]


def test_electrical_baseline_is_for_allreduce() -> None:
    code, _, err = run(*PLAN8, "--electrical")
    assert code == 2 and "compares all-reduce" in err


def test_workload_presets_are_message_sizes() -> None:
    code, out, _ = run("plan", "--collective", "allreduce", "--algorithm", "ring", "--nodes",
                       "8", "--wavelengths", "4", "--workload", "googlenet", "--json")  # fmt: skip
    assert code == 0
    (timing,) = json.loads(out)["algorithms"][0]["timings"]
    assert timing["message_bytes"] == pytest.approx(6.7977e6 * 4)


def test_the_bound_names_its_fact_as_the_docs_do() -> None:
    """`decided_by` keys are shown with the fact of docs/achievable.md that proves them; a key
    this version does not know (a plan stored by a later one) is shown as it is."""
    from app.presentation.text import fact_text

    assert fact_text("two_ends") == "Fact 3e (two_ends)"
    assert fact_text("tree") == "Fact 3c (tree)"
    assert fact_text("two_trees") == "Class bound (two_trees)"
    assert fact_text("new_fact") == "new_fact (new_fact)"


def test_a_paper_shape_beyond_max_hops_is_said_in_the_table_and_the_csv() -> None:
    """H-Ring on 24 nodes within 2 hops (its paper groups of 4 need 3): the row keeps to the
    limit, the table says why 'paper' does not, and the CSV flags that column."""
    args = ("plan", "--collective", "allreduce", "--algorithm", "hring", "--nodes", "24",
            "--wavelengths", "2", "--message-bytes", "4096", "--max-hops", "2")  # fmt: skip
    code, out, _ = run(*args)
    assert code == 0
    assert "hring: its paper shape breaks the hop limit (intra RS 1: the lightpath" in out
    assert "beyond the hop limit" in out  # the search's count
    code, out, _ = run(*args, "--csv")
    rows = list(csv.DictReader(io.StringIO(out)))
    assert code == 0 and [r["paper_beyond_hop_limit"] for r in rows] == ["True"]
    assert json.loads(rows[0]["parameters"]) == {"group": 2}


@pytest.mark.parametrize("collective", ["allreduce", "allgather"])
def test_the_shape_column_reads_back_as_params(collective: str) -> None:
    """The table prints a shape's parameters the way --param reads them (lists as 4x6), without
    synth's no-op `holders` / `centres`; planning that shape explicitly, a --param per pair or
    the whole shape in one, gives the same time."""
    plan = ("plan", "--collective", collective, "--nodes", "24", "--wavelengths", "4",
            "--message-bytes", "4MiB", "--algorithm", "synth")  # fmt: skip
    code, out, err = run(*plan)
    assert code == 0, err
    row = out.splitlines()[1].split()
    assert row[:2] == ["synth", "best"]
    shape, time_s = row[2], row[-2]
    assert "holders=" not in shape and "centres=" not in shape  # every residue holds here
    params = [arg for kv in shape.split(",") for arg in ("--param", kv)]
    for given in (params, ["--param", shape]):  # a --param per pair, or the shape as printed
        code, again, err = run(*plan, *given)
        assert code == 0, err
        row = again.splitlines()[1].split()
        assert row[:3] == ["synth", "explicit", shape] and row[-2] == time_s


@pytest.mark.parametrize(
    ("changed", "shown", "hidden"),
    [
        ({}, [], ["holders=", "centres="]),  # 4 of 4 residues hold, 6 of 6 members form sums
        ({"holders": 3}, ["holders=3"], ["centres="]),
        ({"sweep": 1, "centres": 2}, ["sweep=1", "centres=2"], ["holders="]),
    ],
)
def test_the_shape_text_leaves_out_only_no_op_parameters(
    changed: dict[str, int], shown: list[str], hidden: list[str]
) -> None:
    from app.presentation.text import shape_text
    from app.schemas.results import PlanResult

    code, out, err = run("plan", "--collective", "allreduce", "--nodes", "24", "--wavelengths",
                         "4", "--message-bytes", "4MiB", "--algorithm", "synth", "--param",
                         "radices=4x6", "--json")  # fmt: skip
    assert code == 0, err
    synth = PlanResult.model_validate_json(out).algorithms[0]
    assert synth.parameters["holders"] == 4 and synth.parameters["centres"] == 6
    text = shape_text(synth.model_copy(update={"parameters": {**synth.parameters, **changed}}))
    assert all(s in text for s in shown) and not any(h in text for h in hidden)


def test_the_exact_models_optimum_names_an_algorithm_that_beats_it() -> None:
    """On 2 nodes with 6 channels the exact model (one piece per lightpath, at most 4 pieces
    per item) cannot use every channel, and synth, which bundles pieces, is faster at 4 MiB:
    the line says so instead of calling the model's optimum the optimum."""
    args = ("plan", "--collective", "allgather", "--nodes", "2", "--wavelengths", "3",
            "--fibers", "2", "--message-bytes", "4MiB")  # fmt: skip
    code, out, _ = run(*args, "--json")
    assert code == 0
    result = json.loads(out)
    exact = result["achievable"][0]["exact_s"]
    synth = next(a for a in result["algorithms"] if a["algorithm"] == "synth")["time_s"]
    assert synth < exact
    code, out, _ = run(*args)
    assert code == 0
    (line,) = [x for x in out.splitlines() if "exact model's optimum" in x]
    assert f"exact model's optimum {exact:.6g} s" in line
    assert f"which synth beats at {synth:.6g} s" in line
    assert "exact optimum" not in out


def test_a_shape_fastest_at_another_size_is_shown_with_its_time() -> None:
    """The row is the shape fastest at the first size; at 64 MiB another synth shape is
    faster (and feasible), and the recommendation names it. The table used to show only the
    row's time, and the advice called it 'its fastest feasible shape' as if the row were not
    feasible: now a line gives that shape's time, and the advice the row's time beside it."""
    args = ("plan", "--collective", "reducescatter", "--nodes", "16", "--wavelengths", "8",
            "--message-bytes", "4KiB", "--message-bytes", "64MiB")  # fmt: skip
    code, out, _ = run(*args, "--json")
    assert code == 0
    result = json.loads(out)
    (synth,) = [a for a in result["algorithms"] if a["algorithm"] == "synth"]
    best = synth["shapes"]["search"]["best_by_message"][1]
    assert best["parameters"] != synth["parameters"] and synth["feasibility"]["feasible"]
    advice = result["recommendation"][1]
    assert (advice["algorithm"], advice["parameters"]) == ("synth", best["parameters"])
    assert advice["time_s"] == best["time_s"] < synth["timings"][1]["time_s"]
    code, text, _ = run(*args)
    shape = ",".join(
        f"{k}={'x'.join(map(str, v)) if isinstance(v, list) else v}"
        for k, v in best["parameters"].items()
    )
    share = result["achievable"][1]["bound_s"] / best["time_s"]
    assert (
        f"  at 64 MiB the fastest synth is {shape}: {best['true_steps']} steps, "
        f"{best['time_s']:.6g} s ({share:.1%} of the achievable)\n"
    ) in text
    assert (
        f"in its fastest feasible shape at this size, {shape} (the shape reported for it "
        f"takes {synth['timings'][1]['time_s']:.6g} s here)"
    ) in text


def test_optics_without_a_reliable_lightpath_give_the_bound_without_them() -> None:
    """At -10 dBm not even a one-hop lightpath is reliable, so no schedule is feasible: the
    achievable is the bound without the optics' limit (the plan gave one for 1-hop
    lightpaths, 400 us at 4 MiB, beside algorithms of 75 us), and the text says why."""
    args = ("plan", "--collective", "allreduce", "--nodes", "32", "--wavelengths", "8",
            "--message-bytes", "1KiB", "--message-bytes", "4MiB",
            "--optics", "laser_power_dbm=-10")  # fmt: skip
    code, out, _ = run(*args, "--json")
    assert code == 0
    result = json.loads(out)
    assert result["algorithms"][0]["feasibility"]["budget"]["max_lightpath_hops"] == 0
    assert not any(a["feasibility"]["feasible"] for a in result["algorithms"])
    for i, bound in enumerate(result["achievable"]):
        assert bound["bound_s"] == bound["bound_without_optics_s"]
        assert bound["hop_limit"] == 31
        assert all(a["timings"][i]["time_s"] >= bound["bound_s"] for a in result["algorithms"])
    code, text, _ = run(*args)
    assert "not even a one-hop lightpath is reliable, so no schedule is optically feasible" in text
    assert "optically infeasible algorithms are measured against" not in text  # said once


@pytest.mark.parametrize(
    ("size", "text"),
    [
        (64 * 2**20, "64 MiB"),
        (64e6, "64 MB"),  # as given with --message-bytes 64MB (was "62500 KiB")
        (4e6, "4 MB"),  # was "4e+06 B"
        (64_000, "64 kB"),
        (1536, "1.5 KiB"),
        (2**40, "1 TiB"),  # was "1024 GiB"
        (249.2e6, "249.2 MB"),  # a workload's gradient (was "2.492e+08 B")
        (102_228_128, "102.2 MB"),  # not exact in any unit: 4 significant digits
        (999_999, "1 MB"),  # rounds to 1 MB, not "1000 kB"
        (999, "999 B"),
    ],
)
def test_sizes_read_as_they_were_written(size: float, text: str) -> None:
    from app.presentation.text import parse_size, size_text

    assert size_text(size) == text
    if size not in (102_228_128, 999_999):  # rounded: they do not read back exactly
        assert parse_size(text.replace(" ", "")) == size


def test_rwa_text_gives_the_steps_bound_beside_the_steps(tmp_path: Path) -> None:
    """With node limits chi can meet its bound while the steps are not proven: the text line
    shows steps_lower_bound, as the JSON does (it printed 'chi=4 lower_bound=4
    status=feasible steps=3' with nothing to say why 'feasible')."""
    stage = {"nodes": 6, "fibers": 1, "wavelengths": 4,
             "demands": [[0, 3, 2], [1, 4, 1], [2, 5, 1, "cw"], [5, 0, 1, "ccw"]]}  # fmt: skip
    path = tmp_path / "stage.json"
    path.write_text(json.dumps(stage))
    code, out, _ = run("rwa", "--input", str(path), "--max-tx", "1", "--max-rx", "1", "--json")
    assert code == 0
    payload = json.loads(out)
    code, text, _ = run("rwa", "--input", str(path), "--max-tx", "1", "--max-rx", "1")
    assert code == 0
    assert f"steps={payload['steps']} steps_lower_bound={payload['steps_lower_bound']} " in text


def test_the_closest_to_feasible_is_the_faster_of_equal_shortfalls() -> None:
    """At 1 dBm nothing is feasible; ring and NE both need the 1-hop margin (1.1 dB more):
    the advice named ring, half as fast as NE."""
    code, out, _ = run("plan", "--collective", "allgather", "--nodes", "16", "--wavelengths",
                       "4", "--message-bytes", "1MiB", "--optics", "laser_power_dbm=1",
                       "--json")  # fmt: skip
    assert code == 0
    result = json.loads(out)
    need = {
        a["algorithm"]: (a["feasibility"]["min_laser_power_dbm"] - 1, a["time_s"])
        for a in result["algorithms"]
    }
    least = min(short for short, _ in need.values())
    tied = sorted((t, name) for name, (short, t) in need.items() if short == pytest.approx(least))
    assert len(tied) >= 2 and {"ring", "ne"} <= {name for _, name in tied}
    assert result["recommendation"][0]["closest_to_feasible"]["algorithm"] == tied[0][1] == "ne"


def test_the_catalog_text_gives_whole_claims_as_integers() -> None:
    code, out, _ = run("algorithms", "--nodes", "1024", "--wavelengths", "64")
    assert code == 0
    (ne,) = [line for line in out.splitlines() if line.split()[:2] == ["allgather", "ne"]]
    assert ne.endswith("N / 2  = 512")  # N / 2 is computed as a float: it read 512.0


def test_a_faster_shape_that_is_infeasible_is_marked_and_measured_without_the_optics() -> None:
    """The line for a shape fastest at another size: when the search's fastest feasible
    shape there is not that shape (here: none), it says 'optically infeasible' and measures
    it against the bound without the optics' limit, as rows of infeasible shapes are."""
    from app.presentation.text import faster_shape_text
    from app.schemas.results import PlanResult

    args = ("plan", "--collective", "reducescatter", "--nodes", "16", "--wavelengths", "8",
            "--message-bytes", "4KiB", "--message-bytes", "64MiB", "--json")  # fmt: skip
    code, out, _ = run(*args)
    assert code == 0
    result = PlanResult.model_validate_json(out)
    (synth,) = result.algorithms
    search = synth.shapes.search
    assert search is not None
    found = search.best_by_message[1]
    bound = result.achievable[1]
    feasible = faster_shape_text(result, synth, 1)
    assert feasible is not None and not feasible.endswith("optically infeasible")
    assert f"({bound.bound_s / found.time_s:.1%} of the achievable)" in feasible
    assert faster_shape_text(result, synth, 0) is None  # the row's own shape
    search.best_feasible_by_message[1] = None
    bound.bound_without_optics_s = bound.bound_s / 2  # so the two bounds tell apart
    infeasible = faster_shape_text(result, synth, 1)
    assert infeasible is not None and infeasible.endswith(", optically infeasible")
    assert f"({bound.bound_without_optics_s / found.time_s:.1%} of the achievable)" in infeasible


def test_counts_stay_whole_numbers() -> None:
    from app.presentation.text import counted

    assert counted(1, "true step") == "1 true step"
    assert counted(1_048_576, "step") == "1048576 steps"  # not 1.04858e+06
    assert counted(2.5, "piece") == "2.5 pieces"


def test_the_optics_verdict_counts_every_failing_stage() -> None:
    """It named the first failing stage only ('stage 0: 32/32 lightpaths fail'), while every
    stage of the ring fails: the total follows."""
    args = ("plan", "--collective", "allgather", "--nodes", "32", "--wavelengths", "8",
            "--message-bytes", "1MiB", "--optics", "laser_power_dbm=-10", "--algorithm",
            "ring")  # fmt: skip
    code, out, _ = run(*args, "--json")
    assert code == 0
    f = json.loads(out)["algorithms"][0]["feasibility"]
    failing = [s for s in f["stages"] if s["failing"]]
    assert len(failing) == 31 and f["failing_lightpaths"] == sum(s["failing"] for s in failing)
    code, text, _ = run(*args)
    total = sum(s["lightpaths"] for s in f["stages"])
    assert f"; {f['failing_lightpaths']} of {total} in 31 stages" in text


def test_the_progress_bar_counts_from_the_plans_start() -> None:
    """Rich's elapsed column timed each algorithm from its first report (often its last):
    it read 0:00:00. The bar gives the seconds since the plan started."""
    import time

    from app.cli import LazyProgress

    progress = LazyProgress(enabled=True, delay_s=0.0)
    progress.started = time.monotonic() - 3.0  # the plan began 3 s ago
    progress.update("ring", 3, 3)
    assert progress.bar is not None
    progress.bar.stop()
    (task,) = progress.bar.tasks
    assert task.fields["since"].endswith(" s") and 3.0 <= float(task.fields["since"][:-2]) < 4


def test_a_finished_bar_is_green_on_a_16_colour_terminal() -> None:
    """Rich's finished colour, rgb(114,156,31), is grey (bright black) on a 16-colour
    terminal (TERM=xterm): the bar of a finished algorithm looked untouched."""
    import io

    from rich.console import Console

    from app.cli import LazyProgress

    out = io.StringIO()
    console = Console(file=out, force_terminal=True, color_system="standard", width=100)
    progress = LazyProgress(enabled=True, delay_s=0.0, console=console)
    progress.update("ring", 3, 3)
    assert progress.bar is not None
    progress.bar.stop()
    last = out.getvalue().rsplit("\r", 1)[-1]
    assert "ring" in last and "3/3" in last
    assert "\x1b[32m━" in last and "\x1b[90m━" not in last  # green, not grey


def test_a_sweep_file_takes_sizes_as_the_command_line_does(tmp_path: Path) -> None:
    grid = tmp_path / "grid.yaml"
    grid.write_text(
        "nodes: [4]\nwavelengths_per_fiber: [1]\ncollective: allgather\n"
        "message_sizes_bytes: [1MiB, 64 KiB, 4096]\nalgorithms: [ring]\n"
    )
    out = tmp_path / "rows.csv"
    code, _, err = run("sweep", str(grid), "--out", str(out))
    assert code == 0, err
    sizes = {row["message_bytes"] for row in csv.DictReader(out.read_text().splitlines())}
    assert sizes == {"1048576.0", "65536.0", "4096.0"}
    grid.write_text("- nodes\n- collective\n")
    code, _, err = run("sweep", str(grid))
    assert code == 2 and "a grid is a mapping of plan options" in err and "not a list" in err


def test_the_table_columns_stay_aligned_under_a_long_shape() -> None:
    code, out, _ = run("plan", "--collective", "allreduce", "--nodes", "64", "--wavelengths",
                       "8", "--message-bytes", "4MiB", "--algorithm", "ring", "--algorithm",
                       "synth")  # fmt: skip
    assert code == 0
    head, *rows = out.splitlines()[:3]
    end = head.index("claimed") + len("claimed")  # right-aligned: every claim ends there
    assert [row[:end].rstrip()[-1] for row in rows] == ["6", "-"]  # ring's 126, synth's none


@pytest.mark.parametrize(
    ("given", "parsed"),
    [
        (["branching=4,4,4"], {"branching": [4, 4, 4]}),
        (["radices=4x4x16"], {"radices": [4, 4, 16]}),
        (["radices=4x4,pieces=2,direct=1"], {"radices": [4, 4], "pieces": 2, "direct": 1}),
        (["branching=4,4,group=3", "levels=2"], {"branching": [4, 4], "group": 3, "levels": 2}),
    ],
)
def test_param_pairs_and_lists(given: list[str], parsed: dict[str, object]) -> None:
    """A comma starts another pair only where a key= follows it; otherwise it separates a
    list's values."""
    from app.cli import _parse_params

    assert _parse_params(given) == parsed


@pytest.mark.parametrize(
    "args",
    [
        ["--param", "branching=4,4", "--param", "branching=2,8"],
        ["--param", "branching=4,4,branching=2,8"],
        ["--optics", "laser_power_dbm=5", "--optics", "laser_power_dbm=7"],
    ],
)
def test_a_setting_given_twice_is_refused(args: list[str]) -> None:
    """Repeated --algorithm or --message-bytes were refused, a repeated --param key kept its
    last value silently."""
    code, _, err = run("plan", "--collective", "allgather", "--nodes", "16", "--wavelengths",
                       "4", "--message-bytes", "1MiB", "--algorithm", "optree", *args)  # fmt: skip
    assert code == 2 and "is given twice" in err and "Traceback" not in err


@pytest.mark.parametrize(
    ("fraction", "text"),
    [(0.000056, "<0.1%"), (0.0004999, "<0.1%"), (0.0005, "0.1%"), (0.992, "99.2%"), (0.0, "0.0%")],
)
def test_a_small_positive_share_is_not_printed_as_zero(fraction: float, text: str) -> None:
    """TRA2 at N = 64 (0.0056 % of the achievable) read 0.0 %, as if it took no share."""
    from app.presentation.text import percent_text

    assert percent_text(fraction) == text


def test_algorithms_text_aligns_and_says_which_refuse_the_ring() -> None:
    """Review (session 32): RD's form at N = 12 was printed with no hint that RD refuses
    N = 12 (the JSON had the refusal), and reducescatter's rows were out of line."""
    code, out, _ = run("algorithms", "--nodes", "12", "--wavelengths", "4")
    assert code == 0
    lines = out.splitlines()
    rows = [line for line in lines if not line.startswith(" ")]
    assert {line.split()[0] for line in rows} >= {"allgather", "reducescatter", "alltoall"}
    # every closed form starts in one column, the one the source lines are indented to
    starts = {len(line) - len(line.split(maxsplit=2)[2]) for line in rows}
    indents = {len(line) - len(line.lstrip()) for line in lines if line.startswith(" ")}
    assert len(starts) == 1 and indents == starts
    rd = lines.index(next(line for line in rows if line.split()[:2] == ["allreduce", "rd"]))
    assert "refuses this ring: recursive doubling" in lines[rd + 2]
    code, out, _ = run("algorithms", "--nodes", "16", "--wavelengths", "4")
    lines = out.splitlines()
    rd = next(i for i, line in enumerate(lines) if line.split()[:2] == ["allreduce", "rd"])
    assert lines[rd + 1].split()[0] == "source:" and not lines[rd + 2].startswith(" ")


def test_a_row_whose_shape_search_was_cut_is_marked() -> None:
    """The table's shape says '(search cut)' where the search stopped before ruling out every
    shape ('best' is then the best found); an exhaustive search's row does not. The cut is
    set on a real answer: a budget cut depends on the machine's load and warm caches."""
    from app.presentation.text import plan_text
    from app.schemas.results import PlanResult

    code, out, _ = run("plan", "--collective", "allgather", "--nodes", "8", "--wavelengths",
                       "2", "--message-bytes", "1MiB", "--algorithm", "synth", "--json")
    assert code == 0
    result = PlanResult.model_validate_json(out)
    (synth,) = result.algorithms
    assert synth.shapes.search is not None and synth.shapes.search.exhaustive
    assert "(search cut)" not in plan_text(result)
    synth.shapes.search.exhaustive = False
    synth.shapes.search.note = "the time budget ran out after bounding 3 of 9 candidates"
    row = next(line for line in plan_text(result).splitlines() if line.startswith("synth "))
    shape = row[len("synth") :].strip().split("  ")[0]  # the shape column, then counts
    assert shape.endswith("(search cut)"), row


def test_a_claim_with_a_note_says_what_it_counts() -> None:
    """Review (session 32): TRA2's row read 'claimed 1023 rounds' beside 'K = 15 rounds'
    with nothing on why; the claim's note says it is the printed form. At N = 16, Q = 64,
    r2 = 16: w = 1, K = 15 - floor(16 - 1024 / 16^0) = 1023 as printed; Proposition 3 with N
    in place of P: 15."""
    code, out, _ = run("plan", "--collective", "alltoall", "--nodes", "16", "--wavelengths",
                       "4", "--message-bytes", "1MiB", "--algorithm", "tra2", "--shape", "paper")
    assert code == 0
    (line,) = [line for line in out.splitlines() if line.startswith("tra2: claimed")]
    assert line.startswith("tra2: claimed 1023 rounds: the inter-node rounds as printed")
    assert line.endswith("Proposition 3 with N in place of P gives 15")


def test_fastest_regardless_of_optics_looks_at_every_sizes_own_shapes() -> None:
    """Review (session 33): at 64 KiB the recommendation named WRHT (77.2 us) as the fastest
    regardless of optics while synth's 64 KiB shape (63.6 us, in best_by_message) was
    faster: the ranking looked only at each row's shape, the first size's winner."""
    code, out, _ = run("plan", "--collective", "allreduce", "--nodes", "16", "--wavelengths",
                       "8", "--message-bytes", "1MiB", "--message-bytes", "64KiB",
                       "--search-budget", "5", "--json")
    assert code == 0
    doc = json.loads(out)

    def fastest_s(algorithm: dict, i: int) -> float:
        search = algorithm["shapes"]["search"]
        if search is not None and search["best_by_message"]:
            return float(search["best_by_message"][i]["time_s"])
        return float(algorithm["timings"][i]["time_s"])

    for i, advice in enumerate(doc["recommendation"]):
        times = {a["algorithm"]: fastest_s(a, i) for a in doc["algorithms"]}
        assert times[advice["fastest_regardless_of_optics"]] == min(times.values())
        for skipped in advice["skipped_infeasible"]:
            assert times[skipped] < advice["time_s"]


@pytest.mark.parametrize(("given", "size"), [("4.1MB", 4_100_000), ("8.3 MB", 8_300_000),
                                            ("2.01kB", 2010), ("4.1GB", 4_100_000_000),
                                            ("0.25KiB", 256), ("1e-3kB", 1)])
def test_decimal_sizes_are_read_exactly(given: str, size: int) -> None:
    """Review (session 34): '4.1MB' was refused as 'is 4.1e+06 bytes; give 4099999 or
    4100000' (the product in binary floating point is 4099999.9999999995)."""
    from app.presentation.text import parse_size

    assert parse_size(given) == size


@pytest.mark.parametrize(
    ("given", "says"),
    [
        ("1.1KiB", "'1.1KiB' is 1126.4 bytes; a message is a whole number of bytes: give 1126 "
                   "or 1127"),
        ("0.5B", "'0.5B' is 0.5 bytes; a message is a whole number of bytes: give 1"),
        ("1.5", "'1.5' is 1.5 bytes; a message is a whole number of bytes: give 1 or 2"),
    ],
)
def test_a_size_that_is_not_whole_bytes_says_the_bytes_it_is(given: str, says: str) -> None:
    """Review (session 33): '--message-bytes 1.1KiB' was told to 'give a unit' (1126.4KiB),
    though it had one."""
    code, _, err = run("plan", "--collective", "allgather", "--nodes", "4", "--wavelengths", "1",
                       "--message-bytes", given, "--algorithm", "ring")
    assert code == 2 and err == f"error: --message-bytes {says}\n"


def test_a_param_out_of_range_names_its_key() -> None:
    """Review (session 33): '--param pieces=100000' said '--param synth: ...', the algorithm
    where the key was meant (the API names parameters.synth.pieces)."""
    code, _, err = run("plan", "--collective", "allgather", "--nodes", "8", "--wavelengths",
                       "2", "--message-bytes", "1MiB", "--algorithm", "synth",
                       "--param", "pieces=100000")
    assert code == 2
    assert err == "error: --param pieces: Input should be less than or equal to 8192\n"


def test_what_the_closed_forms_would_pick_uses_each_papers_own_claim() -> None:
    """Session 33: once a row's claim became its own shape's, a row of a shape the papers
    do not count (OpTree's unbalanced levels 2 x 32) had none, and 'the papers' closed forms
    would pick' skipped OpTree (its paper shape claims 20 steps at N = 64, w = 8) for NE
    (32 steps of 2d). The pick reads each paper's claim for its own shape."""
    from app.planning import prepare
    from app.schemas.requests import PlanRequest
    from app.service import execute

    request = PlanRequest.model_validate({
        "ring": {"nodes": 64, "wavelengths_per_fiber": 8}, "collective": "allgather",
        "algorithms": ["ne", "optree"], "parameters": {"optree": {"branching": [2, 32]}},
        "message_sizes_bytes": [2**20],
    })  # fmt: skip
    result = execute(prepare(request)).result
    rows = {a.algorithm: a for a in result.algorithms}
    assert rows["optree"].claimed_steps is None  # the row's shape: no closed form
    assert rows["optree"].shapes.paper.claimed_steps == 20  # ceil(7 * 64^1.25 / 64)
    assert rows["ne"].shapes.paper.claimed_steps == 32
    (advice,) = result.recommendation
    assert advice.fastest_by_closed_form == "optree"
    paper_true = rows["optree"].shapes.paper.true_steps
    if advice.algorithm != "optree":
        assert f"would pick optree (claimed 20 steps, true {paper_true})" in advice.why


def test_a_serving_process_names_the_variables_it_does_not_read(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Review (session 35): settings ignore unknown RWAOPT_* names, so RWAOPT_API_KEY (the
    CLI's key as a client) set on a server for RWAOPT_API_KEYS left auth off on loopback,
    silently. `rwaopt serve` and `rwaopt worker` name each such variable and what it may
    have meant (here serve then refuses 0.0.0.0 without keys)."""
    from app.settings import get_settings, unknown_variables

    assert unknown_variables({"RWAOPT_API_KEY": "k", "RWAOPT_JOBS": "inline",
                              "RWAOPT_QUEUE_NAM": "q", "RWAOPT_ZZZ": "1"}) == [
        "RWAOPT_API_KEY is not a setting of the service and is ignored; did you mean "
        "RWAOPT_API_KEYS?",
        "RWAOPT_QUEUE_NAM is not a setting of the service and is ignored; did you mean "
        "RWAOPT_QUEUE_NAME?",
        "RWAOPT_ZZZ is not a setting of the service and is ignored",
    ]  # fmt: skip
    monkeypatch.setenv("RWAOPT_API_KEY", "k" * 24)
    monkeypatch.setenv("RWAOPT_DATABASE_URL", f"sqlite:///{tmp_path / 'x.db'}")
    monkeypatch.delenv("RWAOPT_API_KEYS", raising=False)
    get_settings.cache_clear()
    try:
        code, _, err = run("serve", "--host", "0.0.0.0")
    finally:
        get_settings.cache_clear()
    assert code == 2
    assert "warning: RWAOPT_API_KEY is not a setting of the service" in err


def test_an_unknown_reproduction_target_lists_all_too(tmp_path: Path) -> None:
    """Review (session 35): `rwaopt reproduce optree-jurnal` listed the five papers' targets
    but not `all`, which `--help` offers (the schema's message is about list items)."""
    code, _, err = run("reproduce", "optree-jurnal", "--out", str(tmp_path / "r"), "--quick")
    assert code == 2
    assert "unknown target 'optree-jurnal'; targets: optree-journal," in err
    assert err.rstrip().endswith("tra, all")
    assert not (tmp_path / "r").exists()  # nothing written
