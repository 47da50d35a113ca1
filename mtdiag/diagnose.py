"""The frames behind the dashboard's views: the segment table, evidence, n-gram and term tables, comparisons.

Everything here reads a :class:`~mtdiag.api.Report` and returns pandas frames; nothing computes a metric anew and
nothing imports Streamlit. The dashboard's pages only draw what these functions return.

The worst-first queue itself is :mod:`mtdiag.triage` (flags: :mod:`mtdiag.checks`); the Segments page's frames are
in :mod:`mtdiag.views.segments`.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag import checks
from mtdiag.highlight import Span, ngram_spans
from mtdiag.metrics import EvidenceTable, SegmentEvidence, metric_info
from mtdiag.metrics.terminology import stop_words

TEXT_PREVIEW = 120  # characters of a text shown in a table cell (12,000-row tables stay light)


def _preview(texts: pd.Series, width: int = TEXT_PREVIEW) -> pd.Series:
    texts = texts.astype(str)
    long = texts.str.len() > width
    return texts.where(~long, texts.str.slice(0, width) + "…")


def _preview_one(text: str, width: int = TEXT_PREVIEW) -> str:
    text = str(text)
    return text if len(text) <= width else text[:width] + "…"


SEARCH_SECONDS = 2.0  # time budget of one text search (a pathological pattern must not hold the server)


def text_matches(pattern: str, texts: Sequence[str], budget: float = SEARCH_SECONDS) -> np.ndarray:
    """Which texts contain a match of ``pattern``, a case-insensitive regular expression (the ``regex`` module's
    syntax: ``Pandemie|Virus``, ``\\d+ %``; a plain word matches as a substring). ``ValueError`` with a clear
    message for an invalid pattern or a search that exceeds ``budget`` seconds over all texts."""
    import time

    import regex

    try:
        compiled = regex.compile(pattern, regex.IGNORECASE | regex.V1)
    except regex.error as exc:
        raise ValueError(f"the search {pattern!r} is not a valid regular expression: {exc}") from None
    deadline = time.monotonic() + budget
    hits = np.zeros(len(texts), dtype=bool)
    try:
        for i, text in enumerate(texts):
            hits[i] = compiled.search(text, timeout=max(deadline - time.monotonic(), 0.001)) is not None
    except TimeoutError:
        raise ValueError(f"the search {pattern!r} takes too long on these texts; simplify the pattern") from None
    return hits


# ---------------------------------------------------------------------------------------------- overview


def corpus_table(report) -> pd.DataFrame:
    """Corpus scores (index system, one column per metric) in registry order."""
    return report.corpus.copy()


def best_systems(corpus: pd.DataFrame, within=None) -> pd.DataFrame:
    """Per metric: the best system (ties: all of them, in system order), its score and the direction (imported
    metrics resolved through ``within``, the report or set: :func:`mtdiag.metrics.metric_info`)."""
    rows = []
    for metric in corpus.columns:
        values = corpus[metric]
        info = metric_info(metric, within)
        if values.notna().sum() == 0 or not info.has_direction:
            continue
        best = values.max() if info.higher_is_better else values.min()
        winners = [s for s, v in values.items() if np.isclose(v, best, rtol=0, atol=1e-12)]
        rows.append({"metric": metric, "label": info.label, "best": ", ".join(winners),
                     "score": best, "direction": info.direction})
    return pd.DataFrame(rows, columns=["metric", "label", "best", "score", "direction"])


def best_mask(corpus: pd.DataFrame, within=None) -> pd.DataFrame:
    """Boolean frame shaped like ``corpus``: True where a system is best on that metric (imported metrics resolved
    through ``within``)."""
    mask = pd.DataFrame(False, index=corpus.index, columns=corpus.columns)
    for metric in corpus.columns:
        values = corpus[metric]
        info = metric_info(metric, within)
        if values.notna().any() and info.has_direction:
            best = values.max() if info.higher_is_better else values.min()
            mask[metric] = np.isclose(values, best, rtol=0, atol=1e-12)
    return mask


def significance_marks(corpus: pd.DataFrame, sig: pd.DataFrame | None) -> pd.DataFrame:
    """Per (system, metric) of ``corpus``: ``"▲"`` significantly better than the baseline, ``"▼"`` significantly
    worse, ``"="`` the baseline itself, ``""`` not significant or not tested. ``sig`` is a frame of
    :func:`mtdiag.compare.significance`."""
    marks = pd.DataFrame("", index=corpus.index, columns=corpus.columns)
    if sig is None:
        return marks
    baseline = sig.attrs.get("baseline")
    for (system, metric), row in sig.iterrows():
        if system not in marks.index or metric not in marks.columns:
            continue
        if system == baseline:
            marks.at[system, metric] = "="
        elif bool(row["significant"]) and row["better"] != 0:
            marks.at[system, metric] = "▲" if row["better"] > 0 else "▼"
    return marks


def significance_table(sig: pd.DataFrame) -> pd.DataFrame:
    """The significance frame flattened for display/export: ``system, metric, score, ci_lo, ci_hi, delta, p,
    significant, better``."""
    cols = [c for c in ("score", "ci_lo", "ci_hi", "ci", "delta", "p", "significant", "better") if c in sig.columns]
    return sig[cols].reset_index()


def intervals(sig: pd.DataFrame) -> pd.DataFrame:
    """``system, metric, lo, hi``: the 95% bootstrap intervals of a significance frame (for error bars)."""
    frame = sig[["ci_lo", "ci_hi"]].rename(columns={"ci_lo": "lo", "ci_hi": "hi"}).reset_index()
    return frame.dropna(subset=["lo", "hi"])


# ---------------------------------------------------------------------------------------------- OTEM / UTEM


def _short(value: float) -> str:
    return f"{value:.3g}"


def distribution_summary(report, metric: str) -> pd.DataFrame:
    """Per system: corpus score, mean and median segment score, share of segments above 0, and segments."""
    seg = report.segments[metric]
    grouped = seg.groupby(level="system", sort=False)
    frame = pd.DataFrame({
        "corpus": report.corpus[metric],
        "segment_mean": grouped.mean(),
        "segment_median": grouped.median(),
        "share_above_0": grouped.apply(lambda s: float((s > 0).mean())),
        "segments": grouped.size(),
    })
    frame.index.name = "system"
    return frame.reindex(report.evalset.systems)


SCATTER_POINTS = 5_000  # a scatter shows at most this many points (a seeded random sample beyond)


def sample_rows(frame: pd.DataFrame, limit: int = SCATTER_POINTS, seed: int = 0) -> pd.DataFrame:
    """``frame`` itself when it has at most ``limit`` rows, else a seeded random sample of ``limit`` rows in their
    original order (``attrs["total"]`` keeps the full count, for a "showing n of N" caption): 15,000 points in one
    scatter are one mass, a uniform sample shows the same shape."""
    total = len(frame)
    out = frame if total <= limit else frame.sample(n=limit, random_state=seed).sort_index()
    out = out.copy()
    out.attrs["total"] = total
    return out


def metric_pairs(report, x: str, y: str, limit: int = SCATTER_POINTS) -> pd.DataFrame:
    """Per (system, segment): the segment scores of two metrics (``system, seg, X, Y``), rows with either undefined
    left out, at most ``limit`` of them (:func:`sample_rows`), for a metric-vs-metric scatter."""
    return sample_rows(report.segments[list(dict.fromkeys([x, y]))].dropna().reset_index(), limit)


def segment_scores(report, metric: str) -> pd.DataFrame:
    """Per (system, segment): one metric's segment score (``system, seg, score``; undefined left out), for
    per-system distributions."""
    return report.segments[metric].dropna().rename("score").reset_index()


def mp_per_order(report, metric: str) -> pd.DataFrame:
    """OTEM/UTEM ``mp_n`` per system and order from the summed statistics: ``system, order, mp, matched,
    total`` (mp in 0–1: the share of over-/under-matched n-grams of that order)."""
    m = report.metric(metric)
    order = m.order
    rows = []
    for system in report.evalset.systems:
        stats = report.result(metric, system).stats.sum(axis=0)
        mp = m.mp_per_order(stats)
        for n in range(order):
            rows.append({"system": system, "order": n + 1, "mp": float(mp[n]),
                         "matched": int(stats[2 + n]), "total": int(stats[2 + order + n])})
    return pd.DataFrame(rows, columns=["system", "order", "mp", "matched", "total"])


# ---------------------------------------------------------------------------------------------- frequency lists

# Markers of the HT/MT tables (Aikawa & Rarrick: sentence start, out-of-list word, punctuation): never content.
_MARKERS = frozenset({"<s>", "<UNK>", "<PUNC>"})


def _is_symbolic(token: str) -> bool:
    """Every character is punctuation (P*) or a symbol (S*): ``,`` ``--`` ``&`` ``€`` ``«``."""
    return bool(token) and all(unicodedata.category(ch)[0] in "PS" for ch in token)


def function_ngrams(ngrams: pd.Series, lang: str | None) -> np.ndarray:
    """True for each n-gram (tokens joined by one space) made only of punctuation, symbols and stop words of
    ``lang`` (stopwordsiso, case-insensitive; punctuation alone when the language is unknown) — what a frequency
    list hides by default (``hide_function_words``): ``,``, ``die``, ``of the`` go; ``of the virus`` stays.
    Each distinct token is judged once."""
    if len(ngrams) == 0:
        return np.zeros(0, dtype=bool)
    stops = stop_words(lang)
    tokens = ngrams.astype(str).str.split(" ").explode()
    distinct = tokens.unique()
    functional = {t: t in _MARKERS or _is_symbolic(t) or t.lower() in stops for t in distinct}
    return tokens.map(functional).groupby(level=0).all().reindex(ngrams.index).to_numpy(dtype=bool)


def _content_only(frame: pd.DataFrame, columns: Sequence[str], lang: str | None) -> pd.DataFrame:
    """The rows where at least one of ``columns`` holds content (not only function words)."""
    keep = np.zeros(len(frame), dtype=bool)
    for column in columns:
        keep |= ~function_ngrams(frame[column].reset_index(drop=True), lang)
    return frame[keep].reset_index(drop=True)


def evidence_ngrams(report, metric: str, system: str, hide_function_words: bool = False) -> pd.DataFrame:
    """:func:`frequent_ngrams` of a metric's n-gram evidence (over-matched for OTEM, under-matched for UTEM);
    ``hide_function_words`` drops the n-grams made only of punctuation and stop words (:func:`function_ngrams`)."""
    evidence = report.evidence(metric, system)
    grams = frequent_ngrams(evidence, "over" if "over" in evidence.columns else "under")
    return _content_only(grams, ["ngram"], report.context.tgt_lang) if hide_function_words else grams


def frequent_ngrams(evidence: pd.DataFrame, count: str) -> pd.DataFrame:
    """The over-/under-matched n-grams of one system, most frequent first: ``order, ngram, segments`` (how many
    segments have it) and ``count`` (summed ``count`` column: over- or under-matched occurrences)."""
    if evidence.empty:
        return pd.DataFrame(columns=["order", "ngram", "segments", count])
    frame = evidence.groupby(["order", "ngram"], sort=False).agg(segments=("seg", "nunique"), total=(count, "sum"))
    frame = frame.rename(columns={"total": count}).reset_index()
    return frame.sort_values([count, "segments", "order", "ngram"], ascending=[False, False, True, True],
                             ignore_index=True)


def ngram_segments(evidence: pd.DataFrame, ngram: str, order: int | None = None) -> list[int]:
    """The segments (ascending) whose evidence lists ``ngram``."""
    rows = evidence[evidence["ngram"] == ngram]
    if order is not None:
        rows = rows[rows["order"] == order]
    return sorted(int(s) for s in rows["seg"].unique())


# ---------------------------------------------------------------------------------------------- WAFT / NEVA


def word_order_table(report, systems: Sequence[str] | None = None) -> pd.DataFrame:
    """Per (system, segment): WAFT, NEVA, ``neva_minus_waft`` and the word-order flag
    (:mod:`mtdiag.checks.word_order`: a margin and reordered shared words); flagged rows first, each group by
    largest NEVA − WAFT."""
    frame = report.segments[["waft", "neva"]].copy()
    frame["neva_minus_waft"] = frame["neva"] - frame["waft"]
    frame["word_order"] = checks.flag(report, "word_order")
    frame = frame.reset_index()
    if systems is not None:
        frame = frame[frame["system"].isin(list(systems))]
    frame["hyp"] = [_preview_one(report.evalset.hyps.at[g, s]) for s, g in zip(frame["system"], frame["seg"])]
    return frame.sort_values(["word_order", "neva_minus_waft", "system", "seg"],
                             ascending=[False, False, True, True], ignore_index=True)


def edit_tables(report, system: str, top: int | None = 50, hide_function_words: bool = False) -> dict[str, pd.DataFrame]:
    """The corpus's most frequent edit operations of one system: ``substitute`` (confusion pairs hyp → ref),
    ``insert`` (words only in the hypothesis) and ``delete`` (reference words missing), each ``hyp, ref, count``.
    ``hide_function_words`` drops the rows whose words are all punctuation or stop words (a confusion pair
    stays when either side is a content word: ``die → der`` goes, ``Virus → Erreger`` stays)."""
    pairs = report.evidence("waft", system).confusion_pairs()
    out = {}
    for op, cols in (("substitute", ["hyp", "ref", "count"]), ("insert", ["hyp", "count"]),
                     ("delete", ["ref", "count"])):
        rows = pairs[pairs["op"] == op][cols].reset_index(drop=True)
        if hide_function_words:
            rows = _content_only(rows, [c for c in ("hyp", "ref") if c in cols], report.context.tgt_lang)
        out[op] = rows.head(top) if top else rows
    return out


def op_counts(report) -> pd.DataFrame:
    """Per system: how many substitutions, insertions and deletions its best-reference alignments have."""
    rows = [{"system": system, **report.evidence("waft", system).operation_counts()}
            for system in report.evalset.systems]
    return pd.DataFrame(rows, columns=["system", "substitute", "insert", "delete"]).set_index("system")


# ---------------------------------------------------------------------------------------------- one segment


@dataclass(frozen=True)
class SideTokens:
    """One text of a segment as tokens: ``shown`` (the user's tokeniser, original case when it lines up) and
    ``matched`` (exactly the tokens the metrics saw), same length."""

    name: str
    shown: list[str]
    matched: list[str]


def side_tokens(report, side: str, seg: int) -> SideTokens:
    """The tokens of a reference or system for one segment, for display."""
    shown, matched = report.context.display_tokens(side, seg)
    return SideTokens(side, shown, matched)


@dataclass(frozen=True)
class SegmentDetail:
    """Everything the dashboard shows for one (system, segment): texts, tokens, highlight spans, the legend of
    their kinds, and every metric's evidence tables (keyed by name, in the report's metric order)."""

    system: str
    seg: int
    src: str
    hyp: SideTokens
    refs: dict[str, SideTokens]
    hyp_spans: list[Span]
    ref_spans: dict[str, list[Span]]
    legend: list[str]
    tables: dict[str, EvidenceTable]
    facts: dict[str, object]
    scores: pd.Series

    def table(self, name: str) -> pd.DataFrame | None:
        """One evidence table's frame (``over``, ``under``, ``alignment``, ``terms``, …), None when absent."""
        return self.tables[name].frame if name in self.tables else None


