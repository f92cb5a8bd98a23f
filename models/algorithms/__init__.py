"""The algorithm catalog of SPEC section 4: each entry builds its stages for a ring."""
