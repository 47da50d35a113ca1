"""The token views the checks share, each computed once per report (``ScoringContext.memo``): flat token frames
of a side, which vocabulary ids are words, the source tokenised like the outputs, every reference's distinct
tokens, and the loop detector that both the output (``repetition``) and the source (a repetition the source has
is not the output's fault) are read with."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.core.tokenize import TokenizeOptions, is_punctuation, tokenize_texts

LOOP_REPEATS = 3  # a single word said this many times in a row is a loop (a phrase: twice)
LOOP_MAX_ORDER = 4


def token_frame(side) -> pd.DataFrame:
    """One row per token of a side: ``seg``, ``pos`` (0-based within the segment), ``id``."""
    lengths = side.lengths
    seg = np.repeat(np.arange(len(lengths)), lengths)
    pos = np.arange(len(side.ids)) - np.repeat(side.offsets[:-1], lengths)
    return pd.DataFrame({"seg": seg, "pos": pos, "id": side.ids})


def word_ids(report) -> np.ndarray:
    """Per vocabulary id of the report's tokens: the token is a word (not punctuation)."""
    vocab = report.context.tokens.vocab
    return report.context.memo(("checks", "word_ids"), lambda: np.fromiter(
        (not is_punctuation(str(t)) for t in vocab), dtype=bool, count=len(vocab)))


def _source_options(report) -> TokenizeOptions:
    """The outputs' tokeniser and case for the source (MeCab is for Japanese targets: the source gets 13a)."""
    options = report.context.options
    tokenizer = options.tokenize if options.tokenize != "ja-mecab" else "13a"
    return TokenizeOptions(tokenizer, options.lowercase, options.typography)


def source_tokens(report) -> pd.DataFrame:
    """The source tokenised like the outputs, as ``seg, pos, id`` over the context's vocabulary.

    Tokenised with the user's tokeniser and case; source tokens no output or reference uses get id −1."""
    ctx = report.context

    def build():
        tokens = tokenize_texts(report.evalset.src.astype(str).tolist(), _source_options(report))
        lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
        flat = pd.Index(ctx.tokens.vocab).get_indexer(pd.Series([w for t in tokens for w in t], dtype=object))
        seg = np.repeat(np.arange(len(tokens)), lengths)
        pos = np.arange(len(flat)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        return pd.DataFrame({"seg": seg, "pos": pos, "id": flat})

    return ctx.memo(("checks", "source_tokens"), build)


def reference_token_sets(report) -> pd.DataFrame:
    """Distinct (seg, id) over every reference."""
    ctx = report.context
    return ctx.memo(("checks", "ref_sets"), lambda: pd.concat(
        [token_frame(side)[["seg", "id"]] for side in ctx.tokens.refs.values()]).drop_duplicates())


def loop_positions(ids: np.ndarray, offsets: np.ndarray, words: np.ndarray,
                   max_order: int = LOOP_MAX_ORDER) -> np.ndarray:
    """Per token: it belongs to a loop.

    A loop is a word said :data:`LOOP_REPEATS` times in a row, or an n-gram of words (2 ≤ n ≤ ``max_order``) said twice
    in a row (a doubled word is often grammatical: German ``die die``, English ``had had``; a doubled phrase almost
    never is). For order n and r repeats, ``ids[i] == ids[i + n]`` over ``(r − 1) · n`` consecutive positions of one
    segment is exactly such a run (cumulative sums; runs never cross a segment boundary)."""
    n_tok = len(ids)
    marked = np.zeros(n_tok, dtype=bool)
    if n_tok == 0:
        return marked
    seg_of = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    is_word = words[ids]
    for n in range(1, max_order + 1):
        need = ((LOOP_REPEATS if n == 1 else 2) - 1) * n
        if n_tok <= need:
            break
        eq = np.zeros(n_tok, dtype=bool)
        eq[:-n] = (ids[:-n] == ids[n:]) & (seg_of[:-n] == seg_of[n:]) & is_word[:-n]
        run = np.concatenate([[0], np.cumsum(eq)])
        starts = np.flatnonzero(run[need:] - run[:-need] == need)  # eq[i : i + need] all true
        if len(starts):
            cover = (starts[:, None] + np.arange(need + n)).ravel()
            marked[cover[cover < n_tok]] = True
    return marked


def loops_per_segment(ids: np.ndarray, offsets: np.ndarray, words: np.ndarray) -> np.ndarray:
    """Per segment of a flat token array: it has a loop (:func:`loop_positions`)."""
    marked = loop_positions(ids, offsets, words)
    seg_of = np.repeat(np.arange(len(offsets) - 1), np.diff(offsets))
    return np.bincount(seg_of[marked], minlength=len(offsets) - 1) > 0


def source_loops(report, candidates: np.ndarray | None = None) -> np.ndarray:
    """Per segment: the source itself repeats.

    A loop of :func:`loop_positions` among its words, punctuation left out, so ``Thank you. Thank you.`` and ``交了啦，交了啦``
    count. The source is read with sacrebleu's ``zh`` tokeniser, which splits Chinese characters and treats other
    scripts as 13a does, so a repeated phrase is found whatever the source language. A repetition the source has is not
    the output's fault.

    ``candidates`` (a boolean mask over segments): only those sources are read (False elsewhere) — the checks ask only
    where an output loops or over-translates, a small share of the set; each source is read once per report whatever the
    order of the questions."""
    n = report.evalset.n_segments
    wanted = np.ones(n, bool) if candidates is None else np.asarray(candidates, dtype=bool)
    known = report.context.memo(("checks", "source_loops"), lambda: {})
    todo = [int(g) for g in np.flatnonzero(wanted) if int(g) not in known]
    if todo:
        lowered = TokenizeOptions("zh", True, report.context.options.typography)
        texts = report.evalset.src.astype(str).to_numpy()[todo].tolist()
        tokens = [[w for w in t if not is_punctuation(w)] for t in tokenize_texts(texts, lowered)]
        lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
        codes, _ = pd.factorize(pd.Series([w for t in tokens for w in t], dtype=object))
        offsets = np.concatenate([[0], np.cumsum(lengths)])
        words = np.ones(max(codes.max(initial=-1) + 1, 1), bool)
        found = loops_per_segment(codes.astype(np.int64), offsets, words)
        known.update(zip(todo, found.tolist()))
    out = np.zeros(n, bool)
    for g in np.flatnonzero(wanted):
        out[g] = known[int(g)]
    return out


def reference_lengths(report) -> np.ndarray:
    """Per segment: the mean reference length in tokens (the length TER and the other rates are relative to)."""
    refs = report.context.tokens.refs
    return report.context.memo(("checks", "ref_lengths"), lambda: np.mean(
        [side.lengths for side in refs.values()], axis=0).astype(float))