def segment_detail(report, system: str, seg: int) -> SegmentDetail:
    """Source, references and hypothesis of one segment with every computed metric's evidence
    (:meth:`~mtdiag.metrics.Metric.segment_evidence`: over-matched n-grams in the hypothesis, under-matched ones in
    each reference, the edit alignment, term occurrences, …), merged in the report's metric order, then why the
    triage checks fired (:func:`mtdiag.checks.check_evidence`) and the human error spans when loaded."""
    evalset = report.evalset
    seg = int(seg)
    hyp_spans: list[Span] = []
    ref_spans: dict[str, list[Span]] = {r: [] for r in evalset.ref_names}
    legend: list[str] = []
    tables: dict[str, EvidenceTable] = {}
    facts: dict[str, object] = {}
    for name in report.metrics:
        evidence = report.metric(name).segment_evidence(report.context, system, seg)
        if evidence is None:
            continue
        hyp_spans += evidence.hyp_spans
        for ref, spans in evidence.ref_spans.items():
            ref_spans[ref] += spans
        legend += [k for k in evidence.legend if k not in legend]
        tables |= evidence.tables
        facts |= evidence.facts
    for extra in (checks.check_evidence(report, system, seg), human_error_evidence(report, system, seg)):
        if extra is not None:
            hyp_spans += extra.hyp_spans
            legend += [k for k in extra.legend if k not in legend]
            tables |= extra.tables
    return SegmentDetail(system=system, seg=seg, src=str(evalset.src.iat[seg]), hyp=side_tokens(report, system, seg),
                         refs={r: side_tokens(report, r, seg) for r in evalset.ref_names}, hyp_spans=hyp_spans,
                         ref_spans=ref_spans, legend=legend, tables=tables, facts=facts,
                         scores=report.segments.loc[(system, seg)])


