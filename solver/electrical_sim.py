"""Ring and RD all-reduce on the electrical fat-tree, simulated with SimGrid (the simulator the
optical-vs-electrical and WRHT papers used), through its Python S4U API.

Each host runs an actor that exchanges real message sizes with its peers over the fat-tree
platform (SimGrid's FAT_TREE cluster), so links shared by concurrent transfers (the leaf
up-links) are counted, not assumed away. The actors also carry the data: every host starts
with its own value in every chunk, and the result says whether every host ends with the sum.

SimGrid's engine can be created once per process, so simulations run in a child process
(`python -m solver.electrical_sim`, JSON in and out): all the cases of one plan in one engine,
one after another, each timed from its start to its last host's end.

Two network models:
- "default": SimGrid's default (LV08: latency factor 13.01, bandwidth factor 0.97, TCP cross
  traffic): what the papers ran ("all of which adhere to SimGrid's default configurations");
- "cm02": no correction factors and no cross traffic: a contention-free schedule then takes
  exactly the Hockney time with alpha = the route's latency (the wiring test).

A full simulation sends 2(n-1) (Ring) or log2 n (RD) messages per host; beyond
`FULL_SIMULATION_MESSAGES` messages in all, each distinct step pattern is simulated once with
every host sending at the same time (Ring: one step, times 2(n - 1); RD: each of its log2 n
steps) and the data check is left to the full simulations of smaller rings.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from models.electrical import FatTree
from models.errors import InternalError, InvalidInputError

NetworkModel = Literal["default", "cm02"]
ElectricalAlgorithm = Literal["ring", "rd"]
FULL_SIMULATION_MESSAGES = 20_000
SIMULATION_TIMEOUT_S = 600.0
MAX_SIMULATED_NODES = 4096


@dataclass(frozen=True)
class Simulated:
    time_s: float
    mode: Literal["full", "per_step"]
    delivered: bool | None  # every host ends with the sum (None: per-step, no data carried)
    wall_s: float


def simgrid_available() -> bool:
    return importlib.util.find_spec("simgrid") is not None


@dataclass(frozen=True)
class Case:
    """One all-reduce to simulate: `message_bytes` per host with `algorithm`."""

    algorithm: ElectricalAlgorithm
    message_bytes: float
    full: bool | None = None  # None: full when it is at most FULL_SIMULATION_MESSAGES


def simulate_allreduce(
    algorithm: ElectricalAlgorithm,
    nodes: int,
    message_bytes: float,
    network: FatTree | None = None,
    model: NetworkModel = "default",
    full: bool | None = None,
) -> Simulated:
    """Simulated time of one all-reduce of `message_bytes` per host on `nodes` hosts."""
    (answer,) = simulate_cases([Case(algorithm, message_bytes, full)], nodes, network, model)
    return answer


def simulate_cases(
    cases: Sequence[Case],
    nodes: int,
    network: FatTree | None = None,
    model: NetworkModel = "default",
) -> list[Simulated]:
    """Every case on the same `nodes`-host fat-tree, in one child process."""
    network = network or FatTree()
    if not 2 <= nodes <= MAX_SIMULATED_NODES:
        raise InvalidInputError(f"simulate 2 to {MAX_SIMULATED_NODES} hosts, got {nodes}")
    jobs = []
    for case in cases:
        if case.algorithm == "rd" and nodes & (nodes - 1):
            raise InvalidInputError(f"RD all-reduce needs a power-of-two n, got {nodes}")
        full = case.full
        if full is None:
            steps = 2 * (nodes - 1) if case.algorithm == "ring" else nodes.bit_length() - 1
            full = nodes * steps <= FULL_SIMULATION_MESSAGES
        jobs.append({"algorithm": case.algorithm, "bytes": case.message_bytes, "full": full})
    if not jobs:
        return []
    request = {"nodes": nodes, "network": asdict(network), "model": model, "cases": jobs}
    try:
        done = subprocess.run(
            [sys.executable, "-m", "solver.electrical_sim"],
            input=json.dumps(request),
            capture_output=True,
            text=True,
            timeout=SIMULATION_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        limit = f"{SIMULATION_TIMEOUT_S:g} s"
        raise InternalError(f"the SimGrid simulation took over {limit}") from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise InternalError(
            f"the SimGrid simulation failed (exit {done.returncode}): {done.stderr[-500:]}"
        )
    return [Simulated(**answer) for answer in json.loads(lines[-1])]


# ----------------------------------------------------------------------- in the child process


def _platform(nodes: int, net: FatTree, directory: Path) -> Path:
    leaves = net.leaves(nodes)
    hosts = leaves * net.hosts_per_leaf
    path = directory / "fat-tree.xml"
    path.write_text(
        "<?xml version='1.0'?>\n"
        '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
        '<platform version="4.1">\n'
        f'  <cluster id="fat-tree" prefix="host-" suffix="" radical="0-{hosts - 1}" '
        f'speed="1Gf" bw="{net.link_gbps}Gbps" lat="{net.link_latency_us}us" '
        f'topology="FAT_TREE" topo_parameters="2;{net.hosts_per_leaf},{leaves};'
        f'1,{net.spines};1,1"/>\n'
        "</platform>\n"
    )
    return path


def _run(request: dict[str, Any]) -> list[dict[str, Any]]:  # pragma: no cover - child process
    import time

    import simgrid as sg

    n = int(request["nodes"])
    net = FatTree(**request["network"])
    args = ["rwaopt-sim", "--log=root.thres:critical"]
    if request["model"] == "cm02":
        args += ["--cfg=network/model:CM02", "--cfg=network/crosstraffic:0"]
    engine = sg.Engine(args)
    with tempfile.TemporaryDirectory() as tmp:
        engine.load_platform(str(_platform(n, net, Path(tmp))))
    hosts = [sg.Host.by_name(f"host-{rank}") for rank in range(n)]
    answers: list[dict[str, Any]] = []

    def ring(tag: str, rank: int, size: float, steps: int, out: dict[int, list[float]]) -> None:
        chunks = [float(rank + 1)] * n  # host r starts with r + 1 in every chunk
        right = (rank + 1) % n
        for step in range(steps):
            gather = step >= n - 1
            s = step - (n - 1) if gather else step
            send = (rank + 1 - s) % n if gather else (rank - s) % n
            box = sg.Mailbox.by_name(f"{tag}:{right}:{step}")
            comm = box.put_async((send, chunks[send]), max(1, int(size // n)))
            index, value = sg.Mailbox.by_name(f"{tag}:{rank}:{step}").get()
            chunks[index] = value if gather else chunks[index] + value
            comm.wait()
        out[rank] = chunks

    def rd(tag: str, rank: int, size: float, steps: range, out: dict[int, list[float]]) -> None:
        value = float(rank + 1)
        for k in steps:
            box = sg.Mailbox.by_name(f"{tag}:{rank ^ (1 << k)}:{k}")
            comm = box.put_async(value, max(1, int(size)))
            value += sg.Mailbox.by_name(f"{tag}:{rank}:{k}").get()
            comm.wait()
        out[rank] = [value]

    def span(tag: str, body: Any, *extra: Any) -> tuple[float, dict[int, list[float]]]:
        """Start one actor per host, wait for all: the simulated time it took."""
        out: dict[int, list[float]] = {}
        begin = sg.Engine.clock
        actors = [
            sg.Actor.create(f"{tag}:{rank}", hosts[rank], body, tag, rank, *extra, out)
            for rank in range(n)
        ]
        for actor in actors:
            actor.join()
        return sg.Engine.clock - begin, out

    def driver() -> None:
        for i, case in enumerate(request["cases"]):
            started = time.monotonic()
            size, full, tag = float(case["bytes"]), bool(case["full"]), f"c{i}"
            log_n = n.bit_length() - 1
            if case["algorithm"] == "ring":
                took, out = span(tag, ring, size, 2 * (n - 1) if full else 1)
                took *= 1 if full else 2 * (n - 1)
            elif full:
                took, out = span(tag, rd, size, range(log_n))
            else:  # each RD step once, all hosts together
                took, out = 0.0, {}
                for k in range(log_n):
                    took += span(f"{tag}.{k}", rd, size, range(k, k + 1))[0]
            total = n * (n + 1) / 2
            delivered = None
            if full:
                delivered = len(out) == n and all(
                    abs(v - total) <= 1e-9 * total for values in out.values() for v in values
                )
            answers.append(
                {
                    "time_s": took,
                    "mode": "full" if full else "per_step",
                    "delivered": delivered,
                    "wall_s": time.monotonic() - started,
                }
            )

    sg.Actor.create("driver", hosts[0], driver)
    engine.run()
    return answers


if __name__ == "__main__":  # pragma: no cover - the child process
    print(json.dumps(_run(json.loads(sys.stdin.read()))))
