"""``suspect_reference``: the segment's reference — not its outputs — looks wrong. WMT test sets (and company test
sets) hold references that are another segment's text, garbled, doubled or cut short; every system then scores
badly there and the queue used to charge the systems for it (a garbled reference and a doubled one were
the queue's first two segments, every output flagged, one of them rated only −3 by MQM).

A reference is suspect when it disagrees with what the outputs and the source agree on, for one of five reasons
(:func:`suspect_references`; each computed per reference, so with several references the flag says which one):

- **unrelated** — with two or more systems: the reference agrees with the outputs far less than they agree with
  each other. Per segment, the agreement of the reference with the outputs (n-gram F1 of the reference against
  every output pooled, as :mod:`mtdiag.metrics.consensus` scores an output against the others) over the median
  agreement of the outputs with each other, as ``log((reference + 1) / (outputs + 1))``; its modified z-score
  (Iglewicz & Hoaglin 1993: median and MAD, :func:`mtdiag.triage.checks.base.modified_z_scores`) among the segments of
  the same tenth of the set by output length (a short line's agreement swings more; tenths of at least
  :data:`MIN_BAND` segments, fewer on a small set) is below −:data:`Z` in both
  characters (chrF's n-grams of 1–6 characters, whitespace removed) and words (1–2 words as the report
  tokenises). Both views must agree, as the queue's views must. With one system there is nothing to agree
  with: an output unrelated to its reference is as likely the output's fault (a hallucination, a misaligned line)
  as the reference's, so this reason needs two or more systems (the other two do not).
- **length** — the reference is far longer or shorter than both the outputs and the source suggest: the modified
  z-scores of log(reference / median output length) and log(reference / source length) (characters without
  spaces) are both beyond ±:data:`Z` on the same side, each ratio at least :data:`MIN_FACTOR` times off the set's
  median ratio (as ``length_outlier`` asks; a robust z-score alone is unbounded where most ratios are equal).
  Without a source this reason is not given.
- **repeats** — the reference repeats itself where the outputs do not: the share of its word trigrams (bigrams
  under four words) that occur twice or more is at least :data:`REPEAT_SHARE` above the median output's (a source
  that repeats itself is translated so by the outputs too; the source itself is not read here: its words are of
  another language, tokenised for the target);
- **spun** and **garbled** — with two or more systems: in a run of segments the reference has words that no output,
  no other reference and nothing in the source supports and that no system uses anywhere — odd synonyms swapped in
  (spun) or broken words (garbled): :mod:`mtdiag.triage.checks.reference_words`, whose windows and cut-offs were
  chosen on the dev sets with spun and garbled runs planted. Odd words of a segment cut, doubled or lengthened (the
  length and repeats reasons) count for no neighbour's run.

Measured with references damaged on purpose (replaced by another segment's, doubled, cut to a third; runs spun or
garbled) on every dev set with a reference, and on the real references human raters scored
(``benchmarks/damaged_references.py``, ``docs/triage.md``): the first three rules were fitted to no set — the
cut-offs are the conventional 3.5 of the modified z-score and "half of its n-grams"; the alternatives tried are
listed there.

Where every reference of a segment is suspect, the queue does not charge the systems for it
(:mod:`mtdiag.triage.ranking`: the error rate of that segment's pairs comes from the reference-free views — the other
outputs as witnesses weighed by how good their systems look elsewhere —, its length from the outputs) and the checks that read the reference do not fire there (:func:`mtdiag.triage.checks.fired`)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.core.tokenize import characters_without_spaces
from mtdiag.triage.checks import reference_words
from mtdiag.triage.checks.base import Check, Finding, by_pair, modified_z_scores
from mtdiag.metrics.chrf_consensus import CHRF_ORDER, ChrfConsensus
from mtdiag.metrics.consensus import Consensus, _f_score
from mtdiag.scoring.evaluate import metric_statistics

Z = 3.5  # the modified z-score's conventional outlier cut-off (Iglewicz & Hoaglin 1993)
BANDS = 10  # tenths of the set by output length (as the holistic proxy of docs/triage.md) ...
MIN_BAND = 30  # ... each of at least this many segments (fewer bands on a smaller set; the slice finder's minimum)
MIN_FACTOR = 1.5  # a length reason is at least this factor off (as length_outlier's)
CHAR_ORDER, WORD_ORDER = 6, 2  # chrF's character n-grams; consensus's word n-grams
REPEAT_SHARE = 0.5
REASONS = ("unrelated", "length", "repeats", "spun", "garbled")
COLUMNS = ("seg", "reference", *REASONS, "agreement", "outputs_agreement", "reference_chars", "output_chars",
           "repeated", "output_repeated", "odd", "window_odd", "window_expected", "run_start", "run_end")


class SuspectReference(Check):
    """The ``suspect_reference`` check: the segment's reference disagrees with what the outputs and the source agree on.

    It is unrelated to them, far longer or shorter, repeating itself, or spun or garbled (a run of words no system
    uses): its reference-based scores are not charged to the systems. A claim about the reference, not the output."""
    name = "suspect_reference"
    label = "suspect reference"
    help = ("the segment's reference disagrees with what the outputs and the source agree on — unrelated to them, "
            "far longer or shorter, repeating itself, or spun or garbled (a run of words no system uses): its "
            "reference-based scores are not charged to the systems")
    needs = ("references",)
    about = "reference"

    def fires(self, report) -> pd.Series:
        """One boolean per pair: some reference of the pair's segment is suspect (the same for every system)."""
        suspect = suspect_segments(report)
        return by_pair(report, {s: suspect for s in report.evalset.systems})

    def explain(self, report, system, seg):
        """Why ``suspect_reference`` fired on one pair: each suspect reference, and whether the outputs are charged.

        One sentence per suspect reference, then whether the queue charges the outputs for it."""
        rows = suspect_references(report)
        rows = rows[rows["seg"] == seg]
        several = len(report.evalset.ref_names) > 1
        sentences = [_sentence(row, several, report) for row in rows.itertuples()]
        if every_reference_suspect(report)[seg]:
            sentences.append("The queue does not charge the outputs for it: their problem score here comes from "
                             "the reference-free evidence (agreement with the other systems) and the checks that "
                             "read the reference are off on this segment.")
        else:
            sentences.append("Another reference still vouches for the outputs: the queue keeps its evidence.")
        return Finding(tuple(sentences))


