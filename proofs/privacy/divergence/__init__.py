"""One neighbouring pair's divergence: exact hockey-stick divergences `δ(ε)` of two output
laws (`profiles`: `Joint`, `HockeyStick`, both directions combined by max, Def. 2.7) and the
exact privacy curve `ε -> δ(ε)` with `epsilon_at_delta` (`curve`); the same hockey stick with
the event's probabilities kept as products of exact factors, certified (`factored`: deep
PrivTree pairs).

May import: core, `betweencut.proofs.exact`, `betweencut.proofs.laws`.
"""

from betweencut.proofs.privacy.divergence.curve import LogOf, PrivacyCurve, curve_of_laws
from betweencut.proofs.privacy.divergence.profiles import HockeyStick, Joint, Law, PairProfile

__all__ = ["HockeyStick", "Joint", "Law", "LogOf", "PairProfile", "PrivacyCurve",
           "curve_of_laws"]
