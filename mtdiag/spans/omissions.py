"""What an output leaves out: the reference words it lacks — the omission evidence of predicted MQM
(``docs/spans.md``, "Omissions").

A predicted span marks words that are in the output and should not be; an omission has no words to mark (MQM's
*Accuracy/Omission* is marked on the source). Its evidence is the reference: per (system, segment), the **missing
reference words** are the words (tokens that are not punctuation) a reference has more often than the output —
clipped counts, ``Σ_w max(0, count_ref(w) − count_output(w))``, as BLEU clips n-gram matches (Papineni et al.
2002) — counted against the *closest* reference, the one the output lacks the fewest words of: one good
translation is enough, as sacrebleu's TER (the fewest edits) and chrF (the best score) take the closest of
several references (measured against the mean over the references: ``docs/spans.md``). A word the output
translates differently is missing too (and its substitute is an unsupported word): the weight of a missing word in
predicted MQM (:data:`mtdiag.metrics.predicted_mqm.OMISSION_WEIGHT`) is measured on human MQM with that overlap
in it.

Only the references count: the other systems' outputs are not evidence of what a good output must contain — a
good system that words a sentence differently from the others would lose points for it (measured:
``docs/spans.md``).
Without a reference nothing is missing (0).

Counted for every output at once: each side's ``(segment, token)`` keys with their counts (``np.unique``), the
output's count of each reference key by ``np.searchsorted``, the clipped differences summed per segment by
``np.bincount`` — no loop over tokens or segments.
"""

from __future__ import annotations

import numpy as np

from mtdiag.triage.checks.tokens import word_ids
from mtdiag.spans.support import token_keys


def missing_reference_words(report) -> np.ndarray:
    """Per output, the words of the closest reference it lacks (module docstring); memoised per report.

    Shape ``(n_systems, n_segments)``, systems in the report's order; zeros without a reference."""
    return report.context.memo(("spans", "missing_reference_words"), lambda: _missing(report))


def _counted_keys(side, words: np.ndarray, n_vocab: int) -> tuple[np.ndarray, np.ndarray]:
    """Distinct keys (:func:`mtdiag.spans.support.token_keys`) of a side's words, sorted, and how often each
    occurs."""
    keep = words[side.ids] if len(side.ids) else np.zeros(0, dtype=bool)
    return np.unique(token_keys(side, n_vocab)[keep], return_counts=True)


def _missing(report) -> np.ndarray:
    tokens = report.context.tokens
    systems = list(report.evalset.systems)
    n_segments = report.evalset.n_segments
    missing = np.full((len(systems), n_segments), np.inf)
    if not tokens.refs or not len(tokens.vocab):
        return np.zeros((len(systems), n_segments))
    n_vocab = len(tokens.vocab)
    words = word_ids(report)
    references = [_counted_keys(side, words, n_vocab) for side in tokens.refs.values()]
    for row, system in enumerate(systems):
        keys, counts = _counted_keys(tokens.hyps[system], words, n_vocab)
        for ref_keys, ref_counts in references:
            at = np.minimum(np.searchsorted(keys, ref_keys), max(len(keys) - 1, 0))
            found = (keys[at] == ref_keys) if len(keys) else np.zeros(len(ref_keys), dtype=bool)
            have = np.where(found, counts[at] if len(keys) else 0, 0)
            lacking = np.maximum(ref_counts - have, 0)
            lacked = np.bincount(ref_keys // n_vocab, weights=lacking, minlength=n_segments)
            missing[row] = np.minimum(missing[row], lacked)
    return missing
