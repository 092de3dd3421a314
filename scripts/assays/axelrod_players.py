"""Our deterministic strategy names, and axelrod's definitions of them (the reference, docs/witnesses.md)."""

import axelrod as axl

DETERMINISTIC = {
    "tit_for_tat": axl.TitForTat,
    "always_defect": axl.Defector,
    "always_cooperate": axl.Cooperator,
    "grudger": axl.Grudger,
    "tit_for_two_tats": axl.TitFor2Tats,
    "suspicious_tit_for_tat": axl.SuspiciousTitForTat,
    "alternator": axl.Alternator,
    "win_stay_lose_shift": axl.WinStayLoseShift,
}
