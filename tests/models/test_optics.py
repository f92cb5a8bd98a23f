"""OpTree journal eqs. (5)-(9) against values computed by hand."""

import math

import pytest

from models import optics
from models.closed_forms import optree_max_path_hops

AS_PRINTED = optics.OpticalParameters(snr_scale="db")  # eq. (9) fed eq. (7)'s SNR in dB


def test_eq4_at_16_nodes_two_stages() -> None:
    # L_max = 1 + (16^(1/2) - 1) 16^(1/2) = 1 + 3 * 4 = 13
    assert optree_max_path_hops(16, 2) == pytest.approx(13.0)


def test_loss_and_margin_by_hand() -> None:
    # 1 dB modulator + 13 hops x 0.1 dB = 2.3 dB; 5 dBm laser, 1 dB penalty: margin 1.7 dB
    loss = optics.total_loss_db(1.0, 13, 0.1)
    assert loss == pytest.approx(2.3)
    assert optics.power_margin_db(5.0, loss, 1.0) == pytest.approx(1.7)


def test_crosstalk_snr_ber_by_hand() -> None:
    # P_N = 13 x 0.001 + 0.002 = 0.015 mW; P_S = 1 mW (0 dBm), P_O = 0.005 mW:
    # SNR = 10 log10(1 / 0.02) = 10 log10(50)
    noise = optics.crosstalk_mw(13, 1, 0.001, 0.002)  # eq. (8)'s worst case: L_max, one Tx
    assert noise == pytest.approx(0.015)
    snr = optics.snr_db(0.0, noise, 0.005)
    assert snr == pytest.approx(10 * math.log10(50))
    assert optics.ber(snr) == pytest.approx(0.5 * math.exp(-snr / 4))
    assert optics.ber(snr, "linear") == pytest.approx(0.5 * math.exp(-50 / 4))


def test_snr_needed_for_reliability() -> None:
    assert optics.snr_for_ber(1e-9) == pytest.approx(4 * math.log(5e8))
    assert optics.ber(optics.snr_for_ber(1e-9)) == pytest.approx(1e-9)


def test_dbm_round_trip() -> None:
    assert optics.dbm_to_mw(0.0) == pytest.approx(1.0)
    assert optics.mw_to_dbm(optics.dbm_to_mw(-3.0)) == pytest.approx(-3.0)


def test_lightpaths_with_default_parameters_by_hand() -> None:
    # 10 hops, 10 Rx neighbours, 1 Tx neighbour, defaults: loss 1 + 10 x 0.1 = 2 dB;
    # margin 10 - (2 + 1) - 0 = 7 dB; signal 8 dBm; crosstalk 10 x 1e-4 + 1e-4 = 1.1e-3 mW;
    # with P_O = 1e-4 mW the noise is 1.2e-3 mW = -29.208 dBm, so SNR = 37.208 dB and
    # eq. (9) as printed gives 0.5 exp(-37.208 / 4) = 4.5619e-5.
    r = optics.lightpaths(AS_PRINTED, 10, 10, 1)
    assert float(r.loss_db) == pytest.approx(2.0)
    assert float(r.margin_db) == pytest.approx(7.0)
    assert float(r.crosstalk_mw) == pytest.approx(1.1e-3)
    assert float(r.snr_db) == pytest.approx(37.2082, abs=1e-4)
    assert float(r.ber) == pytest.approx(4.5619e-5, rel=1e-4)
    # Read as a linear ratio, SNR = 10^3.72 = 5257 and the BER underflows to 0.
    assert float(r.ber_other_scale) == pytest.approx(0.5 * math.exp(-(10**3.72082) / 4))


def test_required_snr_per_reading() -> None:
    assert AS_PRINTED.required_snr_db == pytest.approx(80.1205, abs=1e-4)
    linear = optics.OpticalParameters()
    assert linear.snr_scale == "linear"  # the default: a one-hop lightpath is reliable
    assert linear.required_snr_db == pytest.approx(10 * math.log10(80.1205), abs=1e-4)


def test_min_laser_power_by_hand() -> None:
    # BER needs P_S >= 80.1205 dB above the noise (-29.208 dBm): 50.912 dBm at the detector,
    # plus the 2 dB loss: 52.912 dBm; the power constraint alone needs only 3 dBm.
    p = AS_PRINTED
    assert float(optics.min_laser_power_dbm(p, 10, 10, 1)) == pytest.approx(52.9123, abs=1e-3)
    # At that power the lightpath has exactly the target BER.
    at = optics.lightpaths(
        optics.OpticalParameters(laser_power_dbm=52.9123, snr_scale="db"), 10, 10, 1
    )
    assert float(at.ber) == pytest.approx(1e-9, rel=1e-3)


def test_max_hops_by_hand() -> None:
    # Linear reading: the power budget 10 - 1 - 1 - 0 = 8 dB allows 80 hops of 0.1 dB; at
    # 80 hops the worst-case SNR is 1 dBm - (81e-4 + 1e-4 mW = -20.86 dBm) = 21.86 dB, ratio
    # 153: BER ~ 1e-17, fine. So 80 hops, limited by power.
    assert optics.max_hops(optics.OpticalParameters()) == (80, "power (eq. 6)")
    # As printed, even one hop misses BER 1e-9 (SNR 46 dB < 80.1 dB).
    assert optics.max_hops(AS_PRINTED) == (0, "BER (eqs. 7-9)")
    # A laser of 60 dBm: loss allows (60 - 2) / 0.1 = 580 hops, but BER needs
    # 59 - 0.1 h >= 80.12 + 10 log10((h + 2) 1e-4), which fails long before: BER binds, and the
    # answer is the last h that passes.
    strong = optics.OpticalParameters(laser_power_dbm=60.0, snr_scale="db")
    hops, limited_by = optics.max_hops(strong)
    assert limited_by == "BER (eqs. 7-9)"
    ok = optics.lightpaths(strong, hops, hops, 1)
    over = optics.lightpaths(strong, hops + 1, hops + 1, 1)
    assert float(ok.ber) < 1e-9 <= float(over.ber)


def test_parameters_are_checked() -> None:
    with pytest.raises(optics.InvalidInputError, match="target_ber"):
        optics.OpticalParameters(target_ber=0.7)
    assert set(optics.ASSUMPTIONS) >= {"laser_power_dbm", "target_ber"}
