"""The common jobs on plain Python lists, one call each — the front door of ``import mtdiag``.

As sacrebleu scores with ``BLEU().corpus_score(hyps, [refs])``, mtdiag scores every system at once::

    import mtdiag
    scores = mtdiag.score(hyps={"A": [...], "B": [...]}, refs=[[...]], src=[...])
    scores.corpus                     # one row per system, one column per metric
    mtdiag.worst_first(scores)        # the worst-first queue of (system, segment) pairs
    mtdiag.error_spans(scores)        # predicted error spans: where in an output the error is
    mtdiag.score_slice(scores, where='chrf[A] < 40')   # the scores of a slice
    mtdiag.html_report(scores, path="report.html")     # the self-contained HTML report

Every function takes the same inputs: ``hyps`` — ``{system: [one output per segment]}``; ``refs`` — the references
as sacrebleu takes them, a list of reference streams (``[refs]`` for one reference; named ``A``, ``B``, … in order)
or ``{name: [...]}``, or None for none (the reference-free checks and consensus still work); ``src`` — the source
segments (optional); ``lang_pair`` — ``"en-de"`` (the target language chooses the tokeniser, as sacrebleu's, and
the language checks read it); and the options of :class:`~mtdiag.scoring.evaluate.Options` as keywords
(``metrics=("bleu", "chrf")``, ``tokenize="13a"``, ``lowercase=False``, ``metric_options={"chrf": {"word_order":
2}}``). Or, in place of ``hyps``, the :class:`Scores` of an earlier call: nothing is scored again.

Segments are named by ``seg_id``, their line in the lists (from 1), in every frame — also in a slice's.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Sequence

import pandas as pd

from mtdiag.core.evalset import evalset_from_lists
from mtdiag.scoring.evaluate import Options, Report, evaluate

Texts = Sequence[str]


@dataclass(frozen=True)
class Scores:
    """What :func:`score` returns: corpus scores, segment scores, signatures and the whole report.

    ``corpus`` — a frame with one row per system (index ``system``) and one column per metric (the corpus scores, by
    each metric's own formula); ``segments`` — the segment scores, index ``(system, seg_id)``, one column per metric;
    ``signatures`` — ``{metric: sacrebleu-style signature}``; ``report`` — the whole
    :class:`~mtdiag.scoring.evaluate.Report` the other calls read."""

    corpus: pd.DataFrame
    segments: pd.DataFrame
    signatures: dict[str, str]
    report: Report

    @classmethod
    def of(cls, report: Report) -> "Scores":
        """The scores of a report (a slice's: its segments keep their ids in the whole set)."""
        from mtdiag.views import with_set_ids

        return cls(report.corpus, with_set_ids(report, report.segments, "the segment scores"),
                   {metric: signature.format() for metric, signature in report.signatures().items()}, report)


def score(hyps: Mapping[str, Texts] | Scores, refs: Sequence[Texts] | Mapping[str, Texts] | None = None,
          src: Texts | None = None, *, lang_pair: str | None = None, **options: Any) -> Scores:
    """Every metric of every system: corpus and segment scores with their signatures (:class:`Scores`).

    >>> scores = score({"A": ["The cat sat on the mat.", "It is raining today."]},
    ...                refs=[["The cat sat on the mat.", "It rains today."]], metrics=("bleu", "ter"))
    >>> scores.corpus.round(2)            # sacrebleu's BLEU and TER of these lists
             bleu    ter
    system
    A       70.21  22.22
    """
    return Scores.of(_report(hyps, refs, src, lang_pair, options))


def worst_first(hyps: Mapping[str, Texts] | Scores, refs: Sequence[Texts] | Mapping[str, Texts] | None = None,
                src: Texts | None = None, *, top: int | None = 20, lang_pair: str | None = None,
                **options: Any) -> pd.DataFrame:
    """The worst-first queue (``docs/triage.md``): the ``top`` (system, segment) pairs most likely wrong.

    First the plainly broken ones (a critical check fired), then by problem score (0–1, the share of the set's pairs
    that look better); columns ``system``, ``seg_id``, ``problem``, ``flags`` (the checks that fired), ``critical``, the
    segment's score by each metric and the output ``hyp``. ``top=None``: every pair."""
    from mtdiag.triage.ranking import worst_first as ranked
    from mtdiag.views import with_set_ids

    report = _report(hyps, refs, src, lang_pair, options)
    queue = ranked(report)
    queue = queue[["system", "seg", "problem", "flags", "critical", *(m for m in report.metrics if m in queue)]]
    queue = (queue if top is None else queue.head(top)).reset_index(drop=True)
    outputs = report.evalset.hyps
    hyp = [str(outputs[system].iat[seg]) for system, seg in zip(queue["system"], queue["seg"])]
    return with_set_ids(report, queue).assign(hyp=hyp)


def error_spans(hyps: Mapping[str, Texts] | Scores, refs: Sequence[Texts] | Mapping[str, Texts] | None = None,
                src: Texts | None = None, *, threshold: float | None = None, lang_pair: str | None = None,
                **options: Any) -> pd.DataFrame:
    """Predicted error spans (``docs/spans.md``): per output, character spans of the text as written.

    Each span has a ``severity`` (minor, major, critical), a ``confidence`` (0–1) and the ``kind`` of evidence; columns
    ``system``, ``seg_id``, ``start``, ``end``, ``text``, ``severity``, ``confidence``, ``kind``. ``threshold``: the
    least confidence kept (default :data:`mtdiag.spans.DEFAULT_THRESHOLD`)."""
    from mtdiag.spans import DEFAULT_THRESHOLD, predict_spans
    from mtdiag.views import with_set_ids

    report = _report(hyps, refs, src, lang_pair, options)
    spans = predict_spans(report, DEFAULT_THRESHOLD if threshold is None else threshold)
    return with_set_ids(report, spans, "the error spans").reset_index(drop=True)


def score_slice(hyps: Mapping[str, Texts] | Scores, refs: Sequence[Texts] | Mapping[str, Texts] | None = None,
                src: Texts | None = None, *, where: str, lang_pair: str | None = None, **options: Any) -> Scores:
    """The scores of the segments an expression selects, recomputed from the set's statistics.

    The expression is that of ``docs/slices.md`` (``chrf[A] < 40``, ``doc == "talk.2"``, ``repetition[B]``); the scores
    are recomputed by each metric's corpus formula; its segments keep their ids in the whole set. An expression that
    cannot be read is a ``ValueError`` naming where."""
    from mtdiag.slices import where as sliced

    return Scores.of(sliced(_report(hyps, refs, src, lang_pair, options), where))


def html_report(hyps: Mapping[str, Texts] | Scores, refs: Sequence[Texts] | Mapping[str, Texts] | None = None,
                src: Texts | None = None, *, path: str | Path | None = None, lang_pair: str | None = None,
                **options: Any) -> str:
    """The self-contained HTML report, written to ``path`` when given; returns the HTML.

    The report of ``docs/report.md``: the overview, ranked significance, buckets, the worst segments with their
    evidence; it opens offline."""
    from mtdiag.report.html_report import html_report as written

    page = written(_report(hyps, refs, src, lang_pair, options))
    if path is not None:
        Path(path).write_text(page, encoding="utf-8")
    return page


def _report(hyps, refs, src, lang_pair: str | None, options: Mapping[str, Any]) -> Report:
    """The report of the inputs (module docstring), or the one a :class:`Scores` holds."""
    if isinstance(hyps, Scores):
        if refs is not None or src is not None or lang_pair is not None or options:
            raise ValueError("given scores, give no inputs or options: they were scored with their own")
        return hyps.report
    if not isinstance(hyps, Mapping) or not hyps:
        raise TypeError("hyps: give {system: [one output per segment]}, or the Scores of an earlier call")
    systems = {str(name): [str(text) for text in texts] for name, texts in hyps.items()}
    references = _references(refs)
    n = len(next(iter(systems.values())))
    lengths = {f"system {name!r}": len(texts) for name, texts in systems.items()}
    lengths |= {f"reference {name!r}": len(texts) for name, texts in references.items()}
    if src is not None:
        lengths["src"] = len(src)
    wrong = {what: count for what, count in lengths.items() if count != n}
    if wrong or not n:
        raise ValueError(f"every list needs one text per segment: {lengths}")
    evalset = evalset_from_lists(references, systems, None if src is None else [str(t) for t in src],
                                 lang_pair=lang_pair)
    given = dict(options)
    if "metrics" in given and given["metrics"] is not None:
        given["metrics"] = tuple(given["metrics"])
    return evaluate(evalset, Options(**given))


def _references(refs) -> dict[str, list[str]]:
    """``refs`` as ``{name: texts}``: a list of reference streams is named ``A``, ``B``, … in order."""
    if refs is None:
        return {}
    if isinstance(refs, Mapping):
        return {str(name): [str(text) for text in texts] for name, texts in refs.items()}
    streams = list(refs)
    if streams and isinstance(streams[0], str):
        raise TypeError("refs: give a list of reference streams, [refs] for one reference (as sacrebleu)")
    if len(streams) > 26:
        raise ValueError(f"refs: {len(streams)} reference streams; name them in a mapping {{name: texts}}")
    return {chr(ord("A") + k): [str(text) for text in stream] for k, stream in enumerate(streams)}