def _sentence(row, several: bool, report) -> str:
    """One plain sentence per suspect reference: which one, why, with the figures (and for a spun or garbled one
    the words that gave it away: :func:`giveaway`)."""
    name = f"Reference {row.reference}" if several else "The reference"
    reasons = []
    if row.unrelated:
        reasons.append(f"shares little with the outputs (n-gram F1 {row.agreement:.0f}, while the outputs agree "
                       f"{row.outputs_agreement:.0f} with each other) — another segment's text, or garbled?")
    if row.length:
        factor = row.reference_chars / max(row.output_chars, 1.0)
        reasons.append(f"is {factor:.1f}× as long as the outputs ({row.reference_chars:.0f} characters against "
                       f"{row.output_chars:.0f}) and as the source suggests — "
                       + ("doubled, or another text added?" if factor > 1 else "cut short?"))
    if row.repeats:
        reasons.append(f"repeats itself ({row.repeated:.0%} of its word n-grams occur twice; the outputs' "
                       f"{row.output_repeated:.0%}) — its text doubled?")
    if row.spun or row.garbled:
        reasons.append(_worded_reason(row, report))
    return f"{name} " + "; ".join(reasons)


MAX_SHOWN = 8  # odd words an explanation quotes


def giveaway(report, seg: int, reference: str) -> list[tuple[str, str | None]]:
    """The odd words of ``reference`` in segment ``seg``, each with the word most outputs have in its place.

    In text order (:func:`mtdiag.triage.checks.reference_words.odd_words`); None where the outputs have none there."""
    words = reference_words.odd_words(report)
    mine = words[(words["seg"] == seg) & (words["reference"] == reference)].sort_values("pos")
    return [(row.word, reference_words.outputs_word(report, seg, reference, int(row.pos)))
            for row in mine.itertuples()]


