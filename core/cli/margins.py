"""`betweencut margins`: the additive margin against h for BetweenCut and its baselines.

Table 1 / Section 5.3: BetweenCut (Eq. (24)), its relaxation Eq. (25) in both readings, the
full-tree Laplace and Gaussian baselines (Eq. (27), (30)), Ghazi et al. (Eq. (10)) and the
Lumberjack-style baseline; and, per baseline, the crossover height from which BetweenCut's
margin is the smallest (certified comparisons, see `betweencut.baselines.margins`).
"""

from __future__ import annotations

import argparse
import json

from betweencut.cli._common import (
    UsageError,
    add_accountant_flag,
    add_command,
    positive_int,
    rational,
)
from betweencut.data.tree import MAX_ARITY, MAX_CALIBRATION_HEIGHT
from betweencut.errors import BetweenCutError

MAX_TABLE_HEIGHTS = 100
MAX_LOG2_HEIGHT = 2048  # the crossover search: about 20 s at the bound
PLOT_FORMATS = ("png", "pdf", "svg", "svgz", "eps", "ps", "jpg", "jpeg", "tif", "tiff", "webp")


def _heights(text: str) -> list[int]:
    from betweencut.data.validate import int_text

    parts = [part for part in text.split(",") if part.strip()]
    if not parts or len(parts) > MAX_TABLE_HEIGHTS:
        raise argparse.ArgumentTypeError(
            f"heights: 1 to {MAX_TABLE_HEIGHTS} integers separated by commas")
    try:
        return [int_text(part, "height", 1, MAX_CALIBRATION_HEIGHT, "h <= 2^4096")
                for part in parts]
    except BetweenCutError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _plot_path(text: str) -> str:
    suffix = text.rsplit(".", 1)[-1].lower() if "." in text else ""
    if suffix not in PLOT_FORMATS:
        raise argparse.ArgumentTypeError(
            f"plot file {text!r} must end in one of: {', '.join('.' + f for f in PLOT_FORMATS)}")
    return text


def add_parser(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    p = add_command(
        sub, "margins",
        "Additive margin against the tree height: BetweenCut, Eq. (25), full-tree Laplace and "
        "Gaussian, Ghazi et al., Lumberjack-style; and the crossover heights.",
        "betweencut margins --epsilon 1 --delta 0.05 --heights 3,15,1000 --json",
    )
    p.add_argument("--epsilon", type=rational("epsilon"), required=True, help="0 < eps <= 1")
    p.add_argument("--delta", type=rational("delta"), required=True, help="0 < delta < 1/10")
    p.add_argument("--beta", type=rational("beta"), default="1/100",
                   help="failure probability of the probabilistic margins (default 1/100)")
    p.add_argument("--arity", type=positive_int("arity", 1, MAX_ARITY), default=2,
                   help="arity k of the complete tree whose N enters Eq. (27), (30) (default 2)")
    p.add_argument("--heights", type=_heights, default=[3, 15, 1000],
                   help="comma-separated heights for the table (default 3,15,1000)")
    p.add_argument("--tau", type=rational("tau"), default="1000",
                   help="threshold tau in Ghazi et al.'s margin (default 1000)")
    p.add_argument("--ghazi-M", dest="ghazi_m", type=rational("M"), default="100000",
                   help="public bound M >= n in Ghazi et al.'s margin (default 100000)")
    p.add_argument("--max-log2-height", default=1024,
                   type=positive_int("max-log2-height", 1, MAX_LOG2_HEIGHT),
                   help="crossover search over 1 <= h < 2^this (default 1024)")
    add_accountant_flag(p)
    p.add_argument("--json", action="store_true", help="one JSON object")
    p.add_argument("--plot", metavar="FILE.png", type=_plot_path,
                   help="plot the margins against log2 h (.png, .pdf, .svg, ...)")
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from betweencut.api import margins

    table = margins(args.epsilon, args.delta, beta=args.beta, arity=args.arity,
                    heights=args.heights, tau=args.tau, ghazi_m=args.ghazi_m,
                    max_log2_height=args.max_log2_height, accountant=args.accountant)
    if args.plot:
        plot(args, args.plot)
    print(json.dumps(table.as_json()) if args.json else table.text())
    return 0


def plot(args: argparse.Namespace, path: str) -> None:
    """Margins against log2 h on a log scale (matplotlib, imported only here)."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise UsageError("--plot needs matplotlib: pip install 'betweencut[plot]'") from None
    from betweencut.baselines.margins import ALL, LABELS, MarginSetting, crossover, margin_row

    setting = MarginSetting.of(args.epsilon, args.delta, args.beta, args.arity, args.tau,
                               args.ghazi_m)
    top = min(args.max_log2_height, 256)
    exps = [e / 4 for e in range(0, 4 * top + 1)]
    heights = sorted({max(1, round(2**e)) for e in exps})
    rows = [margin_row(setting, h) for h in heights]
    fig, ax = plt.subplots(figsize=(8, 5))
    from math import log2

    for name in ALL:
        xs = [log2(r["h"]) for r in rows if r[name] is not None]
        ys = [r[name] for r in rows if r[name] is not None]
        ax.plot(xs, ys, label=LABELS[name])
    ax.set_yscale("log")
    small = [r[n] for r in rows for n in ("betweencut", "eq25_L", "lumberjack", "ghazi")
             if r[n] is not None]
    ax.set_ylim(min(small) / 2, max(small) * 10)  # the full-tree curves leave the frame
    lj = crossover(setting, "lumberjack", top)
    if lj.height is not None and lj.height.bit_length() - 1 <= top:
        ax.axvline(log2(lj.height), color="grey", linestyle=":",
                   label="crossover vs Lumberjack-style")
    ax.set_xlabel("log2 h")
    ax.set_ylabel("additive margin")
    ax.set_title(f"eps = {setting.epsilon}, delta = {setting.delta}, beta = {setting.beta}")
    ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