def human_error_evidence(report, system: str, seg: int) -> SegmentEvidence | None:
    """The human error spans (MQM/ESA annotations) of one output: marked in the hypothesis (major/minor) and listed
    with rater, severity, category and the marked text; None when the data has no annotations."""
    from mtdiag.highlight import char_span_tokens, token_offsets

    spans = report.evalset.annotations
    if spans is None:
        return None
    rows = spans[(spans["system"] == system) & (spans["seg"] == seg)].reset_index(drop=True)
    text = str(report.evalset.hyps.at[seg, system])
    shown, _ = report.context.display_tokens(system, seg)
    offsets = token_offsets(text, shown)
    marks = []
    for row in rows.itertuples(index=False):
        if row.side != "target" or offsets is None:
            continue
        tokens = char_span_tokens(offsets, row.start, row.end)
        if tokens is not None:
            kind = "human_major" if row.weight >= 5 else "human_minor"
            marks.append(Span(tokens[0], tokens[1], kind, f"{row.severity} {row.category} ({row.rater or 'rater'})"))
    listed = rows.assign(text=[text[r.start:r.end] if r.side == "target" else "" for r in rows.itertuples()])
    listed = listed[["rater", "severity", "category", "side", "text", "weight"]]
    return SegmentEvidence(hyp_spans=tuple(marks), legend=("human_major", "human_minor"),
                           tables={"human_errors": EvidenceTable("Human errors", listed,
                                                                 empty="The raters marked no error in this output.")})