def _worded_reason(row, report) -> str:
    """Why a reference reads as spun or garbled: its odd words (where the outputs agree on another word in their
    place, that word), and the run of such segments."""
    words = giveaway(report, int(row.seg), row.reference)
    quoted = ", ".join(f"“{w}”" + (f" (the outputs: “{o}”)" if o and o != w else "") for w, o in words[:MAX_SHOWN])
    more = f" and {len(words) - MAX_SHOWN} more" if len(words) > MAX_SHOWN else ""
    kind = "reads as garbled — broken words" if row.garbled else "reads as spun — odd words"
    first, last = int(row.run_start), int(row.run_end)
    seg_ids = report.evalset.seg_ids
    run = (f"; one of {last - first + 1} such segments in a row ({seg_ids[first]}–{seg_ids[last]})"
           if last > first else "")
    return (f"{kind} that no output, no other reference and nothing in the source has, and that no system uses "
            f"anywhere in the set: {quoted}{more}. With its neighbours in the document it has {row.window_odd:.0f} "
            f"such words where its usual rate predicts {row.window_expected:.1f}{run}")


def suspect_segments(report) -> np.ndarray:
    """Per segment: some reference is suspect."""
    flagged = np.zeros(report.evalset.n_segments, dtype=bool)
    flagged[suspect_references(report)["seg"].to_numpy()] = True
    return flagged


def every_reference_suspect(report) -> np.ndarray:
    """Per segment: every reference is suspect (nothing vouches for the outputs there)."""
    rows = suspect_references(report)
    counts = np.bincount(rows["seg"].to_numpy(dtype=np.int64), minlength=report.evalset.n_segments)
    return counts >= max(len(report.evalset.ref_names), 1)


def reference_at_fault(report) -> pd.Series:
    """Per (system, segment) pair: every reference of its segment is suspect.

    The reference-based evidence of the pair is then the reference's fault, not the output's. Over
    ``report.segments.index``; all False without references."""
    suspect = every_reference_suspect(report) if report.evalset.ref_names else np.zeros(report.evalset.n_segments,
                                                                                          dtype=bool)
    return by_pair(report, {s: suspect for s in report.evalset.systems})


def suspect_references(report) -> pd.DataFrame:
    """One row per suspect (segment, reference): the reasons, and the figures they read.

    :data:`COLUMNS` — the reasons (booleans, :data:`REASONS`) and the figures they read (the reference's agreement with
    the outputs and theirs with each other, n-gram F1 0–100 in characters; lengths in characters; repeated n-gram
    shares). Memoised per report; empty without references."""
    return report.context.memo(("checks", "suspect_references"), lambda: _suspect_references(report))


