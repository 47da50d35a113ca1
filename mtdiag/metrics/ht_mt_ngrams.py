"""HT-only, MT-only and skewed n-gram tables (Aikawa & Rarrick, "Are numbers good enough for you?", §2.2, §3).

The paper compares corpus-level n-gram counts of a human translation (HT) with those of each MT system's output
(per-sentence counts ignored) and reads the n-grams seen frequently in one and never in the other (its Tables 1
and 2) as linguistic strengths and weaknesses of the system. ``docs/ngrams-and-likeness.md`` records the details:

- orders 1–4 over mtdiag's tokens (the user's tokeniser and case option; ``ja-mecab`` / ``zh`` segment Japanese
  and Chinese); orders 1–2 fully lexicalised;
- orders 3–4 on transformed sentences (§2.2): a punctuation token (every character in Unicode category P*) becomes
  ``<PUNC>``; of the other words the 100 most frequent in the HT stay (ties: the word, ascending by code point) and
  every other word becomes ``<UNK>``;
- for n ≥ 2 each sentence is padded at the start with n−1 ``<s>`` (§3.1 "one or more '<s>'"), after the transform;
- **HT-only**: HT count ≥ k and MT count 0; **MT-only**: MT count ≥ k and HT count 0; each sorted by its count
  descending, then by the n-gram text ascending (code points); **skewed**: HT or MT count ≥ k, ranked by the
  absolute smoothed log-ratio (below), then the text;
- each n-gram carries the segments (0-based) that contain it, for drill-down.

**Smoothing of the skewed table** (the spec leaves it open): add-one on counts normalised by corpus size,
``log_ratio = log((ht + 1) / (N_ht + V)) − log((mt + 1) / (N_mt + V))``, with ``N`` the number of n-grams of that
order in each corpus and ``V`` the number of distinct n-grams of that order in the two together. Positive = more
frequent in the HT. With corpora of equal size it is ``log((ht + 1) / (mt + 1))``.

**Counting is vectorised.** Each distinct text is tokenised once (identical segments share one tokenisation, so a
corpus of repeats costs its distinct texts), tokens become ids over one vocabulary, and every token is the last
token of exactly one (padded) n-gram, whose integer code is its ids as base-B digits. Codes get dense ids shared
by every side; a side's counts are one ``bincount`` and its segments per n-gram one sort of ``gram * S + seg``
keys. No Python object is built per n-gram occurrence. (``mtdiag.metrics.ngram_index.NgramIndex`` is not reused: its order
ids are per-position arrays for orders 1..n at once, without the per-order padding and transform needed here,
and at a million segments they exceed the memory budget; see ``docs/ngrams-and-likeness.md``.)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.core.evalset import EvalSet
from mtdiag.core.tokenize import (TokenizeOptions, TokenSide, concat_ranges, default_tokenizer, is_punctuation, tokenize_distinct)

ORDERS: tuple[int, ...] = (1, 2, 3, 4)
LEXICAL_MAX_ORDER = 2  # orders above this use the <UNK>/<PUNC> transform (§2.2)
N_FREQUENT = 100  # HT words kept lexicalised in the transform (§2.2)
DEFAULT_MIN_COUNT = 2
PAD, UNK, PUNC = "<s>", "<UNK>", "<PUNC>"
_UNION_CHUNK = 1 << 22  # segment entries merged per sort in the skewed table (bounds temporary memory)


@dataclass(frozen=True)
class NgramTable:
    """The HT-only, MT-only and skewed tables of one system at one order.

    Frames with columns ``ngram, ht_count, mt_count, segments`` (``skewed`` also ``log_ratio``); ``segments`` holds the
    ascending 0-based segment indices (an int array) where the n-gram occurs in the HT or in the system."""

    system: str
    order: int
    ht_only: pd.DataFrame
    mt_only: pd.DataFrame
    skewed: pd.DataFrame


@dataclass(frozen=True)
class NgramTables:
    """HT-only / MT-only / skewed tables for every system and order, against the reference ``ht_ref``."""

    ht_ref: str
    orders: tuple[int, ...]
    min_count: int
    options: TokenizeOptions
    frequent_words: tuple[str, ...]  # the HT words kept lexicalised at orders 3-4, most frequent first
    tables: dict[str, dict[int, NgramTable]]  # system -> order -> tables

    @property
    def systems(self) -> list[str]:
        """The systems that have tables, in order."""
        return list(self.tables)

    def table(self, system: str, order: int) -> NgramTable:
        """The tables of ``system`` at ``order``."""
        return self.tables[system][order]


@dataclass(frozen=True)
class _Space:
    """The token alphabet of an order: ``labels[id]`` is the text of token id; vocabulary id -> ``word_map``."""

    labels: np.ndarray  # object array, last entry PAD
    word_map: np.ndarray  # vocabulary id -> id in this space

    @property
    def pad(self) -> int:
        return len(self.labels) - 1

    @property
    def base(self) -> int:
        return len(self.labels)


@dataclass(frozen=True)
class _SideGrams:
    """One side's n-grams of one order over shared dense ids: counts and each n-gram's segments (CSR)."""

    counts: np.ndarray  # int64 per gram id
    ptr: np.ndarray  # int64, len n_grams + 1
    segs: np.ndarray  # int32; the segments of gram g are segs[ptr[g]:ptr[g + 1]], ascending

    def segments(self, grams: np.ndarray) -> list[np.ndarray]:
        return [self.segs[self.ptr[g] : self.ptr[g + 1]] for g in grams]


def frequent_words(vocab: np.ndarray, counts: np.ndarray, n: int = N_FREQUENT) -> np.ndarray:
    """Vocabulary ids of the ``n`` most frequent non-punctuation words (``counts`` per id), ties by the word ascending.

    Aikawa & Rarrick §2.2: "the hundred most frequent words ... lexicalized"."""
    present = np.flatnonzero(counts > 0)
    ranked = pd.DataFrame({"count": counts[present], "word": vocab[present], "id": present})
    ranked = ranked.sort_values(["count", "word"], ascending=[False, True], kind="stable")
    chosen = []
    for i, word in zip(ranked["id"].tolist(), ranked["word"].tolist()):
        if len(chosen) == n:
            break
        if not is_punctuation(word):
            chosen.append(i)
    return np.asarray(chosen, dtype=np.int64)


def _lexical_space(vocab: np.ndarray) -> _Space:
    labels = np.append(vocab, np.array([PAD], dtype=object)).astype(object)
    return _Space(labels=labels, word_map=np.arange(len(vocab), dtype=np.int64))


def _transformed_space(vocab: np.ndarray, kept: np.ndarray) -> _Space:
    """Kept words keep an id each; every other word is ``<UNK>``, every punctuation token ``<PUNC>`` (§2.2)."""
    unk, punc = len(kept), len(kept) + 1
    punctuation = np.fromiter((is_punctuation(t) for t in vocab), dtype=bool, count=len(vocab))
    word_map = np.where(punctuation, punc, unk).astype(np.int64)
    word_map[kept] = np.arange(len(kept))
    labels = np.array([*vocab[kept], UNK, PUNC, PAD], dtype=object)
    return _Space(labels=labels, word_map=word_map)


def ngram_codes(ids: np.ndarray, offsets: np.ndarray, n: int, pad: int, base: int) -> np.ndarray:
    """One code per token: the order-``n`` n-gram ending at it, each text padded at the start with n−1 ``pad``.

    The padding follows Aikawa & Rarrick §3.1 ("<s>" marks the sentence beginning). The code is the ids in base
    ``base``, the last token least significant. Every token ends exactly one padded n-gram, and no n-gram is padding
    only."""
    ids = np.asarray(ids, dtype=np.int64)
    position = np.arange(len(ids), dtype=np.int64) - np.repeat(offsets[:-1], np.diff(offsets))
    codes = ids.copy()
    for back in range(1, n):
        previous = np.full(len(ids), pad, dtype=np.int64)
        previous[back:] = ids[:-back]
        previous[position < back] = pad
        codes += previous * base**back
    return codes


def ngram_texts(codes: np.ndarray, n: int, labels: np.ndarray, base: int) -> np.ndarray:
    """The text of each n-gram code: its tokens joined by one space."""
    digits = codes[:, None] // base ** np.arange(n - 1, -1, -1, dtype=np.int64) % base
    tokens = labels[digits]
    return np.array([" ".join(row) for row in tokens], dtype=object)


def _gather(distinct: TokenSide, text_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a column given as distinct-text ids: per token, its position in ``distinct``; and the text lengths."""
    lengths = distinct.lengths[text_ids]
    index = concat_ranges(distinct.offsets[:-1][text_ids], lengths)
    return index.astype(np.int32) if len(distinct.ids) < 2**31 else index, lengths