# ---------------------------------------------------------------------------------------------- n-grams


def ngram_tables(report, orders=(1, 2, 3, 4), min_count: int = 2, ht_ref: str | None = None):
    """HT-only / MT-only / skewed n-gram tables (Aikawa & Rarrick) of every system, on the report's tokens
    (computed once per report and arguments)."""
    from mtdiag.metrics.ht_mt_ngrams import context_ngram_tables

    return context_ngram_tables(report.context, orders, min_count, ht_ref)


def ngram_highlights(report, system: str, seg: int, ngram: str, ref: str | None = None) -> tuple[list[Span], list[Span]]:
    """Spans of one n-gram in a segment's hypothesis and reference (default: the first), for display.

    N-grams as the n-gram tables print them: a leading ``<s>`` means the sentence start (matched only there);
    n-grams with ``<UNK>``/``<PUNC>`` (the orders 3-4 transform) are patterns, not words, and get no span."""
    ref = ref or report.evalset.ref_names[0]
    words = ngram.split(" ")
    if any(w in ("<UNK>", "<PUNC>") for w in words):
        return [], []
    start_only = words[0] == "<s>"
    words = [w for w in words if w != "<s>"]
    if not words:
        return [], []
    target = " ".join(words)

    def spans(side: str) -> list[Span]:
        found = ngram_spans(side_tokens(report, side, seg).matched, [target])
        return [s for s in found if s.start == 0] if start_only else found

    return spans(system), spans(ref)


