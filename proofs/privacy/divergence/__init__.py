"""One neighbouring pair's divergence: exact hockey-stick divergences `δ(ε)` of two output
laws (`joint`: `Joint`, `PairCurve`, `HockeyStick`, both directions combined by max,
Def. 2.7) and the exact privacy curve `ε -> δ(ε)` with `epsilon_at_delta` (`curve`); the
same hockey stick with the event's probabilities kept as products of exact factors, certified
(`factored`: deep PrivTree pairs).

May import: core, `betweencut.proofs.exact`, `betweencut.proofs.laws`.
"""

from betweencut.proofs.privacy.divergence.curve import LogOf, PrivacyCurve, curve_of_laws
from betweencut.proofs.privacy.divergence.joint import HockeyStick, Joint, Law, PairCurve

__all__ = ["HockeyStick", "Joint", "Law", "LogOf", "PairCurve", "PrivacyCurve",
           "curve_of_laws"]
