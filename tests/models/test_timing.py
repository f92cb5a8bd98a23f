"""Time model against hand computation (SPEC section 3)."""

import pytest

from models.ring import Hardware, Ring
from models.timing import hardware_lower_bound_s, slot_time_s, total_time_s


def test_slot_time_by_hand() -> None:
    # 4 MiB item at 40 Gb/s: 4194304 * 8 / 40e9 = 838.8608 us; a = 25 us + 131072 flits / 4 GHz
    hw = Hardware()
    expected = 4194304 * 8 / 40e9 + 25e-6 + 131072 / 4e9
    assert slot_time_s(4194304, hw) == pytest.approx(expected, rel=1e-12)
    assert total_time_s(70, 4194304, hw) == pytest.approx(70 * expected, rel=1e-12)


def test_hardware_bound_by_hand() -> None:
    # all-gather, N = 1024, 1 MiB each: receive 1023 MiB over 2 x 64 x 40 Gb/s, plus 25 us.
    ring = Ring(1024, 1, 64)
    expected = 1023 * 2**20 * 8 / (2 * 64 * 40e9) + 25e-6
    assert hardware_lower_bound_s("allgather", ring, 2**20, Hardware()) == pytest.approx(expected)