def system_ngram_rows(report, a: str, b: str, order: int, *, min_count: int = 2,
                      hide_function_words: bool = False) -> dict[str, pd.DataFrame]:
    """N-grams one system produces and another never does (MT-ComparEval #23): Aikawa & Rarrick's tables with
    system ``b`` in the place of the human translation. ``{"only_a": …, "only_b": …}``, each ``ngram``, ``a_count``,
    ``b_count``, ``segments`` (where the system that has it uses it), ``n_segments``; ``hide_function_words`` as in
    :func:`ngram_rows`. For orders 3–4 the kept words are ``b``'s 100 most frequent (the paper's transform, with
    ``b`` as the corpus of reference)."""
    from dataclasses import replace

    from mtdiag.metrics.ht_mt_ngrams import ngram_tables as build

    if a == b:
        raise ValueError("choose two different systems")
    key = ("system_ngrams", a, b, order, min_count)
    pair = replace(report.evalset, refs=report.evalset.hyps[[b]], hyps=report.evalset.hyps[[a]], terms=None,
                   human=None, annotations=None, scores=None, imported=())
    tables = report.context.memo(key, lambda: build(pair, ht_ref=b, orders=(order,), min_count=min_count,
                                                    options=report.context.options))
    table = tables.table(a, order)
    out = {}
    for name, frame in (("only_a", table.mt_only), ("only_b", table.ht_only)):
        frame = frame.rename(columns={"mt_count": "a_count", "ht_count": "b_count"})[
            ["ngram", "a_count", "b_count", "segments"]]
        if hide_function_words:
            frame = _content_only(frame, ["ngram"], report.context.tgt_lang)
        out[name] = frame.assign(n_segments=[len(x) for x in frame["segments"]]).reset_index(drop=True)
    return out


