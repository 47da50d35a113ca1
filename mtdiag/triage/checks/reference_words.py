"""Words of a reference that nothing supports: the evidence that a reference was **spun** (its words swapped for odd
synonyms, as an article spinner does: "the genuine domain designer … obtains a domestic" for "the real estate
developer … purchases a home") or **garbled** (its words broken), read by :mod:`mtdiag.triage.checks.suspect_reference`.

**An odd word** of a reference (:func:`odd_words`) is a word (letters, not punctuation) that

- no output of the segment, no other reference and nothing in the source has — not as written, and not as a word
  sharing its stem: the first ``max(5, ⌈0.7 × length⌉)`` characters, so that an inflection or a compound of an
  output's word ("Reiseplänen" for "Reisepläne", "случайной" for "случайный") is supported;
- and that no output uses anywhere in the set, again by stem: a word the systems never chose, not merely a synonym
  they chose elsewhere.

A reference translated by people has odd words now and then — a name written otherwise, a free rendering, a term of
the document; a spun reference has them in every segment, for words every output agrees on. So one segment's odd
words prove little, and **a run proves much** (:func:`word_flags`): per segment, its odd words and those of its
neighbours — the segments of the same document at most :data:`WINDOW` positions away — are counted against what
the reference's usual rate predicts for as many words, a Poisson upper tail (the odd words of independent words);
the segment is flagged when that tail is below :data:`ALPHA`, the count at least :data:`RATIO` times the expected
one, the segment itself has at least :data:`OWN` odd words, and it is one of a run of at least :data:`MIN_RUN` such
segments of its document — unless its own words alone pass the same test. The usual rate is the median over the
windows of the segments where the reference is not a copy of an output (it has a word no output has: a reference
partly made from a system's output would otherwise have a usual rate of nought), at least half an odd word per
window. The odd words of a segment whose reference is suspect for another reason (cut, doubled, lengthened: that
damage's words) count for no neighbour's window and not for the usual rate.

A flagged segment is **garbled** when most of its odd words are broken words — within :data:`NEAR_MISS` (rapidfuzz
``ratio``, 0–100) of a word an output of the segment has ("tranlsation" for "translation") — and **spun**
otherwise. The windows, the rate, the tail and the four cut-offs were chosen on the development sets with spun
and garbled runs planted (``benchmarks/damaged_references.py``, ``docs/triage.md`` "Suspect references", which also
names the one variant dropped after a look at a held-out set).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.triage.checks.tokens import source_tokens, word_ids

WINDOW = 5  # neighbours on each side within the document
ALPHA = 1e-4  # Poisson upper tail of the window's odd words below this ...
RATIO = 2.0  # ... and at least this many times the expected count ...
OWN = 2  # ... and the segment itself has this many odd words ...
MIN_RUN = 3  # ... in a run of this many such segments of its document, unless its own words alone say so
STEM_MIN, STEM_SHARE = 5, 0.7  # a word's stem: its first max(5, ceil(0.7 × length)) characters
NEAR_MISS = 80  # rapidfuzz ratio to an output's word at least this: a broken word (garbled), not another word
WORD_COLUMNS = ("seg", "reference", "pos", "word", "near_miss")
FLAG_COLUMNS = ("seg", "reference", "spun", "garbled", "odd", "window_odd", "window_expected", "run_start",
                "run_end")


def _letters(vocab: np.ndarray) -> np.ndarray:
    """Per vocabulary id: the token has a letter (a word, not a number or a sign)."""
    return np.fromiter((any(ch.isalpha() for ch in str(t)) for t in vocab), dtype=bool, count=len(vocab))


def _stem_lengths(vocab: np.ndarray) -> np.ndarray:
    lengths = np.fromiter((len(str(t)) for t in vocab), dtype=np.int64, count=len(vocab))
    return np.maximum(STEM_MIN, np.ceil(STEM_SHARE * lengths)).astype(np.int64)


def _side_keys(side, n_vocab: int) -> np.ndarray:
    """Distinct ``seg * n_vocab + id`` of a token side."""
    seg = np.repeat(np.arange(len(side.lengths), dtype=np.int64), side.lengths)
    return np.unique(seg * n_vocab + side.ids)


def _member(keys: np.ndarray, ordered: np.ndarray) -> np.ndarray:
    """Per key: it is in ``ordered`` (sorted, distinct) — a binary search, not a sort of ``keys``."""
    if not len(ordered):
        return np.zeros(len(keys), dtype=bool)
    at = np.minimum(np.searchsorted(ordered, keys), len(ordered) - 1)
    return ordered[at] == keys


def output_keys(report) -> np.ndarray:
    """Distinct ``seg * vocabulary size + id`` of every output's tokens, sorted (memoised per report)."""
    tokens = report.context.tokens
    return report.context.memo(("checks", "output_keys"), lambda: np.unique(np.concatenate(
        [_side_keys(side, len(tokens.vocab)) for side in tokens.hyps.values()])))


