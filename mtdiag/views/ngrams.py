"""The N-grams page: HT-only, MT-only and skewed n-grams of a system against a human translation (Aikawa & Rarrick)
or against another system, the segments each n-gram opens, and the rule that hides function words in every
frequency list (:func:`function_ngrams`, also used by the Over/under and WAFT vs NEVA views)."""

from __future__ import annotations

import unicodedata
from typing import Sequence

import numpy as np
import pandas as pd

from mtdiag.core.highlight import Span, ngram_spans
from mtdiag.metrics.ht_mt_ngrams import DEFAULT_MIN_COUNT
from mtdiag.metrics.terminology import stop_words
from mtdiag.views.base import Table, View, ViewOption, other_system, references, systems
from mtdiag.views.detail import side_tokens

# Markers of the HT/MT tables (Aikawa & Rarrick: sentence start, out-of-list word, punctuation): never content.
_MARKERS = frozenset({"<s>", "<UNK>", "<PUNC>"})


def _is_symbolic(token: str) -> bool:
    """Every character is punctuation (P*) or a symbol (S*): ``,`` ``--`` ``&`` ``€`` ``«``."""
    return bool(token) and all(unicodedata.category(ch)[0] in "PS" for ch in token)


def function_ngrams(ngrams: pd.Series, lang: str | None) -> np.ndarray:
    """True for each n-gram made only of punctuation, symbols and stop words of ``lang``.

    An n-gram is tokens joined by one space; stop words are stopwordsiso's, case-insensitive (punctuation alone when
    the language is unknown). What a frequency list hides by default (``hide_function_words``): ``,``, ``die``,
    ``of the`` go; ``of the virus`` stays. Each distinct token is judged once."""
    if len(ngrams) == 0:
        return np.zeros(0, dtype=bool)
    stops = stop_words(lang)
    tokens = ngrams.astype(str).str.split(" ").explode()
    distinct = tokens.unique()
    functional = {t: t in _MARKERS or _is_symbolic(t) or t.lower() in stops for t in distinct}
    return tokens.map(functional).groupby(level=0).all().reindex(ngrams.index).to_numpy(dtype=bool)


def content_only(frame: pd.DataFrame, columns: Sequence[str], lang: str | None) -> pd.DataFrame:
    """The rows where at least one of ``columns`` holds content (not only function words)."""
    keep = np.zeros(len(frame), dtype=bool)
    for column in columns:
        keep |= ~function_ngrams(frame[column].reset_index(drop=True), lang)
    return frame[keep].reset_index(drop=True)


def ngram_tables(report, orders=(1, 2, 3, 4), min_count: int = DEFAULT_MIN_COUNT, ht_ref: str | None = None):
    """HT-only / MT-only / skewed n-gram tables (Aikawa & Rarrick) of every system, on the report's tokens.

    Computed once per report and arguments."""
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


def system_ngram_rows(report, a: str, b: str, order: int, *, min_count: int = DEFAULT_MIN_COUNT,
                      hide_function_words: bool = False) -> dict[str, pd.DataFrame]:
    """N-grams one system produces and another never does: ``{"only_a": …, "only_b": …}``.

    Aikawa & Rarrick's tables with system ``b`` in the place of the human translation (MT-ComparEval #23). Each table
    has ``ngram``, ``a_count``, ``b_count``, ``segments`` (where the system that has it uses it), ``n_segments``;
    ``hide_function_words`` as in :func:`ngram_rows`. For orders 3–4 the kept words are ``b``'s 100 most frequent
    (the paper's transform, with ``b`` as the corpus of reference)."""
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
            frame = content_only(frame, ["ngram"], report.context.tgt_lang)
        out[name] = frame.assign(n_segments=[len(x) for x in frame["segments"]]).reset_index(drop=True)
    return out


def ngram_rows(report, system: str, order: int, kind: str, *, min_count: int = DEFAULT_MIN_COUNT,
               ht_ref: str | None = None, hide_function_words: bool = False) -> pd.DataFrame:
    """One n-gram table (``ht_only``, ``mt_only`` or ``skewed``) of a system and order, with ``n_segments``.

    The table is :func:`ngram_tables`'; ``n_segments``: how many segments contain each n-gram. ``hide_function_words``
    drops the n-grams made only of punctuation, stop words and the <s>/<UNK>/<PUNC> markers."""
    tables = ngram_tables(report, orders=(order,), min_count=min_count, ht_ref=ht_ref)
    table = getattr(tables.table(system, order), kind).copy()
    if hide_function_words:
        table = content_only(table, ["ngram"], report.context.tgt_lang)
    table["n_segments"] = [len(s) for s in table["segments"]]
    return table