def ngram_rows(report, system: str, order: int, kind: str, *, min_count: int = 2, ht_ref: str | None = None,
               hide_function_words: bool = False) -> pd.DataFrame:
    """One n-gram table (``ht_only``, ``mt_only`` or ``skewed``) of a system and order (:func:`ngram_tables`), with
    ``n_segments`` (how many segments contain each n-gram); ``hide_function_words`` drops the n-grams made only of
    punctuation, stop words and the <s>/<UNK>/<PUNC> markers."""
    tables = ngram_tables(report, orders=(order,), min_count=min_count, ht_ref=ht_ref)
    table = getattr(tables.table(system, order), kind).copy()
    if hide_function_words:
        table = _content_only(table, ["ngram"], report.context.tgt_lang)
    table["n_segments"] = [len(s) for s in table["segments"]]
    return table


# ---------------------------------------------------------------------------------------------- terminology


def has_terms(report) -> bool:
    terms = report.evalset.terms
    return terms is not None and len(terms) > 0 and "term_exact" in report.metrics


def term_table(report, system: str) -> pd.DataFrame | None:
    """Every term occurrence of one system with its verdict and spans (None when the data has no terms)."""
    if not has_terms(report):
        return None
    from mtdiag.metrics.terminology import term_occurrences

    return term_occurrences(report.context, system)


def term_summary(report) -> pd.DataFrame:
    """Per term (source term + target alternatives) and system: occurrences, correct, accuracy (0–100) and the
    segments where it was missed; long form, most-missed first."""
    rows = []
    for system in report.evalset.systems:
        occ = term_table(report, system)
        if occ is None or occ.empty:
            continue
        for (src_term, tgt_terms), group in occ.groupby(["src_term", "tgt_terms"], sort=False):
            missed = sorted(int(s) for s in group.loc[~group["correct"], "seg"].unique())
            rows.append({"system": system, "src_term": src_term, "tgt_terms": tgt_terms,
                         "occurrences": len(group), "correct": int(group["correct"].sum()),
                         "accuracy": 100.0 * group["correct"].mean(),
                         "missed_in": ", ".join(str(s) for s in missed)})
    frame = pd.DataFrame(rows, columns=["system", "src_term", "tgt_terms", "occurrences", "correct", "accuracy",
                                        "missed_in"])
    return frame.sort_values(["accuracy", "occurrences", "src_term", "system"], ascending=[True, False, True, True],
                             ignore_index=True)


