"""Ring and RD all-reduce on the electrical fat-tree, simulated with SimGrid (the simulator the
optical-vs-electrical and WRHT papers used), through its Python S4U API.

Each host runs an actor that exchanges real message sizes with its peers over the fat-tree
platform (SimGrid's FAT_TREE cluster), so links shared by concurrent transfers (the leaf
up-links) are counted, not assumed away. The actors also carry the data: every host starts
with its own value in every chunk, and the result says whether every host ends with the sum.

SimGrid's engine can be created once per process, so every simulation runs in a child process
(`python -m solver.electrical_sim`, JSON in and out).

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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Literal

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


def simulate_allreduce(
    algorithm: ElectricalAlgorithm,
    nodes: int,
    message_bytes: float,
    network: FatTree | None = None,
    model: NetworkModel = "default",
    full: bool | None = None,
) -> Simulated:
    """Simulated time of one all-reduce of `message_bytes` per host on `nodes` hosts."""
    network = network or FatTree()
    if not 2 <= nodes <= MAX_SIMULATED_NODES:
        raise InvalidInputError(f"simulate 2 to {MAX_SIMULATED_NODES} hosts, got {nodes}")
    if algorithm == "rd" and nodes & (nodes - 1):
        raise InvalidInputError(f"RD all-reduce needs a power-of-two n, got {nodes}")
    if full is None:
        steps = 2 * (nodes - 1) if algorithm == "ring" else nodes.bit_length() - 1
        full = nodes * steps <= FULL_SIMULATION_MESSAGES
    job = {
        "algorithm": algorithm,
        "nodes": nodes,
        "message_bytes": message_bytes,
        "network": asdict(network),
        "model": model,
        "full": full,
    }
    try:
        done = subprocess.run(
            [sys.executable, "-m", "solver.electrical_sim"],
            input=json.dumps(job),
            capture_output=True,
            text=True,
            timeout=SIMULATION_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise InternalError(
            f"the SimGrid simulation took over {SIMULATION_TIMEOUT_S:g} s"
        ) from None
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines:
        raise InternalError(
            f"the SimGrid simulation failed (exit {done.returncode}): {done.stderr[-500:]}"
        )
    answer = json.loads(lines[-1])
    return Simulated(answer["time_s"], answer["mode"], answer["delivered"], answer["wall_s"])


# ----------------------------------------------------------------------- in the child process


def _platform(nodes: int, net: FatTree, directory: Path) -> tuple[Path, int]:
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
    return path, hosts


def _run(job: dict[str, object]) -> dict[str, object]:  # pragma: no cover - child process
    import time

    import simgrid as sg

    n = int(job["nodes"])  # type: ignore[call-overload]
    size = float(job["message_bytes"])  # type: ignore[arg-type]
    algorithm = str(job["algorithm"])
    full = bool(job["full"])
    net = FatTree(**job["network"])  # type: ignore[arg-type]
    args = ["rwaopt-sim", "--log=root.thres:critical"]
    if job["model"] == "cm02":
        args += ["--cfg=network/model:CM02", "--cfg=network/crosstraffic:0"]
    engine = sg.Engine(args)
    with tempfile.TemporaryDirectory() as tmp:
        platform, _ = _platform(n, net, Path(tmp))
        engine.load_platform(str(platform))
    result: dict[int, list[float]] = {}

    def mailbox(rank: int, step: int) -> sg.Mailbox:
        return sg.Mailbox.by_name(f"{rank}:{step}")

    def ring(rank: int) -> None:
        chunks = [float(rank + 1)] * n  # host r starts with r + 1 in every chunk
        right = (rank + 1) % n
        steps = 2 * (n - 1) if full else 1
        for step in range(steps):
            gather = step >= n - 1
            s = step - (n - 1) if gather else step
            send = (rank + 1 - s) % n if gather else (rank - s) % n
            comm = mailbox(right, step).put_async((send, chunks[send]), max(1, int(size // n)))
            index, value = mailbox(rank, step).get()
            chunks[index] = value if gather else chunks[index] + value
            comm.wait()
        result[rank] = chunks

    def rd(rank: int) -> None:
        value = float(rank + 1)
        steps = n.bit_length() - 1
        for k in range(steps):
            peer = rank ^ (1 << k)
            comm = mailbox(peer, k).put_async(value, max(1, int(size)))
            value += mailbox(rank, k).get()
            comm.wait()
        result[rank] = [value]

    def rd_step(rank: int, k: int) -> None:
        peer = rank ^ (1 << k)
        comm = mailbox(peer, k).put_async(0.0, max(1, int(size)))
        mailbox(rank, k).get()
        comm.wait()

    started = time.monotonic()
    if algorithm == "ring" or full:
        body = ring if algorithm == "ring" else rd
        for rank in range(n):
            sg.Actor.create(f"r{rank}", sg.Host.by_name(f"host-{rank}"), body, rank)
        engine.run()
        time_s = sg.Engine.clock * (1 if full else 2 * (n - 1))
    else:  # RD, one simulation per step pattern: run them one after another, sum their spans
        spans = []

        def driver() -> None:
            for k in range(n.bit_length() - 1):
                begin = sg.Engine.clock
                actors = [
                    sg.Actor.create(
                        f"r{rank}:{k}", sg.Host.by_name(f"host-{rank}"), rd_step, rank, k
                    )
                    for rank in range(n)
                ]
                for actor in actors:
                    actor.join()
                spans.append(sg.Engine.clock - begin)

        sg.Actor.create("driver", sg.Host.by_name("host-0"), driver)
        engine.run()
        time_s = sum(spans)
    delivered = None
    if full:
        total = n * (n + 1) / 2
        delivered = len(result) == n and all(
            all(abs(v - total) <= 1e-9 * total for v in values) for values in result.values()
        )
    return {
        "time_s": time_s,
        "mode": "full" if full else "per_step",
        "delivered": delivered,
        "wall_s": time.monotonic() - started,
    }


if __name__ == "__main__":  # pragma: no cover - the child process
    print(json.dumps(_run(json.loads(sys.stdin.read()))))