def odd_words(report) -> pd.DataFrame:
    """Every odd word of every reference (module docstring), one row each.

    :data:`WORD_COLUMNS` — ``pos`` its token position, ``word`` as the report tokenised it, ``near_miss`` whether it is
    a broken form of an output's word of the segment. Memoised per report; empty without references or systems."""
    return report.context.memo(("checks", "odd_words"), lambda: _odd_words(report))


def _odd_words(report) -> pd.DataFrame:
    tokens, evalset = report.context.tokens, report.evalset
    if not evalset.ref_names or not evalset.systems:
        return pd.DataFrame({c: pd.Series(dtype=object) for c in WORD_COLUMNS})
    vocab, n_vocab = tokens.vocab, len(tokens.vocab)
    words = word_ids(report) & _letters(vocab)
    outputs = output_keys(report)
    used = np.zeros(n_vocab, dtype=bool)
    used[outputs % n_vocab] = True
    source = source_tokens(report)
    source = source[source["id"] >= 0]
    source_keys = source["seg"].to_numpy(np.int64) * n_vocab + source["id"].to_numpy(np.int64)
    references = {name: _side_keys(side, n_vocab) for name, side in tokens.refs.items()}
    frames = []
    for name, side in tokens.refs.items():
        seg = np.repeat(np.arange(evalset.n_segments, dtype=np.int64), side.lengths)
        pos = np.arange(len(side.ids)) - np.repeat(side.offsets[:-1], side.lengths)
        others = [k for r, k in references.items() if r != name]
        support = np.unique(np.concatenate([outputs, source_keys, *others]))
        candidate = np.flatnonzero(words[side.ids] & ~used[side.ids]
                                   & ~_member(seg * n_vocab + side.ids, support))
        stemmed, stem_used = _stem_support(vocab, seg[candidate], side.ids[candidate], support, used)
        odd = candidate[~stemmed & ~stem_used]
        frames.append(pd.DataFrame({"seg": seg[odd], "reference": name, "pos": pos[odd],
                                    "word": vocab[side.ids[odd]].astype(str)}))
    table = pd.concat(frames, ignore_index=True)
    table["near_miss"] = _near_misses(report, table)
    return table[list(WORD_COLUMNS)]