def _suspect_references(report) -> pd.DataFrame:
    evalset = report.evalset
    if not evalset.ref_names or not evalset.systems:
        return pd.DataFrame({c: pd.Series(dtype=bool if c in REASONS else float) for c in COLUMNS}).astype(
            {"seg": "int64", "reference": object})
    chars = report.context.char_ngrams(CHAR_ORDER).sides  # every text without white space, as chrF reads it
    output_chars = np.median([chars[("hyp", s)].lengths for s in evalset.systems], axis=0).astype(float)
    has_source = bool(evalset.src.astype(str).str.strip().str.len().gt(0).any())
    source_chars = characters_without_spaces(evalset.src) if has_source else None
    bands = _length_bands(output_chars)
    peers = len(evalset.systems) >= 2  # one output cannot vouch against its reference: no "unrelated" reason
    nothing = ({ref: np.full(evalset.n_segments, np.nan) for ref in evalset.ref_names}, np.full(evalset.n_segments,
                                                                                               np.nan))
    char_refs, char_peers = _agreement(report, "char", CHAR_ORDER) if peers else nothing
    word_refs, word_peers = _agreement(report, "word", WORD_ORDER) if peers else nothing
    output_repeated = np.median([_repeated_share(report, ("hyp", s)) for s in evalset.systems], axis=0)
    frames = []
    for ref in evalset.ref_names:
        unrelated = ((_banded_z(np.log((char_refs[ref] + 1) / (char_peers + 1)), bands) < -Z)
                     & (_banded_z(np.log((word_refs[ref] + 1) / (word_peers + 1)), bands) < -Z))
        reference_chars = chars[("ref", ref)].lengths.astype(float)
        side = np.zeros(evalset.n_segments, dtype=np.int64)
        if source_chars is not None:  # both the outputs and the source must say so
            side = _outside(np.log((reference_chars + 1) / (output_chars + 1)))
            side = np.where(side == _outside(np.log((reference_chars + 1) / (source_chars + 1))), side, 0)
        repeated = _repeated_share(report, ("ref", ref))
        repeats = repeated - output_repeated >= REPEAT_SHARE
        explained = (side != 0) | repeats
        worded = _worded(reference_words.word_flags(report, ref, explained) if peers else None, evalset.n_segments)
        segs = np.flatnonzero(unrelated | (side != 0) | repeats | worded["spun"] | worded["garbled"])
        frames.append(pd.DataFrame({
            "seg": segs, "reference": ref, "unrelated": unrelated[segs], "length": side[segs] != 0,
            "repeats": repeats[segs], "spun": worded["spun"][segs], "garbled": worded["garbled"][segs],
            "agreement": char_refs[ref][segs], "outputs_agreement": char_peers[segs],
            "reference_chars": reference_chars[segs], "output_chars": output_chars[segs],
            "repeated": repeated[segs], "output_repeated": output_repeated[segs],
            **{c: worded[c][segs] for c in WORD_FIGURES}}))
    table = pd.concat(frames, ignore_index=True)[list(COLUMNS)]
    return table.sort_values(["seg", "reference"], kind="stable", ignore_index=True)


WORD_FIGURES = ("odd", "window_odd", "window_expected", "run_start", "run_end")


def _worded(flags: pd.DataFrame | None, n: int) -> dict[str, np.ndarray]:
    """The spun/garbled flags of one reference (:func:`mtdiag.triage.checks.reference_words.word_flags`) as arrays
    over the segments, with their figures (NaN where not flagged)."""
    out = {"spun": np.zeros(n, dtype=bool), "garbled": np.zeros(n, dtype=bool),
           **{c: np.full(n, np.nan) for c in WORD_FIGURES}}
    if flags is None or flags.empty:
        return out
    segs = flags["seg"].to_numpy(np.int64)
    for column in out:
        out[column][segs] = flags[column].to_numpy()
    return out


