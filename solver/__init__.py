"""True RWA: formulations, exact and heuristic back ends, lower bounds and the validator."""
