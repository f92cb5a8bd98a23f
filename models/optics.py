"""Optical loss and crosstalk of the OpTree journal paper, Section IV-B, eqs. (4)-(9), as pure
functions with units in their names. Losses and penalties are in dB, powers in dBm or mW as
named. Eq. (4), the worst-case path length, is `closed_forms.optree_max_path_hops`.

Defaults for the physical parameters are not set here: the paper gives none (it cites [35]-[37]
for the model, not for values); the optical-feasibility issue decides them.
"""

from __future__ import annotations

import math

RELIABLE_BER = 1e-9  # OpTree journal Sec. IV-B.2, after [37]


def total_loss_db(modulator_loss_db: float, hops: float, pass_loss_db_per_node: float) -> float:
    """Eq. (5): L_l = P_m + L_max * P_pass (modulator loss plus one pass-through per node)."""
    return modulator_loss_db + hops * pass_loss_db_per_node


def power_margin_db(laser_power_dbm: float, loss_db: float, extinction_penalty_db: float) -> float:
    """Eq. (6) as a margin: P_laser - (L_l + P_p); the power constraint holds when >= 0.

    As printed, eq. (6) compares the laser power directly with loss plus penalty, i.e. it takes
    the receiver's required power as 0 dBm."""
    return laser_power_dbm - (loss_db + extinction_penalty_db)


def worst_crosstalk_mw(hops: float, rx_crosstalk_mw: float, tx_crosstalk_mw: float) -> float:
    """Eq. (8): P_Nw = L_max * P_Rx + P_Tx (worst-case crosstalk power at the detector)."""
    return hops * rx_crosstalk_mw + tx_crosstalk_mw


def snr_db(signal_mw: float, crosstalk_mw: float, other_noise_mw: float) -> float:
    """Eq. (7): SNR = 10 log10(P_S / (P_N + P_O))."""
    return 10.0 * math.log10(signal_mw / (crosstalk_mw + other_noise_mw))


def ber(snr: float) -> float:
    """Eq. (9): BER = 1/2 exp(-SNR / 4), with SNR the value of eq. (7) as printed (in dB)."""
    return 0.5 * math.exp(-snr / 4.0)


def snr_for_ber(target_ber: float = RELIABLE_BER) -> float:
    """The SNR that eq. (9) needs for `target_ber`: 4 ln(1 / (2 BER)).
    At BER = 1e-9 this is 80.1 (in eq. (7)'s dB): a much stricter demand than the same number
    read as a linear ratio (19 dB). Which one the paper meant is a finding to settle."""
    return 4.0 * math.log(1.0 / (2.0 * target_ber))


def dbm_to_mw(power_dbm: float) -> float:
    return float(10.0 ** (power_dbm / 10.0))


def mw_to_dbm(power_mw: float) -> float:
    return 10.0 * math.log10(power_mw)