# ----------------------------------------------------------------------------------------------- the view

KINDS = {"ht_only": "HT-only", "mt_only": "MT-only", "skewed": "Skewed"}
AGAINST = {"human": "a system with the human translation",
           "system": "two systems (n-grams one produces and the other never does)"}
SIDES = {"only_a": "only the system", "only_b": "only the other system"}


def _against(report, chosen) -> list[str]:
    return list(AGAINST) if report.evalset.has_references else ["system"]


def human_ngrams(report, chosen) -> pd.DataFrame | None:
    """The chosen n-gram table of the system against the human translation (:func:`ngram_rows`).

    None when two systems are compared."""
    if chosen["against"] != "human":
        return None
    return ngram_rows(report, chosen["system"], chosen["order"], chosen["kind"], min_count=chosen["min_count"],
                      ht_ref=chosen["ht_ref"], hide_function_words=chosen["hide_function_words"])


def between_systems(report, chosen) -> pd.DataFrame | None:
    """The n-grams one of two systems uses and the other never does (:func:`system_ngram_rows`, the chosen ``side``).

    None when the system is compared with the human translation, or there is no other system."""
    if chosen["against"] != "system" or chosen["other"] is None:
        return None
    return system_ngram_rows(report, chosen["system"], chosen["other"], chosen["order"], min_count=chosen["min_count"],
                             hide_function_words=chosen["hide_function_words"])[chosen["side"]]


def _human_caption(report, chosen, frame) -> str:
    return f"{len(frame):,} n-grams. Select one to see its segments."


def _between_caption(report, chosen, frame) -> str:
    owner, other = ((chosen["system"], chosen["other"]) if chosen["side"] == "only_a"
                    else (chosen["other"], chosen["system"]))
    return (f"{len(frame):,} n-grams that {owner} uses at least {chosen['min_count']}× and {other} never does. Select "
            "one to see its segments.")


COUNTING = ("against", "system", "order", "min_count", "hide_function_words")

VIEW = View(
    name="ngrams", title="N-grams",
    help="HT-only, MT-only and skewed n-grams of a system against a human translation (Aikawa & Rarrick), or the "
         "n-grams one system uses and another never does, each with the segments that have it",
    about="Corpus n-gram counts of a human translation (a reference) against each system (Aikawa & Rarrick). HT-only: "
          "frequent in the human translation, never in the system (what it fails to say); MT-only: the reverse (its "
          "tics); skewed: much more frequent in one. Orders 3–4 keep the 100 most frequent human words; other words "
          "become <UNK>, punctuation <PUNC>; <s> marks the sentence start.",
    options=(
        ViewOption("against", "Compare", "the system's n-grams against the human translation or another system",
                   choices=_against, describe=AGAINST),
        ViewOption("system", "System", choices=systems),
        ViewOption("order", "Order", "the n-gram order", choices=(1, 2, 3, 4), type=int),
        ViewOption("min_count", "Minimum count k", "the fewest occurrences an n-gram needs in the corpus that has it",
                   type=int, default=DEFAULT_MIN_COUNT, minimum=1, maximum=100),
        ViewOption("hide_function_words", "Hide punctuation and stop words", "Leave out n-grams made only of "
                   "punctuation, symbols and stop words of the target language.", type=bool, default=True),
        ViewOption("ht_ref", "Human translation", "the reference read as the human translation", choices=references,
                   needs=("references",)),
        ViewOption("kind", "Table", choices=tuple(KINDS), describe=KINDS),
        ViewOption("other", "Other system", "the system compared with (against another system)",
                   choices=other_system("system"), needs=("two_systems",)),
        ViewOption("side", "Table", "whose n-grams are listed (against another system)", choices=tuple(SIDES),
                   describe=SIDES),
    ),
    tables=(Table("ngrams", "N-grams", human_ngrams, needs=("references",),
                  uses=(*COUNTING, "ht_ref", "kind"), caption=_human_caption),
            Table("between", "N-grams one system uses and the other never does", between_systems,
                  uses=(*COUNTING, "other", "side"), caption=_between_caption)),
    details={"highlights": ngram_highlights},
    in_report=False,
)
