"""Reference bias: a reference made from one system's output favours that system in every reference-based score.

Per system and reference, the **near copies** are the segments where the system's output equals the reference or
nearly does: sentence chrF against that reference at least :data:`NEAR_CHRF`, or TER at most :data:`NEAR_TER`, or
the same words (the report's own segment scores: chrF per reference from the chrF statistics the report computed
its score from, TER from the report — with several references TER's best reference, counted for the reference the
output is closest to in chrF). A reference translated by people lands near an output now and then — a short line,
a name, a set phrase —, about as often for every good system; a reference post-edited from one system's output
lands near that system's far more often than near the others'.

**The test** (:func:`reference_bias`): per (system, reference), the system's near copies ``k`` of ``n`` segments
against the other systems' pooled ``K`` of ``n × (systems − 1)`` — Fisher's exact test, one-sided (the system is
copied more often: the hypergeometric upper tail; Fisher 1922), its p values Holm-corrected (Holm 1979) over every
(system, reference) tested. Pooling the others treats their pairs as independent, and a large set makes a small
difference significant, so **an effect floor** guards the flag: a system is ``biased`` when the corrected p is below
:data:`ALPHA` *and* its share of near copies is at least :data:`MIN_RATIO` times the others' and
:data:`MIN_EXCESS` above it. Chosen on the development sets (``docs/triage.md``, "Reference bias"): on the sets as
released no system reaches a ratio of 2.1 with a significant p (VolcTrans-GLAT on WMT21 en-de, 1.97, is closer to
every reference alike; Online-W, 2.05, to reference B of the larger WMT21 en-de copy, whose VolcTrans-GLAT — ratio
4.0, identical outputs on 190 of 519 segments — is the one real case), a ratio of 2.9 comes only at a near-copy share
of 0.7 % (HuaweiTSC on WMT21 en-ja: 7 of 1,000, not significant) — hence the floor on the difference too; a reference
planted from one system's output on a quarter of the segments gives ratios from 2.9 (TED en-de, whose five
``metricsystem`` outputs resemble each other) to 43.

With the warning go two rankings (:mod:`mtdiag.views.overview`): without the segments a favoured system copies
(:func:`favoured_segments`), and by the other references alone where the set has another one.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd

from mtdiag.analysis.significance.corrections import holm
from mtdiag.core.tokenize import collapse_spaces

NEAR_CHRF = 90.0  # chrF at least this: the output nearly equals the reference
NEAR_TER = 10.0  # TER at most this (one edit in ten words)
ALPHA = 0.05  # Holm-corrected p below this ...
MIN_RATIO = 2.5  # ... and a share of near copies at least this many times the other systems' ...
MIN_EXCESS = 0.05  # ... and this much above it (5 points of the segments)
COLUMNS = ("system", "reference", "near_copies", "identical", "segments", "share", "others_share", "ratio", "p",
           "biased")


def applies(report) -> bool:
    """The set has a reference, two or more systems, and the report chrF or TER."""
    return (report.evalset.has_references and len(report.evalset.systems) >= 2
            and bool({"chrf", "ter"} & set(report.metrics)))


def near_copies(report) -> dict[str, pd.DataFrame]:
    """Per reference: where each system's output is a near copy of it (see the module docstring).

    A boolean frame (index ``seg``, one column per system), True where the system's output is a near copy of that
    reference. Memoised per report."""
    return report.context.memo(("reference_bias", "near"), lambda: _near_copies(report))


def _near_copies(report) -> dict[str, pd.DataFrame]:
    evalset = report.evalset
    systems, refs, n = evalset.systems, evalset.ref_names, evalset.n_segments
    chrf = _chrf_per_reference(report)  # ref -> (system, seg), NaN without chrF
    closest = np.argmax(np.stack([np.nan_to_num(chrf[r], nan=-1.0) for r in refs]), axis=0)  # (system, seg)
    ter = (report.segments["ter"].unstack("system").reindex(columns=systems).to_numpy().T
           if "ter" in report.metrics else np.full((len(systems), n), np.nan))
    near_ter = np.nan_to_num(ter, nan=np.inf) <= NEAR_TER
    out = {}
    for i, ref in enumerate(refs):
        same = identical(report, ref)
        near = (np.nan_to_num(chrf[ref], nan=-1.0) >= NEAR_CHRF) | (near_ter & (closest == i)) | same
        out[ref] = pd.DataFrame(near.T, columns=systems).rename_axis("seg")
    return out


def identical(report, ref: str) -> np.ndarray:
    """(system, seg): the output has the same words as reference ``ref`` (white space aside).

    Each text's white space collapsed once per report (:func:`~mtdiag.core.tokenize.collapse_spaces`), not once per
    reference and explained row."""
    outputs, references = report.context.memo(("reference_bias", "collapsed"), lambda: _collapsed_texts(report))
    return outputs == references[ref]


def _collapsed_texts(report) -> tuple[np.ndarray, dict[str, np.ndarray]]:
    """(the outputs' texts as ``(system, seg)``, per reference its texts), white space collapsed."""
    evalset = report.evalset
    outputs = np.array([collapse_spaces(evalset.hyps[s]) for s in evalset.systems], dtype=object).reshape(
        len(evalset.systems), evalset.n_segments)
    return outputs, {ref: np.array(collapse_spaces(evalset.refs[ref]), dtype=object) for ref in evalset.ref_names}


def _chrf_per_reference(report) -> dict[str, np.ndarray]:
    """Per reference: sentence chrF of every (system, seg) against that reference alone — the report's own chrF
    with one reference, else from the per-reference statistics of the report's chrF (nothing tokenised again);
    NaN everywhere when the report has no chrF."""
    evalset = report.evalset
    shape = (len(evalset.systems), evalset.n_segments)
    if "chrf" not in report.metrics:
        return {r: np.full(shape, np.nan) for r in evalset.ref_names}
    if len(evalset.ref_names) == 1:
        values = report.segments["chrf"].unstack("system").reindex(columns=evalset.systems).to_numpy().T
        return {evalset.ref_names[0]: values}
    from mtdiag.metrics.standard import chrf_from_stats

    stats = report.metric("chrf").statistics_per_reference(report.context)
    return {ref: chrf_from_stats(values) for ref, values in stats.items()}


def reference_bias(report) -> pd.DataFrame:
    """One row per system (:data:`COLUMNS`): how much more often than the others it copies a reference.

    The reference it is most copied from (the smallest p, then the largest share), its ``near_copies`` and ``identical``
    outputs of that reference, ``segments``, its ``share`` of near copies and the other systems' pooled
    ``others_share``, their ``ratio``, ``p`` (Fisher's exact test, one-sided, Holm-corrected over every system and
    reference) and ``biased`` (p < :data:`ALPHA`, ratio ≥ :data:`MIN_RATIO`, share − others' share ≥
    :data:`MIN_EXCESS`). Highest share first. Memoised per report."""
    return report.context.memo(("reference_bias", "table"), lambda: _reference_bias(report))


def hypergeom_upper_tail(k: int, total: int, marked: int, drawn: int) -> float:
    """P(X >= k) for X hypergeometric: ``drawn`` of ``total`` items taken, ``marked`` of them marked (Fisher 1922).

    The one-sided p of Fisher's exact test: the sum of the probabilities C(marked, i) C(total - marked, drawn - i) /
    C(total, drawn) for i from k up, each taken in logs (``math.lgamma``) and summed scaled by the largest, so it
    agrees with ``scipy.stats.hypergeom.sf(k - 1, total, marked, drawn)`` to 1e-9 relative (tested) without
    importing scipy.stats — 0.5-1.5 s that the dashboard's first page paid for this test alone."""
    low, high = max(k, 0, drawn - (total - marked)), min(marked, drawn)
    if k <= 0:
        return 1.0
    if low > high:
        return 0.0

    def log_choose(n: int, r: np.ndarray) -> np.ndarray:
        return math.lgamma(n + 1) - np.array([math.lgamma(x + 1) + math.lgamma(n - x + 1) for x in r.tolist()])

    i = np.arange(low, high + 1)
    terms = log_choose(marked, i) + log_choose(total - marked, drawn - i) - log_choose(total, np.array([drawn]))[0]
    top = terms.max()
    return float(min(1.0, math.exp(top) * np.exp(terms - top).sum()))


def _reference_bias(report) -> pd.DataFrame:
    evalset = report.evalset
    n, k = evalset.n_segments, len(evalset.systems)
    rows = []
    for ref, near in near_copies(report).items():
        counts = near.sum(axis=0).to_numpy(dtype=np.int64)
        same = identical(report, ref).sum(axis=1)
        for i, system in enumerate(evalset.systems):
            others = int(counts.sum() - counts[i])
            pooled = n * (k - 1)
            p = hypergeom_upper_tail(int(counts[i]), n + pooled, int(counts[i]) + others, n)
            share, others_share = counts[i] / n, others / pooled
            rows.append({"system": system, "reference": ref, "near_copies": int(counts[i]),
                         "identical": int(same[i]), "segments": n, "share": share, "others_share": others_share,
                         "ratio": share / others_share if others_share else (np.inf if share else np.nan), "p": p})
    table = pd.DataFrame(rows)
    table["p"] = holm(table["p"].to_numpy())  # over every (system, reference) tested
    table["biased"] = ((table["p"] < ALPHA) & (table["ratio"] >= MIN_RATIO)
                       & (table["share"] - table["others_share"] >= MIN_EXCESS))
    table = table.sort_values(["system", "p", "share"], ascending=[True, True, False], kind="stable")
    table = table.drop_duplicates("system").sort_values(["share", "system"], ascending=[False, True],
                                                         kind="stable", ignore_index=True)
    return table[list(COLUMNS)]


def biased(report) -> pd.DataFrame:
    """The rows of :func:`reference_bias` that are ``biased`` (empty when the test does not apply)."""
    if not applies(report):
        return pd.DataFrame(columns=list(COLUMNS))
    table = reference_bias(report)
    return table[table["biased"]].reset_index(drop=True)


def favoured_segments(report) -> np.ndarray:
    """Per segment: some biased system's output is a near copy of the reference that favours it there."""
    mask = np.zeros(report.evalset.n_segments, dtype=bool)
    flagged = biased(report)
    if flagged.empty:
        return mask
    near = near_copies(report)
    for row in flagged.itertuples():
        mask |= near[row.reference][row.system].to_numpy()
    return mask


def warning(report) -> str:
    """One plain sentence naming the systems a reference favours, with the figures; "" when none is."""
    flagged = biased(report)
    if flagged.empty:
        return ""
    several = len(report.evalset.ref_names) > 1
    parts = [f"{row.system} ({row.near_copies:,} of {row.segments:,} segments a near copy"
             + (f" of reference {row.reference}" if several else " of the reference")
             + f", {row.identical:,} identical; the other systems {row.others_share:.1%} on average)"
             for row in flagged.itertuples()]
    who = "is" if len(parts) == 1 else "are"
    return (f"The reference favours {' and '.join(parts)}: {'it' if len(parts) == 1 else 'they'} {who} far closer "
            f"to it than the other systems (Fisher's exact test, Holm-corrected p < {ALPHA:g}, at least "
            f"{MIN_RATIO:g} times the others' share) — a reference made from a system's output, so every "
            "reference-based score ranks "
            f"{'it' if len(parts) == 1 else 'them'} too high.")
