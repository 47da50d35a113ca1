"""What leads the Compare page's "segments where they differ most" (issue 23): short segments or real differences.

For each WMT21 dev set (``wmt21/{zh-en,en-de}`` of the development data, ``benchmarks/devdata.py``) and every pair of its first six systems, the
segments are ranked two ways — by |ΔchrF| (the page's old order) and by |Δproblem|
(``mtdiag.views.compare.segment_differences``: the difference of the two outputs' problem scores) — and it prints, as
the mean over the pairs, the share of segments whose (first) reference has at most five tokens among the top 20,
and the median reference length of the top 50, next to the same figures for the whole set.

Usage: ``python benchmarks/compare_ranking.py`` (Markdown on stdout).
"""

from __future__ import annotations

import itertools
import sys
from pathlib import Path

import numpy as np

import devdata

REPO = Path(__file__).resolve().parents[1]
DEV = devdata.folder("wmt21")
sys.path.insert(0, str(REPO))

from mtdiag.scoring.evaluate import evaluate  # noqa: E402
from mtdiag.io import load_folder  # noqa: E402
from mtdiag.views import compare  # noqa: E402

SHORT = 5  # tokens: a reference this short is a greeting, a name, a dateline
SYSTEMS = 6


def lengths(report) -> np.ndarray:
    """Tokens of the first reference per segment (the report's tokenisation)."""
    return np.asarray(report.context.tokens.refs[report.evalset.ref_names[0]].lengths)


def top_figures(order: np.ndarray, length: np.ndarray) -> tuple[float, float]:
    """(share of short references among the first 20, median reference length of the first 50) of a ranking."""
    return float((length[order[:20]] <= SHORT).mean()), float(np.median(length[order[:50]]))


def main() -> None:
    print("| set | ranked by | short refs in top 20 | median ref length, top 50 |")
    print("|---|---|---:|---:|")
    for pair in ("zh-en", "en-de"):
        report = evaluate(load_folder(DEV / pair))
        length = lengths(report)
        figures: dict[str, list[tuple[float, float]]] = {"ΔchrF (absolute)": [], "Δproblem (absolute)": []}
        for a, b in itertools.combinations(report.evalset.systems[:SYSTEMS], 2):
            frame = compare.segment_differences(report, a, b, "chrf")
            by_chrf = frame.assign(_abs=frame["difference"].abs()).sort_values(
                ["_abs", "seg"], ascending=[False, True], kind="stable")
            figures["ΔchrF (absolute)"].append(top_figures(by_chrf["seg"].to_numpy(), length))
            figures["Δproblem (absolute)"].append(top_figures(frame["seg"].to_numpy(), length))
        print(f"| {pair} | (the whole set) | {(length <= SHORT).mean():.1%} | {np.median(length):.0f} |")
        for name, rows in figures.items():
            short, median = np.mean(rows, axis=0)
            print(f"| {pair} | {name} | {short:.1%} | {median:.1f} |")


if __name__ == "__main__":
    main()
