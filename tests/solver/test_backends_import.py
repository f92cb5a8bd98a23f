"""highspy 1.12.0 and ortools 9.15 each ship libhighs.so.1; both must load and solve in one
process in either order (the pinned pair in pyproject.toml)."""

import subprocess
import sys

import pytest

SCRIPT = """
import {first}, {second}
import highspy
from ortools.sat.python import cp_model
h = highspy.Highs(); h.setOptionValue("output_flag", False)
h.addVar(0, 1); h.changeColCost(0, -1.0); h.run()
assert abs(h.getInfo().objective_function_value + 1) < 1e-9
m = cp_model.CpModel(); x = m.NewBoolVar("x"); m.Maximize(x)
s = cp_model.CpSolver(); assert s.Solve(m) == cp_model.OPTIMAL
from ortools.linear_solver import pywraplp
lp = pywraplp.Solver.CreateSolver("GLOP"); assert lp is not None
print("ok")
"""


@pytest.mark.parametrize("order", [("highspy", "ortools"), ("ortools", "highspy")])
def test_both_solvers_in_one_process(order: tuple[str, str]) -> None:
    code = SCRIPT.format(first=order[0], second=order[1])
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