def _sorted_distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values, ascending. Sorts ``values`` in place (faster here than ``np.unique``'s hashing)."""
    values.sort()
    first = np.ones(len(values), dtype=bool)
    first[1:] = values[1:] != values[:-1]
    return values[first]


def _side_grams(grams: np.ndarray, lengths: np.ndarray, n_grams: int) -> _SideGrams:
    """Counts and the sorted segment list of every gram id, from one sort of ``gram * S + seg`` keys.

    ``grams`` (int64, one per token) is consumed: it becomes the keys, to keep the peak memory low."""
    n_seg = max(len(lengths), 1)
    counts = np.bincount(grams, minlength=n_grams).astype(np.int64)
    grams *= n_seg
    grams += np.repeat(np.arange(len(lengths), dtype=np.int64), lengths)
    distinct = _sorted_distinct(grams)
    del grams
    return _csr(counts, distinct, n_seg)


def _csr(counts: np.ndarray, keys: np.ndarray, n_seg: int) -> _SideGrams:
    """A :class:`_SideGrams` from the sorted distinct ``gram * n_seg + seg`` keys (consumed) of every occurrence."""
    gram_of = keys // n_seg
    ptr = np.zeros(len(counts) + 1, dtype=np.int64)
    np.cumsum(np.bincount(gram_of, minlength=len(counts)), out=ptr[1:])
    keys -= gram_of * n_seg
    return _SideGrams(counts=counts, ptr=ptr, segs=keys.astype(np.int32))


def _union_segments(rows: np.ndarray, a: _SideGrams, b: _SideGrams, n_seg: int) -> list[np.ndarray]:
    """Per gram in ``rows``: the ascending union of its segments in ``a`` and in ``b`` (rows merged in chunks of
    about ``_UNION_CHUNK`` segment entries, one sort per chunk)."""
    sizes = (a.ptr[rows + 1] - a.ptr[rows]) + (b.ptr[rows + 1] - b.ptr[rows])
    chunk = np.cumsum(sizes) // _UNION_CHUNK
    bounds = np.searchsorted(chunk, np.arange(int(chunk[-1]) + 2)) if len(rows) else np.zeros(1, dtype=np.int64)
    merged: list[np.ndarray] = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        merged += _merge_rows(rows[lo:hi], a, b, max(n_seg, 1))
    return merged


def _merge_rows(rows: np.ndarray, a: _SideGrams, b: _SideGrams, n_seg: int) -> list[np.ndarray]:
    keys = []
    for side in (a, b):
        lengths = side.ptr[rows + 1] - side.ptr[rows]
        row = np.repeat(np.arange(len(rows), dtype=np.int64), lengths)
        keys.append(row * n_seg + side.segs[concat_ranges(side.ptr[rows], lengths)])
    merged = _sorted_distinct(np.concatenate(keys))
    bounds = np.searchsorted(merged // n_seg, np.arange(len(rows) + 1))
    segs = (merged % n_seg).astype(np.int32)
    return [segs[bounds[i] : bounds[i + 1]] for i in range(len(rows))]


def smoothed_log_ratio(ht: np.ndarray, mt: np.ndarray, n_ht: int, n_mt: int, n_types: int) -> np.ndarray:
    """Add-one smoothed log-ratio of relative frequencies, HT over MT (mtdiag's choice for the skewed table).

    ``log((ht + 1) / (N_ht + V)) − log((mt + 1) / (N_mt + V))``, computed as ``log((ht + 1) / (mt + 1)) +
    log((N_mt + V) / (N_ht + V))`` so that equal count ratios give exactly equal values (ties sort by text)."""
    return np.log((ht + 1) / (mt + 1)) + np.log((n_mt + n_types) / (n_ht + n_types))


def _frame(columns: dict[str, object]) -> pd.DataFrame:
    segments = pd.Series(columns.pop("segments"), dtype=object)
    frame = pd.DataFrame(columns)
    frame["segments"] = segments.to_numpy()
    return frame


def _only_table(rows, count, ht, mt, texts, segments) -> pd.DataFrame:
    """Rows sorted by ``count`` descending, then text ascending (METRICS.md §4)."""
    order = np.lexsort((texts, -count[rows]))
    rows = rows[order]
    return _frame({"ngram": texts[order], "ht_count": ht.counts[rows], "mt_count": mt.counts[rows],
                   "segments": segments(rows)})


def _skewed_table(rows, ht, mt, texts, n_seg) -> pd.DataFrame:
    """Rows ranked by |log-ratio| descending, then text ascending."""
    n_types = int(np.count_nonzero((ht.counts + mt.counts) > 0))
    ratio = smoothed_log_ratio(ht.counts[rows], mt.counts[rows], int(ht.counts.sum()), int(mt.counts.sum()), n_types)
    order = np.lexsort((texts, -np.abs(ratio)))
    rows = rows[order]
    return _frame({"ngram": texts[order], "ht_count": ht.counts[rows], "mt_count": mt.counts[rows],
                   "log_ratio": ratio[order], "segments": _union_segments(rows, ht, mt, n_seg)})


def _system_table(system, order, ht, mt, text, min_count, n_seg) -> NgramTable:
    """HT-only, MT-only and skewed rows of one system at one order (``text(rows)``: the rows' n-gram texts)."""
    ht_rows = np.flatnonzero((ht.counts >= min_count) & (mt.counts == 0))
    mt_rows = np.flatnonzero((mt.counts >= min_count) & (ht.counts == 0))
    skew_rows = np.flatnonzero((ht.counts >= min_count) | (mt.counts >= min_count))
    return NgramTable(
        system=system,
        order=order,
        ht_only=_only_table(ht_rows, ht.counts, ht, mt, text(ht_rows), ht.segments),
        mt_only=_only_table(mt_rows, mt.counts, ht, mt, text(mt_rows), mt.segments),
        skewed=_skewed_table(skew_rows, ht, mt, text(skew_rows), n_seg),
    )


def _word_counts(distinct: TokenSide, text_ids: np.ndarray, n_vocab: int) -> np.ndarray:
    """Token counts over a column given as distinct-text ids (each distinct text weighted by its repeats)."""
    repeats = np.bincount(text_ids, minlength=distinct.n_segments)
    weights = np.repeat(repeats, distinct.lengths)
    return np.bincount(distinct.ids, weights=weights, minlength=n_vocab).astype(np.int64)


def _count_order(order: int, space: _Space, distinct: TokenSide, gathers: dict) -> tuple[np.ndarray, dict]:
    """The n-gram codes of one order (sorted; their positions are the dense gram ids) and every side's counts."""
    codes = ngram_codes(space.word_map[distinct.ids], distinct.offsets, order, space.pad, space.base)
    values = _sorted_distinct(codes.copy())
    dense = np.searchsorted(values, codes)
    sides = {name: _side_grams(dense[index], lengths, len(values)) for name, (index, lengths) in gathers.items()}
    return values, sides


def _check_arguments(evalset: EvalSet, ht_ref: str, orders: tuple[int, ...], min_count: int,
                     systems: list[str]) -> None:
    if ht_ref not in evalset.ref_names:
        raise ValueError(f"unknown HT reference {ht_ref!r}; references: {', '.join(evalset.ref_names)}")
    bad = [n for n in orders if n not in ORDERS]
    if bad or not orders:
        raise ValueError(f"n-gram orders must be among {ORDERS}, got {list(orders)}")
    if min_count < 1:
        raise ValueError(f"min_count must be at least 1, got {min_count}")
    known = set(evalset.systems) | set(evalset.ref_names)
    unknown = [s for s in systems if s not in known or s == ht_ref]
    if unknown:
        raise ValueError(f"cannot compare {', '.join(map(repr, unknown))} with the HT {ht_ref!r}")


def ngram_tables(
    evalset: EvalSet,
    ht_ref: str | None = None,
    orders: int | Sequence[int] = ORDERS,
    min_count: int = DEFAULT_MIN_COUNT,
    options: TokenizeOptions | None = None,
    systems: Sequence[str] | None = None,
) -> NgramTables:
    """HT-only, MT-only and skewed n-gram tables of every system against one human translation.

    Aikawa & Rarrick §2.2 (corpus counts, orders 1–4, the <UNK>/<PUNC> transform for orders 3–4) and §3 (Tables 1
    and 2: n-grams frequent in one corpus and absent from the other), with the details of METRICS.md §4.
    ``ht_ref``: the reference that plays the HT (default: the first); ``orders``: one order or several (1–4);
    ``min_count``: k; ``options``: tokeniser and case (default: by target language — ``ja-mecab`` for Japanese,
    ``zh`` for Chinese, else ``13a`` — lower-cased); ``systems``: the MT sides (default: every system; another
    reference is allowed too).
    """
    ht_ref, orders, systems, options = resolve_ngram_arguments(evalset, ht_ref, orders, min_count, options, systems)
    frequent, grams = _order_grams(_columns(evalset, ht_ref, systems), orders, options)
    statistics = {order: (lambda rows, values=values, order=order, space=space:
                          ngram_texts(values[rows], order, space.labels, space.base), sides)
                  for order, (values, space, sides) in grams.items()}
    return _tables(statistics, ht_ref, systems, orders, min_count, options, frequent, evalset.n_segments)


def resolve_ngram_arguments(evalset: EvalSet, ht_ref, orders, min_count, options, systems):
    """:func:`ngram_tables`' arguments checked and with their defaults: ``(ht_ref, orders, systems, options)``."""
    ht_ref = evalset.ref_names[0] if ht_ref is None else ht_ref
    orders = (int(orders),) if isinstance(orders, (int, np.integer)) else tuple(sorted(set(orders)))
    systems = list(evalset.systems if systems is None else systems)
    _check_arguments(evalset, ht_ref, orders, min_count, systems)
    if options is None:
        options = TokenizeOptions(default_tokenizer(evalset.tgt_lang))
    return ht_ref, orders, systems, options


def _columns(evalset: EvalSet, ht_ref: str, systems: Sequence[str]) -> dict[str, pd.Series]:
    """The HT first, then the compared sides (a system, or another reference)."""
    columns = {ht_ref: evalset.refs[ht_ref]}
    return columns | {s: evalset.hyps[s] if s in evalset.hyps.columns else evalset.refs[s] for s in systems}


def _order_grams(columns: dict[str, pd.Series], orders: tuple[int, ...], options: TokenizeOptions,
                 kept_words: tuple[str, ...] | None = None):
    """Tokenise ``columns`` (the HT first) once; per order the sorted n-gram codes, the token space and every
    column's counts and segment lists. The words kept lexicalised at orders 3-4 are ``kept_words`` (a whole set's,
    for a slice of it) or else this HT's most frequent. Returns ``(kept words, {order: (values, space, sides)})``."""
    vocab, distinct, text_ids = tokenize_distinct(columns, options)
    if kept_words is None:
        ht = next(iter(columns))
        kept = frequent_words(vocab, _word_counts(distinct, text_ids[ht], len(vocab)))
        kept_words = tuple(vocab[kept])
    else:
        position = {word: i for i, word in enumerate(vocab.tolist())}
        kept = np.asarray([position[w] for w in kept_words if w in position], dtype=np.int64)
    spaces = {"lexical": _lexical_space(vocab), "transformed": _transformed_space(vocab, kept)}
    gathers = {name: _gather(distinct, ids) for name, ids in text_ids.items()}
    grams = {}
    for order in orders:
        space = spaces["lexical" if order <= LEXICAL_MAX_ORDER else "transformed"]
        values, sides = _count_order(order, space, distinct, gathers)
        grams[order] = (values, space, sides)
    return kept_words, grams


def _tables(statistics, ht_ref, systems, orders, min_count, options, frequent, n_seg) -> NgramTables:
    """The tables of every system from each order's ``(text function, sides)``."""
    tables: dict[str, dict[int, NgramTable]] = {s: {} for s in systems}
    for order in orders:
        text, sides = statistics[order]
        for system in systems:
            tables[system][order] = _system_table(system, order, sides[ht_ref], sides[system], text, min_count, n_seg)
    return NgramTables(ht_ref=ht_ref, orders=orders, min_count=min_count, options=options,
                       frequent_words=tuple(frequent), tables=tables)


# ------------------------------------------------------------------ the same tables from slices of segments


def ht_word_counts(evalset: EvalSet, ht_ref: str, options: TokenizeOptions) -> pd.Series:
    """The HT's word counts (index: word): a slice's share of the first pass of :func:`partitioned_ngram_tables`."""
    vocab, distinct, text_ids = tokenize_distinct({ht_ref: evalset.refs[ht_ref]}, options)
    return pd.Series(_word_counts(distinct, text_ids[ht_ref], len(vocab)), index=pd.Index(vocab, dtype=object))


@dataclass(frozen=True)
class NgramPartition:
    """A slice of segments' n-grams in a form that needs no shared ids.

    Per order the text of each distinct n-gram (``texts``) and every side's counts and segment lists over those
    (segments numbered from ``start``)."""

    start: int
    texts: dict[int, np.ndarray]
    sides: dict[int, dict[str, _SideGrams]]


def ngram_partition(evalset: EvalSet, start: int, ht_ref: str, orders: tuple[int, ...], options: TokenizeOptions,
                    systems: Sequence[str], kept_words: tuple[str, ...]) -> NgramPartition:
    """The n-grams of a slice of segments, with the whole set's kept words.

    ``evalset`` is the slice, its first segment ``start`` in the whole set. A task of the second pass of
    :func:`partitioned_ngram_tables`."""
    _, grams = _order_grams(_columns(evalset, ht_ref, systems), orders, options, kept_words)
    return NgramPartition(start=start,
                          texts={order: ngram_texts(values, order, space.labels, space.base)
                                 for order, (values, space, _) in grams.items()},
                          sides={order: sides for order, (_, _, sides) in grams.items()})


def merge_partitions(parts: Sequence[NgramPartition], order: int, names: Sequence[str],
                     n_segments: int) -> tuple[np.ndarray, dict[str, _SideGrams]]:
    """One order's n-grams of every slice over one set of ids.

    The texts, and per side the summed counts and the concatenated segment lists (slices hold disjoint, ascending
    segments)."""
    codes, texts = pd.factorize(np.concatenate([p.texts[order] for p in parts]))
    ends = np.cumsum([0] + [len(p.texts[order]) for p in parts])
    n_seg = max(n_segments, 1)
    sides = {}
    for name in names:
        counts, keys = np.zeros(len(texts), dtype=np.int64), []
        for p, lo, hi in zip(parts, ends[:-1], ends[1:]):
            grams, local = codes[lo:hi], p.sides[order][name]
            counts[grams] += local.counts  # a slice's n-grams are distinct: one id each
            keys.append(np.repeat(grams.astype(np.int64), np.diff(local.ptr)) * n_seg + local.segs + p.start)
        sides[name] = _csr(counts, np.sort(np.concatenate(keys)), n_seg)
    return np.asarray(texts, dtype=object), sides


def partitioned_ngram_tables(evalset: EvalSet, bounds: Sequence[tuple[int, int]], run=None, ht_ref=None,
                             orders=ORDERS, min_count=DEFAULT_MIN_COUNT, options=None, systems=None) -> NgramTables:
    """:func:`ngram_tables` computed slice by slice (``bounds``: ``[start, stop)`` of each slice): exactly its tables.

    Two passes: the slices' HT word counts are summed to choose the kept words (orders 3-4), then each slice counts its
    n-grams and :func:`merge_partitions` sums them. ``run(function, argument lists)`` computes the tasks of a pass
    (default: one after the other here; :func:`mtdiag.scoring.chunks.ngram_tables_on_dask` sends them to a Dask
    cluster)."""
    ht_ref, orders, systems, options = resolve_ngram_arguments(evalset, ht_ref, orders, min_count, options, systems)
    run = run or (lambda function, arguments: [function(*a) for a in arguments])
    columns = [ht_ref, *systems]
    refs = [c for c in columns if c in evalset.ref_names]
    trimmed = replace(evalset, refs=evalset.refs[list(dict.fromkeys(refs))],
                      hyps=evalset.hyps[[c for c in columns if c not in refs]],
                      terms=None, human=None, scores=None, imported=(), annotations=None)
    pieces = [(trimmed.segment_slice(start, stop), start) for start, stop in bounds]
    word_counts = run(ht_word_counts, [(piece, ht_ref, options) for piece, _ in pieces])
    total = pd.concat(word_counts).groupby(level=0, sort=False).sum()
    words = total.index.to_numpy(dtype=object)
    kept_words = tuple(words[frequent_words(words, total.to_numpy(dtype=np.int64))])
    parts = run(ngram_partition, [(piece, start, ht_ref, orders, options, systems, kept_words)
                                  for piece, start in pieces])
    statistics = {}
    for order in orders:
        texts, sides = merge_partitions(parts, order, list(dict.fromkeys(columns)), evalset.n_segments)
        statistics[order] = (lambda rows, texts=texts: texts[rows], sides)
    return _tables(statistics, ht_ref, systems, orders, min_count, options, kept_words, evalset.n_segments)


def context_ngram_tables(ctx, orders: Sequence[int] = ORDERS, min_count: int = DEFAULT_MIN_COUNT,
                         ht_ref: str | None = None) -> NgramTables:
    """:func:`ngram_tables` of a scoring context's set and tokenisation, computed once per context and arguments.

    The N-grams view and the ``mt_only_ngram`` check share them."""
    key = ("ngram_tables", tuple(orders), min_count, ht_ref)
    return ctx.memo(key, lambda: ngram_tables(ctx.evalset, ht_ref=ht_ref, orders=tuple(orders), min_count=min_count,
                                              options=ctx.options))
