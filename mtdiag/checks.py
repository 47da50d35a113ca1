"""Triage flags: explainable checks of one output against its source, its references and the rest of the test set
(issue 12; method and measured lifts in ``docs/triage.md``).

Every check returns one boolean per (system, segment) pair, computed for all pairs at once on flat arrays
(pandas merges and group-bys over token ids, vectorised regular expressions — no loop over pairs), and
:func:`check_evidence` explains one pair: the tokens to mark in the output and one sentence per finding.

Thresholds are relative to the test set being looked at (percentiles, robust z-scores) or structural (a number
present or not), never constants tuned on a dev set:

- ``repetition`` — the output loops: a word three times in a row, or a phrase of 2–4 words twice in a row, where
  no reference does so (the hallucination loop OTEM measures, Yang et al. 2018, caught where it is unmistakable).
- ``over_translation`` — OTEM > 0 and in the worst 10 % of the set (repeated n-grams beyond the reference's).
- ``under_translation`` — UTEM in the worst 10 % of the set and > 0 (reference n-grams left out).
- ``word_order`` — NEVA − WAFT > :data:`WORD_ORDER_MARGIN` (Forsbom 2003 §5) **and** evidence of reordering:
  among the words the output shares exactly once with a reference, some appear in a different order than in
  *every* reference (an omission keeps the shared words in order, so it never fires).
- ``untranslated`` — the output keeps source text: characters of a script the source uses and the references
  don't (Han in a zh→en output), beyond what the references themselves keep; or a run of three or more words
  copied from the source that no reference contains.
- ``number_mismatch`` — a number of the source that a reference also has is missing from the output, or the
  output has a number that neither the source nor any reference has. Numbers are compared by value with both
  decimal conventions: ``3,5`` = ``3.5`` ≠ ``35``; ``1,000`` = ``1.000`` = ``1000``.
- ``length_outlier`` — hallucinated length: the output/reference length ratio far above the set's range (robust
  z-score of its logarithm, median and MAD over the set, beyond :data:`LENGTH_Z`, Iglewicz & Hoaglin's 3.5) and
  at least 1.5.
- ``missed_term`` — a required term of the segment is not translated as annotated (term exact-match < 100).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from mtdiag.highlight import Span
from mtdiag.metrics import EvidenceTable, SegmentEvidence
from mtdiag.tokenize import TokenizeOptions, is_punctuation, tokenize_texts

WORST_SHARE = 0.10  # the score flags mark the worst 10 % of the set
WORD_ORDER_MARGIN = 0.01  # NEVA − WAFT must exceed this (float noise of 1e-17 never fires)
LENGTH_Z = 3.5  # robust z-score beyond which a length ratio is an outlier (Iglewicz & Hoaglin 1993)
LOOP_REPEATS = 3  # a single word said this many times in a row is a loop (a phrase: twice)
LOOP_MAX_ORDER = 4
COPIED_RUN = 3  # this many consecutive words copied from the source, found in no reference
SCRIPT_MIN_CHARS = 2  # source-script characters beyond the references' that flag a segment: two Han/Kana/Hangul
ALPHABET_MIN_CHARS = 10  # (a word or two) or ten letters of an alphabet (two words; an acronym kept in Latin letters
#                          in a Japanese output is not an untranslated sentence)
LENGTH_MIN_FACTOR = 1.5  # an outlier is also at least 1.5 times as long as its reference


@dataclass(frozen=True)
class FlagInfo:
    name: str
    label: str
    help: str


FLAGS: dict[str, FlagInfo] = {
    f.name: f
    for f in (
        FlagInfo("repetition", "repetition loop", "the output repeats a phrase in a row (a word: three times)"),
        FlagInfo("over_translation", "over-translation", "OTEM among the worst 10 % of the set: n-grams repeated "
                                                         "beyond the reference's"),
        FlagInfo("under_translation", "under-translation", "UTEM among the worst 10 % of the set: reference "
                                                           "n-grams left out"),
        FlagInfo("word_order", "word order", "NEVA above WAFT and shared words in another order than in every "
                                             "reference (Forsbom 2003 §5)"),
        FlagInfo("untranslated", "untranslated", "source text kept in the output: source script, or three or "
                                                 "more words copied from the source"),
        FlagInfo("number_mismatch", "number mismatch", "a number of the source is missing or changed"),
        FlagInfo("length_outlier", "length outlier", "output/reference length ratio far outside the set's range"),
        FlagInfo("missed_term", "missed term", "a term of the segment is not translated as annotated"),
        FlagInfo("mt_only_ngram", "MT-only n-gram", "the output contains an n-gram that never occurs in the "
                                                    "human translation"),
    )
}


# ---------------------------------------------------------------------------------------------- tokens


def _token_frame(side, seg_index: np.ndarray | None = None) -> pd.DataFrame:
    """One row per token of a side: ``seg``, ``pos`` (0-based within the segment), ``id``."""
    lengths = side.lengths
    seg = np.repeat(np.arange(len(lengths)), lengths)
    pos = np.arange(len(side.ids)) - np.repeat(side.offsets[:-1], lengths)
    return pd.DataFrame({"seg": seg, "pos": pos, "id": side.ids})


def _word_ids(vocab: np.ndarray) -> np.ndarray:
    """Per vocabulary id: the token is a word (not punctuation)."""
    return np.fromiter((not is_punctuation(str(t)) for t in vocab), dtype=bool, count=len(vocab))


def _source_tokens(report) -> pd.DataFrame:
    """The source tokenised like the outputs (user's tokeniser and case), as ``seg, pos, id`` over the context's
    vocabulary (source tokens no output or reference uses get id −1)."""
    ctx = report.context

    def build():
        tokenizer = ctx.options.tokenize if ctx.options.tokenize != "ja-mecab" else "13a"
        tokens = tokenize_texts(report.evalset.src.astype(str).tolist(),
                                TokenizeOptions(tokenizer, ctx.options.lowercase, ctx.options.typography))
        lengths = np.fromiter((len(t) for t in tokens), dtype=np.int64, count=len(tokens))
        flat = pd.Index(ctx.tokens.vocab).get_indexer(pd.Series([w for t in tokens for w in t], dtype=object))
        seg = np.repeat(np.arange(len(tokens)), lengths)
        pos = np.arange(len(flat)) - np.repeat(np.cumsum(lengths) - lengths, lengths)
        return pd.DataFrame({"seg": seg, "pos": pos, "id": flat})

    return ctx.memo(("checks", "source_tokens"), build)


def _ref_token_sets(report) -> pd.DataFrame:
    """Distinct (seg, id) over every reference."""
    ctx = report.context
    return ctx.memo(("checks", "ref_sets"), lambda: pd.concat(
        [_token_frame(side)[["seg", "id"]] for side in ctx.tokens.refs.values()]).drop_duplicates())


def _pairs_index(report) -> pd.MultiIndex:
    return report.segments.index


def _by_pair(report, flagged: dict[str, np.ndarray]) -> pd.Series:
    """Boolean Series over the report's (system, seg) index from per-system boolean arrays."""
    n = report.evalset.n_segments
    values = np.concatenate([flagged.get(s, np.zeros(n, bool)) for s in report.evalset.systems])
    full = pd.Series(values, index=pd.MultiIndex.from_product([report.evalset.systems, range(n)],
                                                              names=["system", "seg"]))
    return full.reindex(_pairs_index(report), fill_value=False)


# ---------------------------------------------------------------------------------------------- repetition


def loop_positions(ids: np.ndarray, offsets: np.ndarray, words: np.ndarray,
                   max_order: int = LOOP_MAX_ORDER) -> np.ndarray:
    """Per token: it belongs to a loop — a word said :data:`LOOP_REPEATS` times in a row, or an n-gram of words
    (2 ≤ n ≤ ``max_order``) said twice in a row (a doubled word is often grammatical: German ``die die``, English
    ``had had``; a doubled phrase almost never is). For order n and r repeats, ``ids[i] == ids[i + n]`` over
    ``(r − 1) · n`` consecutive positions of one segment is exactly such a run (cumulative sums; runs never cross
    a segment boundary)."""
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


def _loops_per_segment(side, words: np.ndarray) -> np.ndarray:
    marked = loop_positions(side.ids, side.offsets, words)
    seg_of = np.repeat(np.arange(side.n_segments), side.lengths)
    return np.bincount(seg_of[marked], minlength=side.n_segments) > 0


def repetition(report) -> pd.Series:
    """``repetition`` per pair: the output loops and no reference loops in that segment."""
    toks = report.context.tokens
    words = _word_ids(toks.vocab)
    ref_loops = np.zeros(report.evalset.n_segments, bool)
    for side in toks.refs.values():
        ref_loops |= _loops_per_segment(side, words) if side.n_segments else False
    return _by_pair(report, {s: _loops_per_segment(toks.hyps[s], words) & ~ref_loops for s in toks.hyps})


# ---------------------------------------------------------------------------------------------- score flags


def worst_share(values: pd.Series, higher_is_worse: bool = True, share: float = WORST_SHARE) -> pd.Series:
    """The rows in the worst ``share`` of the set (at or beyond the quantile); NaN rows never."""
    bad = values if higher_is_worse else -values
    if bad.notna().sum() == 0:
        return pd.Series(False, index=values.index)
    return (bad >= bad.quantile(1 - share)).fillna(False)


def over_translation(report) -> pd.Series:
    otem = report.segments["otem"]
    return worst_share(otem) & (otem > 0)


def under_translation(report) -> pd.Series:
    utem = report.segments["utem"]
    return worst_share(utem) & (utem > 0)


def length_outlier(report) -> pd.Series:
    """Hallucinated length: the output is longer than the set's outputs usually are — robust z-score of
    log(length ratio) above :data:`LENGTH_Z` (median and MAD of the set; MAD scaled by 1.4826 to a normal's σ) —
    and at least :data:`LENGTH_MIN_FACTOR` times as long as its closest reference (with several references the
    ratios cluster so tightly that a z-score alone calls 1.2 an outlier). When more than half the ratios equal the
    median (MAD 0), the mean absolute deviation scaled by 1.2533 stands in for it (Iglewicz & Hoaglin's
    modified z-score). Short outputs are left to
    ``under_translation``: on WMT21 zh-en, outputs at 0.5–0.67 of the reference's length were *better* by MQM than
    average (lift 0.29), while outputs over 1.5 were worse (``docs/triage.md``). A set whose ratios never vary
    flags nothing."""
    ratio = report.segments["length_ratio"].astype(float)
    logs = np.log(ratio.where(ratio > 0))
    deviation = (logs - logs.median()).abs()
    scale = float(deviation.median()) * 1.4826 or float(deviation.mean()) * 1.253314  # MeanAD when MAD is 0
    if not scale or math.isnan(scale):
        return pd.Series(False, index=ratio.index)
    z = (logs - logs.median()) / scale
    return ((z > LENGTH_Z) & (logs >= math.log(LENGTH_MIN_FACTOR))).fillna(False)


def missed_term(report) -> pd.Series:
    exact = report.segments["term_exact"]
    return exact.notna() & (exact < 100)


# ---------------------------------------------------------------------------------------------- word order


def _unique_matches(hyp: pd.DataFrame, ref: pd.DataFrame, words: np.ndarray) -> pd.DataFrame:
    """Words that occur exactly once in the output segment and once in the reference segment, with their
    positions in both (``seg, id, pos_hyp, pos_ref``), ordered by segment and output position."""
    def once(frame):
        frame = frame[words[frame["id"].to_numpy()]]
        return frame[~frame.duplicated(["seg", "id"], keep=False)]

    return once(hyp).merge(once(ref), on=["seg", "id"], suffixes=("_hyp", "_ref")).sort_values(["seg", "pos_hyp"])


def _descents(matches: pd.DataFrame, n_segments: int) -> np.ndarray:
    """Per segment: how many times the reference position goes back between consecutive shared words."""
    seg = matches["seg"].to_numpy()
    back = np.zeros(len(seg), dtype=bool)
    back[1:] = (np.diff(matches["pos_ref"].to_numpy()) < 0) & (seg[1:] == seg[:-1])
    return np.bincount(seg[back], minlength=n_segments)


def reordering(report) -> dict[str, np.ndarray]:
    """Per system and segment: the fewest descents over the references (0 = some reference has the shared words
    in the output's order)."""
    ctx = report.context
    words = _word_ids(ctx.tokens.vocab)
    n = report.evalset.n_segments
    refs = {r: _token_frame(side) for r, side in ctx.tokens.refs.items()}
    out = {}
    for system, side in ctx.tokens.hyps.items():
        hyp = _token_frame(side)
        out[system] = np.min([_descents(_unique_matches(hyp, ref, words), n) for ref in refs.values()], axis=0)
    return out


def word_order(report) -> pd.Series:
    """The ``word_order`` flag alone (memoised: the WAFT/NEVA page needs it without the other checks)."""
    def build():
        segments = report.segments
        margin = (segments["neva"] - segments["waft"]) > WORD_ORDER_MARGIN
        return margin & _by_pair(report, {s: d > 0 for s, d in reordering(report).items()})

    return report.context.memo(("checks", "word_order"), build)


# ---------------------------------------------------------------------------------------------- untranslated

SCRIPTS: dict[str, str] = {
    "Han": "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
    "Kana": "\u3040-\u30ff\u31f0-\u31ff",
    "Hangul": "\uac00-\ud7af\u1100-\u11ff",
    "Latin": "A-Za-z\u00c0-\u024f",
    "Cyrillic": "\u0400-\u04ff",
    "Greek": "\u0370-\u03ff",
    "Arabic": "\u0600-\u06ff",
    "Hebrew": "\u0590-\u05ff",
    "Devanagari": "\u0900-\u097f",
    "Thai": "\u0e00-\u0e7f",
}
SYLLABIC = ("Han", "Kana", "Hangul")
SOURCE_SCRIPT_SHARE = 0.2  # a script with ≥ 20 % of the source's letters ...
TARGET_SCRIPT_SHARE = 0.05  # ... and ≤ 5 % of the references' is foreign to the target


def _script_counts(texts: pd.Series, script: str) -> pd.Series:
    return texts.astype(str).str.count(f"[{SCRIPTS[script]}]")


def foreign_scripts(report) -> list[str]:
    """Scripts of the source that the references (almost) never use: Han for zh→en, Latin for en→zh."""
    src = report.evalset.src.astype(str)
    refs = pd.concat([report.evalset.refs[r].astype(str) for r in report.evalset.ref_names])
    src_counts = {s: int(_script_counts(src, s).sum()) for s in SCRIPTS}
    ref_counts = {s: int(_script_counts(refs, s).sum()) for s in SCRIPTS}
    src_total, ref_total = sum(src_counts.values()) or 1, sum(ref_counts.values()) or 1
    return [s for s in SCRIPTS if src_counts[s] / src_total >= SOURCE_SCRIPT_SHARE
            and ref_counts[s] / ref_total <= TARGET_SCRIPT_SHARE]


def _foreign_excess(report, scripts: list[str]) -> dict[str, np.ndarray]:
    """Per system: characters of the foreign scripts in the output beyond the most any reference has there, 0
    where that is under the script's minimum (:data:`SCRIPT_MIN_CHARS` for Han/Kana/Hangul, whose characters are
    syllables or words; :data:`ALPHABET_MIN_CHARS` for alphabets)."""
    if not scripts:
        return {}
    pattern = "[" + "".join(SCRIPTS[s] for s in scripts) + "]"
    refs = report.evalset.refs
    ref_max = np.max([refs[r].astype(str).str.count(pattern).to_numpy() for r in report.evalset.ref_names], axis=0)
    hyps = report.evalset.hyps
    minimum = min(SCRIPT_MIN_CHARS if s in SYLLABIC else ALPHABET_MIN_CHARS for s in scripts)
    out = {}
    for system in report.evalset.systems:
        excess = hyps[system].astype(str).str.count(pattern).to_numpy() - ref_max
        out[system] = np.where(excess >= minimum, excess, 0)
    return out


def copied_tokens(report) -> dict[str, pd.DataFrame]:
    """Per system: the output tokens (``seg, pos``) that are words of the source that no reference of the segment
    contains, in runs of at least :data:`COPIED_RUN` consecutive tokens."""
    ctx = report.context
    src = _source_tokens(report)
    words = _word_ids(ctx.tokens.vocab)
    src = src[src["id"] >= 0]
    src = src[words[src["id"].to_numpy()]][["seg", "id"]].drop_duplicates()
    not_in_ref = src.merge(_ref_token_sets(report), on=["seg", "id"], how="left", indicator=True)
    copyable = not_in_ref[not_in_ref["_merge"] == "left_only"][["seg", "id"]].assign(copied=True)
    out = {}
    for system, side in ctx.tokens.hyps.items():
        hyp = _token_frame(side).merge(copyable, on=["seg", "id"], how="left")
        hyp = hyp.sort_values(["seg", "pos"], ignore_index=True)
        copied = hyp["copied"].fillna(False).to_numpy(dtype=bool)
        # run ids: a new run starts where copied switches on or the segment changes
        seg = hyp["seg"].to_numpy()
        start = copied & ~np.concatenate([[False], copied[:-1] & (seg[1:] == seg[:-1])])
        run_id = np.cumsum(start)
        lengths = np.bincount(run_id[copied], minlength=run_id.max() + 1 if len(run_id) else 1)
        keep = copied & (lengths[run_id] >= COPIED_RUN)
        out[system] = hyp.loc[keep, ["seg", "pos"]]
    return out


def untranslated(report) -> pd.Series:
    n = report.evalset.n_segments
    excess = _foreign_excess(report, foreign_scripts(report))
    copied = copied_tokens(report) if report.evalset.src.astype(bool).any() else {}
    flagged = {}
    for system in report.evalset.systems:
        mask = np.zeros(n, dtype=bool)
        if system in excess:
            mask |= excess[system] > 0
        if system in copied:
            mask[copied[system]["seg"].unique()] = True
        flagged[system] = mask
    return _by_pair(report, flagged)


# ---------------------------------------------------------------------------------------------- numbers

NUMBER = re.compile(r"\d+(?:[.,'\u00a0\u202f]\d+)*")
_FULLWIDTH_DIGITS = str.maketrans("０１２３４５６７８９", "0123456789")


def _integer(digits: str) -> str:
    """A digit string without leading zeros (never ``int()``: a hostile 10,000-digit number must not raise)."""
    return digits.lstrip("0") or "0"


def number_values(text: str) -> frozenset[str]:
    """Every value a written number can mean, as canonical decimal strings: ``3,5`` and ``3.5`` → {3.5};
    ``1,000`` → {1000, 1} (thousands or a decimal ``1.000``); ``1.234.567`` → {1234567}; ``35`` → {35}.
    A separator followed by exactly three digits may group thousands; the last separator may be a decimal mark
    when no other separator of the number is the same character."""
    groups = re.split(r"[.,'\u00a0\u202f]", text)
    if len(groups) == 1:
        return frozenset({_integer(text)})
    values = set()
    if all(len(g) == 3 for g in groups[1:]):
        values.add(_integer("".join(groups)))
    decimal_mark = text[-len(groups[-1]) - 1]
    others = {c for c in text[: -len(groups[-1]) - 1] if not c.isdigit()}
    if all(len(g) == 3 for g in groups[1:-1]) and decimal_mark in ".," and decimal_mark not in others:
        whole, frac = _integer("".join(groups[:-1])), groups[-1].rstrip("0")
        values.add(f"{whole}.{frac}" if frac else whole)
    return frozenset(values)


def _numbers(texts: pd.Series) -> pd.DataFrame:
    """Every number of every text: ``seg, occ`` (occurrence id), ``value`` (one row per possible value)."""
    texts = texts.astype(str)
    wide = texts.str.contains("[\uff10-\uff19]", regex=True)  # a vectorised scan; translating every text is slow
    if wide.any():
        texts = texts.mask(wide, texts[wide].str.translate(_FULLWIDTH_DIGITS))
    found = texts.str.findall(NUMBER).explode().dropna()
    if found.empty:
        return pd.DataFrame({"seg": pd.Series(dtype=np.int64), "occ": pd.Series(dtype=np.int64),
                             "value": pd.Series(dtype=object), "text": pd.Series(dtype=object)})
    frame = pd.DataFrame({"seg": found.index.to_numpy(), "text": found.to_numpy()})
    frame["occ"] = np.arange(len(frame))
    meanings = {t: sorted(number_values(t)) for t in frame["text"].unique()}
    frame["value"] = frame["text"].map(meanings)
    return frame.explode("value", ignore_index=True)


def _occurrences_without(numbers: pd.DataFrame, others: pd.DataFrame) -> pd.DataFrame:
    """The rows of the occurrences (``occ``) none of whose values ``others`` has in the same segment."""
    hit = numbers.merge(others[["seg", "value"]].drop_duplicates(), on=["seg", "value"], how="inner")["occ"]
    return numbers[~numbers["occ"].isin(hit)]


def number_findings(report) -> dict[str, pd.DataFrame]:
    """Per system: ``seg, kind, number`` — ``missing`` (a source number every reference also has, absent from the
    output) and ``changed`` (an output number neither the source nor any reference has). Requiring the number in
    every reference keeps out the numbers translators legitimately convert (``3 p.m.`` → ``15 Uhr``)."""
    ev = report.evalset
    src = _numbers(ev.src)
    per_ref = [_numbers(ev.refs[r]) for r in ev.ref_names]
    src_or_ref = pd.concat([src, *per_ref], ignore_index=True)
    required = src
    for ref in per_ref:
        required = required[~required["occ"].isin(_occurrences_without(required, ref)["occ"])]
    out = {}
    for system in ev.systems:
        hyp = _numbers(ev.hyps[system])
        missing = _occurrences_without(required, hyp).drop_duplicates("occ").assign(kind="missing")
        changed = _occurrences_without(hyp, src_or_ref).drop_duplicates("occ").assign(kind="changed")
        out[system] = pd.concat([missing, changed], ignore_index=True)[["seg", "kind", "text"]].rename(
            columns={"text": "number"})
    return out


def number_mismatch(report) -> pd.Series:
    n = report.evalset.n_segments
    flagged = {}
    for system, findings in number_findings(report).items():
        mask = np.zeros(n, dtype=bool)
        mask[findings["seg"].to_numpy(dtype=np.int64)] = True
        flagged[system] = mask
    return _by_pair(report, flagged)


# ---------------------------------------------------------------------------------------------- all flags


def _needs(report, *columns: str) -> bool:
    return all(c in report.segments.columns for c in columns)


def _has_source(report) -> bool:
    return bool(report.evalset.src.astype(str).str.len().gt(0).any())


def flag_frame(report) -> pd.DataFrame:
    """Every check that the report's metrics and inputs allow, one boolean column each, over the report's
    (system, seg) index (columns in :data:`FLAGS` order)."""
    def build():
        columns: dict[str, pd.Series] = {"repetition": repetition(report)}
        if _needs(report, "otem"):
            columns["over_translation"] = over_translation(report)
        if _needs(report, "utem"):
            columns["under_translation"] = under_translation(report)
        if _needs(report, "neva", "waft"):
            columns["word_order"] = word_order(report)
        if _has_source(report):
            columns["untranslated"] = untranslated(report)
            columns["number_mismatch"] = number_mismatch(report)
        if _needs(report, "length_ratio"):
            columns["length_outlier"] = length_outlier(report)
        if _needs(report, "term_exact"):
            columns["missed_term"] = missed_term(report)
        frame = pd.DataFrame({name: columns[name] for name in FLAGS if name in columns},
                             index=report.segments.index)
        return frame.astype(bool)

    return report.context.memo(("checks", "flags"), build)


def flag_names(flags: pd.DataFrame) -> pd.Series:
    """The fired flags of each row joined by commas (empty when none), in :data:`FLAGS` order."""
    columns = [f for f in FLAGS if f in flags.columns]
    if not columns:
        return pd.Series("", index=flags.index)
    names = np.array(columns, dtype=object)
    values = flags[columns].to_numpy(dtype=bool)
    return pd.Series([",".join(names[row]) for row in values], index=flags.index)


# ---------------------------------------------------------------------------------------------- one pair


def _lis_members(values: list[int]) -> set[int]:
    """Indices of one longest strictly increasing subsequence of ``values`` (patience sorting)."""
    import bisect

    tails, tail_idx, prev = [], [], [-1] * len(values)
    for i, v in enumerate(values):
        k = bisect.bisect_left(tails, v)
        if k == len(tails):
            tails.append(v)
            tail_idx.append(i)
        else:
            tails[k], tail_idx[k] = v, i
        prev[i] = tail_idx[k - 1] if k else -1
    members, i = set(), tail_idx[-1] if tail_idx else -1
    while i >= 0:
        members.add(i)
        i = prev[i]
    return members


def _moved_positions(report, system: str, seg: int) -> list[int]:
    """Output positions of the shared words out of order with respect to the reference that needs the fewest
    moves: the shared words outside a longest increasing subsequence of their reference positions."""
    ctx = report.context
    words = _word_ids(ctx.tokens.vocab)
    hyp = pd.DataFrame({"seg": 0, "id": ctx.tokens.hyps[system].segment(seg)})
    hyp["pos"] = np.arange(len(hyp))
    best: list[int] | None = None
    for side in ctx.tokens.refs.values():
        ref = pd.DataFrame({"seg": 0, "id": side.segment(seg)})
        ref["pos"] = np.arange(len(ref))
        matches = _unique_matches(hyp, ref, words)
        keep = _lis_members(matches["pos_ref"].tolist())
        moved = [p for i, p in enumerate(matches["pos_hyp"].tolist()) if i not in keep]
        if best is None or len(moved) < len(best):
            best = moved
    return best or []


def check_evidence(report, system: str, seg: int) -> SegmentEvidence | None:
    """Why the checks fired on one pair: marks in the output (loop, copied words, moved words, wrong numbers)
    and a ``checks`` table with one plain sentence per finding; None when no check fired."""
    flags = flag_frame(report)
    if (system, seg) not in flags.index:
        return None
    fired = [f for f in flags.columns if bool(flags.at[(system, seg), f])]
    if not fired:
        return None
    ctx = report.context
    side = ctx.tokens.hyps[system]
    ids = side.segment(seg)
    spans: list[Span] = []
    rows: list[dict] = []
    scores = report.segments.loc[(system, seg)]
    if "repetition" in fired:
        marked = loop_positions(ids, np.array([0, len(ids)]), _word_ids(ctx.tokens.vocab))
        spans += _runs(marked, "loop", "repeated in a loop")
        rows.append({"check": "repetition", "finding": "the marked words repeat in a row, and no reference does"})
    if "over_translation" in fired:
        rows.append({"check": "over_translation", "finding": f"OTEM {scores['otem']:.3g}: in the set's worst 10 %"})
    if "under_translation" in fired:
        rows.append({"check": "under_translation", "finding": f"UTEM {scores['utem']:.3g}: in the set's worst 10 %"})
    if "word_order" in fired:
        moved = _moved_positions(report, system, seg)
        spans += [Span(p, p + 1, "moved", "out of the reference's order") for p in moved]
        rows.append({"check": "word_order", "finding": f"NEVA − WAFT = {scores['neva'] - scores['waft']:.3f}; "
                                                       f"{len(moved)} shared word(s) out of the reference's order"})
    if "untranslated" in fired:
        copied = copied_tokens(report)[system]
        positions = copied.loc[copied["seg"] == seg, "pos"].to_numpy()
        marked = np.zeros(len(ids), dtype=bool)
        marked[positions] = True
        spans += _runs(marked, "copied", "copied from the source")
        excess = _foreign_excess(report, foreign_scripts(report)).get(system)
        sentence = []
        if excess is not None and excess[seg] > 0:
            sentence.append(f"{int(excess[seg])} character(s) in the source's script "
                            f"({', '.join(foreign_scripts(report))}) beyond the references'")
        if len(positions):
            sentence.append(f"{len(positions)} word(s) copied from the source that no reference has")
        rows.append({"check": "untranslated", "finding": "; ".join(sentence)})
    if "number_mismatch" in fired:
        findings = number_findings(report)[system]
        findings = findings[findings["seg"] == seg]
        for kind, number in zip(findings["kind"], findings["number"]):
            rows.append({"check": "number_mismatch",
                         "finding": f"{number} of the source is missing from the output" if kind == "missing"
                         else f"{number} is in neither the source nor a reference"})
        changed = set(findings.loc[findings["kind"] == "changed", "number"])
        vocab = ctx.tokens.vocab
        spans += [Span(i, i + 1, "number", "number not in the source")
                  for i, t in enumerate(vocab[ids]) if any(c in str(t) for c in changed)]
    if "length_outlier" in fired:
        rows.append({"check": "length_outlier",
                     "finding": f"length ratio {scores['length_ratio']:.2f}, far outside the set's range"})
    if "missed_term" in fired:
        rows.append({"check": "missed_term", "finding": "a term is not translated as annotated (see Terms)"})
    legend = [k for k in ("loop", "moved", "copied", "number") if any(s.kind == k for s in spans)]
    table = EvidenceTable("Checks", pd.DataFrame(rows, columns=["check", "finding"]),
                          "Why each flag fired on this output (docs/triage.md).")
    return SegmentEvidence(hyp_spans=spans, legend=legend, tables={"checks": table})


def _runs(marked: np.ndarray, kind: str, title: str) -> list[Span]:
    """One span per run of marked tokens."""
    spans, start = [], None
    for i, on in enumerate(list(marked) + [False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            spans.append(Span(start, i, kind, title))
            start = None
    return spans