def _stem_support(vocab: np.ndarray, segs: np.ndarray, ids: np.ndarray, support: np.ndarray, used: np.ndarray
                  ) -> tuple[np.ndarray, np.ndarray]:
    """For candidate words (``segs``, ``ids``): (a supporting text of the segment has a word of the same stem,
    some output anywhere uses a word of that stem — ``used``: per vocabulary id). One pass per stem length over
    the supports of the segments with a candidate of that length."""
    n_vocab = len(vocab)
    texts = [str(t) for t in vocab]
    lengths = np.fromiter((len(t) for t in texts), dtype=np.int64, count=n_vocab)
    stem = _stem_lengths(vocab)[ids]
    stemmed = np.zeros(len(ids), dtype=bool)
    stem_used = np.zeros(len(ids), dtype=bool)
    used_ids = np.flatnonzero(used)
    for size in np.unique(stem):
        mine = np.flatnonzero((stem == size) & (lengths[ids] >= size))
        if not len(mine):
            continue
        long_enough = np.flatnonzero(lengths >= size)
        codes = np.full(n_vocab, -1, dtype=np.int64)
        codes[long_enough] = pd.factorize(pd.Series([texts[i][:size] for i in long_enough], dtype=object))[0]
        width = int(codes.max()) + 1
        in_segments = np.zeros(int(segs.max()) + 1, dtype=bool)
        in_segments[segs[mine]] = True
        nearby = support[(support // n_vocab < len(in_segments))]
        nearby = nearby[in_segments[nearby // n_vocab]]
        code = codes[nearby % n_vocab]
        keyed = np.unique((nearby // n_vocab)[code >= 0] * width + code[code >= 0])
        stemmed[mine] = _member(segs[mine] * width + codes[ids[mine]], keyed)
        seen = np.zeros(width, dtype=bool)
        seen[codes[used_ids][codes[used_ids] >= 0]] = True
        stem_used[mine] = seen[codes[ids[mine]]]
    return stemmed, stem_used


def _near_misses(report, table: pd.DataFrame) -> np.ndarray:
    """Per odd word: within :data:`NEAR_MISS` of a word an output of its segment has (rapidfuzz ``ratio``)."""
    from rapidfuzz import fuzz, process

    tokens = report.context.tokens
    out = np.zeros(len(table), dtype=bool)
    for seg, rows in table.groupby("seg").groups.items():
        seen = {w for side in tokens.hyps for w in tokens.tokens(side, int(seg))}
        if not seen:
            continue
        for i in rows:
            best = process.extractOne(table.at[i, "word"], seen, scorer=fuzz.ratio, score_cutoff=NEAR_MISS)
            out[table.index.get_loc(i)] = best is not None
    return out


def _at_least(k: np.ndarray, mean: np.ndarray) -> np.ndarray:
    """P(X >= k) for X ~ Poisson(mean), elementwise: ``scipy.stats.poisson.sf(k - 1, mean)`` exactly (1 where k <= 0).

    Computed with ``scipy.special.pdtrc``, the function scipy.stats' own ``poisson.sf`` calls, so the check does not
    import scipy.stats (0.5-1.5 s, most of this check's time on a set of a few hundred segments)."""
    from scipy.special import pdtrc

    k = np.floor(np.asarray(k, dtype=float))
    return np.where(k <= 0, 1.0, pdtrc(np.maximum(k - 1, 0), mean))


def word_flags(report, reference: str, explained: np.ndarray) -> pd.DataFrame:
    """The flagged segments of ``reference``, one row each.

    :data:`FLAG_COLUMNS` — ``spun``/``garbled``, the segment's odd words, the window's odd words and the count its
    words predict, the first and last segment of the run of flagged segments it belongs to in its document
    (0-based). ``explained``: per segment, the reference is suspect for another reason there (another segment's
    text, cut, doubled) — its odd words are that damage's, so they count for no neighbour's window nor for the usual
    rate (the segment's own window still counts them)."""

    evalset, tokens = report.evalset, report.context.tokens
    documents = _documents(evalset)
    words = word_ids(report) & _letters(tokens.vocab)
    side = tokens.refs[reference]
    seg = np.repeat(np.arange(evalset.n_segments, dtype=np.int64), side.lengths)
    count = np.maximum(np.bincount(seg[words[side.ids]], minlength=evalset.n_segments).astype(float), 1.0)
    odd = odd_words(report)
    mine = odd[odd["reference"] == reference]
    own = np.bincount(mine["seg"].to_numpy(np.int64), minlength=evalset.n_segments).astype(float)
    counted = ~np.asarray(explained, dtype=bool)
    window_odd = _window_sums(own * counted, documents) + own * ~counted
    window_words = _window_sums(count * counted, documents) + count * ~counted
    rate = _usual_rate(own, count, _written_apart(report, reference) & counted, documents)
    expected = rate * window_words
    unusual = (_at_least(window_odd, expected) < ALPHA) & (window_odd >= RATIO * expected) & (own >= OWN)
    alone = (_at_least(own, rate * count) < ALPHA) & (own >= RATIO * rate * count) & (own >= OWN)
    start, end = _runs(unusual, documents)
    flagged = unusual & ((end - start + 1 >= MIN_RUN) | alone)
    segs = np.flatnonzero(flagged)
    broken = mine.groupby("seg")["near_miss"].mean().reindex(segs, fill_value=0.0).to_numpy()
    return pd.DataFrame({"seg": segs, "reference": reference, "spun": broken <= 0.5, "garbled": broken > 0.5,
                         "odd": own[segs], "window_odd": window_odd[segs], "window_expected": expected[segs],
                         "run_start": start[segs], "run_end": end[segs]})[list(FLAG_COLUMNS)]


def _documents(evalset) -> np.ndarray:
    """Per segment: its document's number (one document when the set has none)."""
    if "doc" not in evalset.segments.columns:
        return np.zeros(evalset.n_segments, dtype=np.int64)
    return pd.factorize(evalset.segments["doc"].astype(str))[0].astype(np.int64)


def _window_sums(values: np.ndarray, documents: np.ndarray) -> np.ndarray:
    """Per segment: the sum of ``values`` over the segments of its document at most :data:`WINDOW` positions away
    (in set order)."""
    out = np.zeros(len(values))
    order = np.argsort(documents, kind="stable")
    docs, vals = documents[order], values[order]
    starts = np.flatnonzero(np.r_[True, docs[1:] != docs[:-1]])
    ends = np.r_[starts[1:], len(docs)]
    cumulative = np.r_[0.0, np.cumsum(vals)]
    first, last = np.repeat(starts, ends - starts), np.repeat(ends, ends - starts)
    i = np.arange(len(docs))
    out[order] = cumulative[np.minimum(i + WINDOW + 1, last)] - cumulative[np.maximum(i - WINDOW, first)]
    return out


def _written_apart(report, reference: str) -> np.ndarray:
    """Per segment: the reference has a word that no output of the segment has (it is not a copy of an output)."""
    tokens = report.context.tokens
    side = tokens.refs[reference]
    seg = np.repeat(np.arange(len(side.lengths), dtype=np.int64), side.lengths)
    apart = ~_member(seg * len(tokens.vocab) + side.ids, output_keys(report))
    return np.bincount(seg[apart], minlength=len(side.lengths)) > 0


def _usual_rate(own: np.ndarray, count: np.ndarray, counted: np.ndarray, documents: np.ndarray) -> float:
    """The reference's usual odd words per word: the median over the windows of the ``counted`` segments (written
    apart from the outputs, not explained by other damage), at least half an odd word per median window."""
    odd = _window_sums(own * counted, documents)
    words = _window_sums(count * counted, documents)
    rates = (odd / np.maximum(words, 1.0))[words > 0]
    floor = 0.5 / max(float(np.median(_window_sums(count, documents))), 1.0)
    return max(float(np.median(rates)) if len(rates) else 0.0, floor)


def _runs(flagged: np.ndarray, documents: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per segment: the first and last segment of the run of consecutive flagged segments of the same document it
    is in (itself where it is not flagged)."""
    n = len(flagged)
    start, end = np.arange(n), np.arange(n)
    for i in range(1, n):
        if flagged[i] and flagged[i - 1] and documents[i] == documents[i - 1]:
            start[i] = start[i - 1]
    for i in range(n - 2, -1, -1):
        if flagged[i] and flagged[i + 1] and documents[i] == documents[i + 1]:
            end[i] = end[i + 1]
    return start, end


def outputs_word(report, seg: int, reference: str, pos: int) -> str | None:
    """The word most outputs of the segment have where the reference has its word at ``pos``, or None.

    The centre of the outputs' trigrams with the reference's two neighbours, when at least half of the outputs have the
    same one (None otherwise: the outputs do not agree on a word there)."""
    tokens = report.context.tokens
    ref = tokens.tokens(reference, seg)
    left = ref[pos - 1] if pos > 0 else None
    right = ref[pos + 1] if pos + 1 < len(ref) else None
    found: dict[str, int] = {}
    for side in tokens.hyps:
        words = [None, *tokens.tokens(side, seg), None]
        centres = {words[i] for i in range(1, len(words) - 1) if words[i - 1] == left and words[i + 1] == right}
        for word in centres:
            found[word] = found.get(word, 0) + 1
    best = max(found, key=found.get) if found else None
    return best if best is not None and 2 * found[best] >= len(tokens.hyps) else None
