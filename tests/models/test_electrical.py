"""The electrical fat-tree and the Hockney costs of the optical-vs-electrical paper."""

from __future__ import annotations

import pytest

from models.electrical import (
    DNN_WORKLOADS,
    E_RD_STEPS,
    E_RING_STEPS,
    FatTree,
    e_rd_hockney_s,
    e_ring_hockney_s,
)


def test_hockney_as_printed_by_hand() -> None:
    """Eq. (8) at n = 128, d eta = 64 MiB, alpha = 25 us, beta_E = 25 Gb/s:
    2 x 127 x (25e-6 + 67108864 x 8 / (128 x 25e9)) = 254 x (25e-6 + 1.6777216e-4)
    = 254 x 1.9277216e-4 = 0.04896412864 s. Eq. (9): ceil(log2 128) = 7 steps of
    25e-6 + 536870912 / 25e9 = 0.02149983648 s: 0.15049885536 s."""
    net = FatTree()
    assert e_ring_hockney_s(128, 67108864, net.alpha_s, net.link_bps) == pytest.approx(
        0.04896412864, rel=1e-12
    )
    assert e_rd_hockney_s(128, 67108864, net.alpha_s, net.link_bps) == pytest.approx(
        0.15049885536, rel=1e-12
    )


@pytest.mark.parametrize(("n", "ring", "rd"), [(128, 254, 7), (1000, 1998, 10), (1024, 2046, 10)])
def test_electrical_steps_of_table_1(n: int, ring: int, rd: int) -> None:
    assert E_RING_STEPS.evaluate(n).value == ring
    assert E_RD_STEPS.evaluate(n).value == rd


def test_routes_of_the_two_level_tree() -> None:
    net = FatTree()
    assert net.leaves(1024) == 57  # 18 hosts per leaf
    assert net.route_links(0, 17) == 2  # same leaf: host - leaf - host
    assert net.route_links(17, 18) == 4  # host - leaf - spine - leaf - host


def test_workloads_as_printed() -> None:
    """WRHT Sec. IV: parameter counts; gradients are float32 (4 bytes per parameter)."""
    assert DNN_WORKLOADS["googlenet"].gradient_bytes == pytest.approx(6.7977e6 * 4)
    assert {w: DNN_WORKLOADS[w].batch_size for w in DNN_WORKLOADS} == {
        "alexnet": 512,
        "vgg16": 48,
        "resnet50": 1024,
        "googlenet": 64,
    }