def term_spans(report, system: str, occurrence: pd.Series, window: int) -> tuple[list[Span], list[Span]]:
    """Highlight spans of one term occurrence: (hypothesis spans, first-reference spans) with the term and its
    ``window``-token context."""
    hyp, ref = [], []
    title = f"{occurrence['src_term']} → {occurrence['tgt_terms']}"
    if occurrence["hyp_span"] is not None:
        hyp.append(Span(*occurrence["hyp_span"], "term_ok", title))
        hyp += [Span(i, i + 1, "window") for i in occurrence[f"hyp_window{window}"]]
    if occurrence["ref_span"] is not None:
        ref.append(Span(*occurrence["ref_span"], "term_ok" if occurrence["correct"] else "term_miss", title))
        ref += [Span(i, i + 1, "window") for i in occurrence[f"ref_window{window}"]]
    return hyp, ref


# ---------------------------------------------------------------------------------------------- compare


def corpus_differences(report, a: str, b: str) -> pd.DataFrame:
    """Per metric: the corpus scores of systems ``a`` and ``b``, ``a − b`` and which one is better."""
    rows = []
    for metric in report.metrics:
        va, vb = float(report.corpus.at[a, metric]), float(report.corpus.at[b, metric])
        diff = va - vb
        info = metric_info(metric, report)
        if not info.has_direction:
            better = "—"
        else:
            better = "tie" if np.isclose(diff, 0, atol=1e-12) else (a if (diff > 0) == info.higher_is_better else b)
        rows.append({"metric": metric, "label": info.label, a: va, b: vb, "difference": diff,
                     "better": better})
    return pd.DataFrame(rows)