def _length_bands(lengths: np.ndarray) -> np.ndarray:
    """Each segment's band of the set by ``lengths``: tenths, each of at least :data:`MIN_BAND` segments (fewer
    bands on a smaller set, one under 60 segments); ties in rank order."""
    n = len(lengths)
    bands = max(1, min(BANDS, n // MIN_BAND))
    ranks = pd.Series(lengths).rank(method="first").to_numpy() - 1
    return (ranks * bands // max(n, 1)).astype(np.int64)


def _banded_z(values: np.ndarray, bands: np.ndarray) -> np.ndarray:
    """The modified z-score of each value among the values of its band."""
    out = np.full(len(values), np.nan)
    for band in np.unique(bands):
        inside = bands == band
        out[inside] = modified_z_scores(values[inside])
    return out


def _outside(log_ratios: np.ndarray) -> np.ndarray:
    """+1 where a log ratio's modified z-score is above :data:`Z` and the ratio at least :data:`MIN_FACTOR` times
    the set's median ratio, −1 where both are so below it, else 0."""
    z = modified_z_scores(log_ratios)
    off = np.abs(log_ratios - np.nanmedian(log_ratios)) >= np.log(MIN_FACTOR)
    return np.where(off & (z > Z), 1, np.where(off & (z < -Z), -1, 0))


def _agreement(report, kind: str, order: int) -> tuple[dict[str, np.ndarray], np.ndarray]:
    """(per reference: its n-gram F1 against every output pooled, per segment; the median over systems of each
    output's F1 against the other outputs), 0–100, orders 1..``order`` of the ``kind`` index (``char``: chrF's
    characters; ``word``: the report's tokens) — the formula of :mod:`mtdiag.metrics.consensus` (NaN for the
    outputs' agreement with one system)."""
    def build():
        ctx, evalset = report.context, report.evalset
        index = ctx.char_ngrams(order) if kind == "char" else ctx.word_ngrams(order)
        n = evalset.n_segments
        outputs = [("hyp", s) for s in evalset.systems]
        peers = np.full(n, np.nan)
        if len(outputs) >= 2:
            stats = _peer_statistics(report, kind, order)
            peers = np.median([_f_score(stats[i], order) for i in range(len(outputs))], axis=0)
        refs = {}
        for ref in evalset.ref_names:
            stats = [_pooled(index, ("ref", ref), outputs, k) for k in range(1, order + 1)]
            refs[ref] = _f_score(np.column_stack([s[stat] for stat in range(3) for s in stats]), order)
        return refs, peers

    return report.context.memo(("checks", "reference_agreement", kind, order), build)


def _pooled(index, reference, outputs: list, n: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For order ``n``: the reference's clipped matches against every output summed (``match``), its n-grams once
    per output (``hyp``), the outputs' n-grams (``ref``) — per segment, as consensus counts an output."""
    rows = index.rows([reference, *outputs], n)
    match = index.segment_sums(np.minimum(rows[1:], rows[:1]).sum(axis=0, dtype=np.int64)[None, :], n)[0]
    totals = index.segment_totals([reference, *outputs], n)
    return match, totals[0] * len(outputs), totals[1:].sum(axis=0)


def _peer_statistics(report, kind: str, order: int) -> np.ndarray:
    """Each output against the others: ``(system, segment, [match, hyp, ref] per order)`` in
    :func:`~mtdiag.metrics.consensus._f_score`'s layout (``match_1..match_order, hyp_1.., ref_1..``).

    The statistics of the reference-free metrics as the report has them
    (:func:`~mtdiag.scoring.evaluate.metric_statistics`: scored, kept for the learned judge, or computed once now):
    words, consensus's (:class:`~mtdiag.metrics.consensus.Consensus` of ``order``); characters, chrF consensus's
    (:class:`~mtdiag.metrics.chrf_consensus.ChrfConsensus`: the same counts on chrF's 6 orders, in chrF's layout)."""
    if kind == "word":
        return metric_statistics(report, Consensus(order=order))
    if order != CHRF_ORDER:
        raise ValueError(f"the outputs' character agreement is chrF consensus's, of {CHRF_ORDER} orders, not {order}")
    chrf = metric_statistics(report, ChrfConsensus())  # [hyp, ref, match] per order
    return np.concatenate([chrf[..., 2::3], chrf[..., 0::3], chrf[..., 1::3]], axis=-1)


def _repeated_share(report, side) -> np.ndarray:
    """Per segment: the share of the side's word trigrams (bigrams in a text of under four words) that occur twice
    or more in the same text (a doubled text: nearly all)."""
    def build():
        index = report.context.word_ngrams(3)
        shares = []
        for n in (2, 3):
            counts = index.counts(side, n)
            repeated = counts.per_segment(np.where(counts.counts >= 2, counts.counts, 0))
            with np.errstate(invalid="ignore", divide="ignore"):
                shares.append(np.where(counts.totals > 0, repeated / np.maximum(counts.totals, 1), 0.0))
        lengths = report.context.tokens.side(side[1]).lengths
        return np.where(lengths < 4, shares[0], shares[1])

    return report.context.memo(("checks", "repeated_share", side), build)
