"""OpTree journal eqs. (5)-(9) against values computed by hand."""

import math

import pytest

from models import optics
from models.closed_forms import optree_max_path_hops


def test_eq4_at_16_nodes_two_stages() -> None:
    # L_max = 1 + (16^(1/2) - 1) 16^(1/2) = 1 + 3 * 4 = 13
    assert optree_max_path_hops(16, 2) == pytest.approx(13.0)


def test_loss_and_margin_by_hand() -> None:
    # 1 dB modulator + 13 hops x 0.1 dB = 2.3 dB; 5 dBm laser, 1 dB penalty: margin 1.7 dB
    loss = optics.total_loss_db(1.0, 13, 0.1)
    assert loss == pytest.approx(2.3)
    assert optics.power_margin_db(5.0, loss, 1.0) == pytest.approx(1.7)


def test_crosstalk_snr_ber_by_hand() -> None:
    # P_N = 13 x 0.001 + 0.002 = 0.015 mW; P_S = 1 mW, P_O = 0.005 mW: SNR = 10 log10(50)
    noise = optics.worst_crosstalk_mw(13, 0.001, 0.002)
    assert noise == pytest.approx(0.015)
    snr = optics.snr_db(1.0, noise, 0.005)
    assert snr == pytest.approx(10 * math.log10(50))
    assert optics.ber(snr) == pytest.approx(0.5 * math.exp(-snr / 4))


def test_snr_needed_for_reliability() -> None:
    assert optics.snr_for_ber(1e-9) == pytest.approx(4 * math.log(5e8))
    assert optics.ber(optics.snr_for_ber(1e-9)) == pytest.approx(1e-9)


def test_dbm_round_trip() -> None:
    assert optics.dbm_to_mw(0.0) == pytest.approx(1.0)
    assert optics.mw_to_dbm(optics.dbm_to_mw(-3.0)) == pytest.approx(-3.0)