def pair_differences(report, a: str, b: str, sig: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per metric: A's and B's corpus scores, ``difference`` (A − B), and — given ``sig``, a frame of
    :func:`mtdiag.compare.significance` with ``b`` as the baseline — the paired test's ``p`` and ``significant``;
    ``better`` names the system the metric prefers ("tie" when equal)."""
    frame = corpus_differences(report, a, b)
    if sig is not None:
        frame["p"] = [float(sig.at[(a, m), "p"]) if (a, m) in sig.index else np.nan for m in frame["metric"]]
        frame["significant"] = [bool(sig.at[(a, m), "significant"]) if (a, m) in sig.index else False
                                for m in frame["metric"]]
    return frame


def closer_to_reference(report, a: str, b: str, metric: str) -> pd.Series:
    """Per segment (0-based index): which of the two outputs ``metric`` puts closer to the reference(s) — ``a``,
    ``b``, or ``"tie"`` (equal scores, or a score undefined on either side). Direction-aware (:class:`MetricInfo`);
    a metric without a better direction (the length ratio) says ``"tie"`` everywhere."""
    seg = report.segments[metric]
    va, vb = seg.xs(a, level="system"), seg.xs(b, level="system")
    info = metric_info(metric, report)
    if not info.has_direction:
        return pd.Series("tie", index=va.index, name="closer")
    advantage = info.oriented(va) - info.oriented(vb)  # > 0: a is better
    closer = np.where(advantage > 0, a, np.where(advantage < 0, b, "tie"))
    return pd.Series(closer, index=va.index, name="closer").where(advantage.notna(), "tie")


def segment_differences(report, a: str, b: str, metric: str) -> pd.DataFrame:
    """The segments where systems ``a`` and ``b`` differ most, first, with both outputs side by side (issue 23).

    **Ranking**: largest ``|problem_difference|`` first, the difference of the two outputs' problem scores
    (:func:`mtdiag.triage.problem_scores`: each output's badness among every output of this test set, the score
    the worst-first queue sorts by) — "one output is fine, the other one is bad". Not the difference of one segment
    metric: a segment score swings from 0 to 100 on a two-word greeting ("Good day" vs "Hello": chrF 0 against 100),
    so ranking by |ΔchrF| filled the top with short segments, while the problem score's percentiles weigh a
    greeting's swing against every other output's (and a problem score that grows with the length an error can
    span weighs it less still). Figures: ``docs/dashboard.md`` (Compare), ``benchmarks/compare_ranking.py``.

    Columns: ``seg``, ``closer`` (:func:`closer_to_reference` by ``metric``: which output is closer to the
    reference), ``problem A``/``problem B`` (named ``problem <system>``), ``problem_difference`` (A − B; > 0: A
    is worse), ``metric`` of both (``<metric> <system>``), ``difference`` (A − B) and ``advantage`` (positive = A
    better, direction-aware), then previews of the source, the first reference (when there is one) and both outputs (``src``, ``ref``,
    ``hyp <system>``). Ties keep segment order."""
    from mtdiag.triage import problem_scores

    problem = problem_scores(report)["problem"]
    pa, pb = problem.xs(a, level="system"), problem.xs(b, level="system")
    seg = report.segments[metric]
    va, vb = seg.xs(a, level="system"), seg.xs(b, level="system")
    diff = (va - vb).to_numpy()
    evalset = report.evalset
    frame = pd.DataFrame({"seg": va.index, "closer": closer_to_reference(report, a, b, metric).to_numpy(),
                          f"problem {a}": pa.to_numpy(), f"problem {b}": pb.to_numpy(),
                          "problem_difference": (pa - pb).to_numpy(), f"{metric} {a}": va.to_numpy(),
                          f"{metric} {b}": vb.to_numpy(), "difference": diff,
                          "advantage": metric_info(metric, report).sign * diff})
    frame["src"] = _preview(evalset.src).to_numpy()
    if evalset.has_references:
        frame["ref"] = _preview(evalset.refs[evalset.ref_names[0]]).to_numpy()
    frame[f"hyp {a}"] = _preview(evalset.hyps[a]).to_numpy()
    frame[f"hyp {b}"] = _preview(evalset.hyps[b]).to_numpy()
    frame["_abs"] = frame["problem_difference"].abs()
    frame = frame.sort_values(["_abs", "seg"], ascending=[False, True], kind="stable").drop(columns="_abs")
    return frame.reset_index(drop=True)


def hypothesis_diff(report, a: str, b: str, seg: int) -> tuple[SideTokens, SideTokens, list[Span], list[Span]]:
    """The two systems' tokens for one segment and spans marking the tokens the other system does not share
    (a word-level Levenshtein alignment of the two hypotheses)."""
    from mtdiag.highlight import diff_spans
    from mtdiag.metrics.waft_neva import aligned_tokens

    ta, tb = side_tokens(report, a, seg), side_tokens(report, b, seg)
    ops = [(op, hp, rp) for op, _, _, hp, rp in aligned_tokens(ta.matched, tb.matched)]
    return ta, tb, diff_spans(ops, "a"), diff_spans(ops, "b")


# ---------------------------------------------------------------------------------------------- human scores


def has_human_scores(report) -> bool:
    """True when the data has human scores for at least one of the report's systems."""
    human = report.evalset.human
    return human is not None and len(human) > 0 and bool(human["system"].isin(report.evalset.systems).any())


def human_points(report, metric: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """What the metric-vs-human scatter plots draw: per rated (system, segment) ``system, seg, human, <metric>``,
    and per system ``system, human`` (mean over its rated segments) and ``<metric>`` (its corpus score)."""
    from mtdiag.human import rated_segments

    segments = rated_segments(report, report.evalset.human)[["human", metric]].reset_index()
    means = segments.groupby("system", sort=False)["human"].mean()
    systems = pd.DataFrame({"system": means.index, "human": means.to_numpy(),
                            metric: report.corpus[metric].reindex(means.index).to_numpy()})
    return segments, systems
