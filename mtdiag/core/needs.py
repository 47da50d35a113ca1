"""What a piece of mtdiag needs of the data, in one vocabulary: a metric (:attr:`mtdiag.metrics.MetricInfo.needs`), a
triage check (:attr:`mtdiag.triage.checks.Check.needs`), a view, its tables, charts and options
(:attr:`mtdiag.views.View.needs`) and a field of a slice expression (:mod:`mtdiag.slices.catalogue`) all name their
needs with the keys of :data:`NEEDS` — or ``metric:NAME``, the report computed metric ``NAME`` — and every message
saying what is lacking, and how to give it, comes from here.

A need is a test on the :class:`~mtdiag.core.evalset.EvalSet` (and, for ``metric:NAME``, on the metrics computed), so it
is answered before anything is scored (the command line refuses a ``--where`` field early) and on a report alike
(:func:`missing_in`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence


@dataclass(frozen=True)
class Need:
    """One thing the data may have, found by ``test(evalset)``, with the words that name it.

    ``what`` names it in "needs …"; ``absent`` says what the data is without it ("has one system"); ``given`` says in a
    few words how the command line and a folder give it; ``how`` says it for a person at the dashboard (what the file
    holds, where to upload it)."""

    name: str
    what: str
    absent: str
    given: str
    how: str
    test: Callable[[object], bool]

    def lacking(self) -> str:
        """The sentences a page shows when the data lacks it: what the data is, and how to give what it lacks."""
        return f"This data {self.absent}. {self.how}"


def _has_source(evalset) -> bool:
    return evalset.has_source


def _rated(frame, evalset) -> bool:
    return frame is not None and len(frame) > 0 and bool(frame["system"].isin(evalset.systems).any())


def human_protocol(evalset) -> str | None:
    """Which protocol the set's human scores follow: ``esa``, ``mqm``, or None without human scores for its systems.

    ``esa`` when they are 0–100 judgements (none below 0 and some above 25, the most an MQM segment score falls to — a
    score that is minus a weighted error count is at most 0), ``mqm`` for other scores."""
    if not _rated(evalset.human, evalset):
        return None
    scores = evalset.human["score"]
    return "esa" if bool(scores.min() >= 0) and bool(scores.max() > 25) else "mqm"


NEEDS: dict[str, Need] = {need.name: need for need in (
    Need("source", "the source", "has no source", "--src",
         "Give it: --src SRC.txt, a src.txt in a test-set folder, or the source upload.", _has_source),
    Need("references", "a reference", "has no reference", "--ref",
         "Give one: --ref REF.txt, a ref.*.txt file in a test-set folder, or the reference upload.",
         lambda evalset: bool(evalset.has_references)),
    Need("several_references", "two or more references", "has fewer than two references", "--ref for each",
         "Give them: --ref for each, or ref.A.txt, ref.B.txt, … in a test-set folder (e.g. wmt21.en-de has three).",
         lambda evalset: len(evalset.ref_names) >= 2),
    Need("two_systems", "two systems", "has one system", "--hyp for each",
         "Add a system output: --hyp NAME=FILE, a file in the folder, or an upload.",
         lambda evalset: len(evalset.systems) >= 2),
    Need("three_systems", "three systems", "has fewer than three systems", "--hyp for each",
         "Add system outputs: --hyp NAME=FILE, files in the folder, or uploads.",
         lambda evalset: len(evalset.systems) >= 3),
    Need("references_or_three_systems", "a reference or three systems",
         "has no reference and fewer than three systems", "--ref, or three --hyp",
         "Give a reference, or three system outputs or more (without a reference the other systems are the "
         "evidence).", lambda evalset: bool(evalset.has_references) or len(evalset.systems) >= 3),
    Need("human", "human scores", "has no human scores for its systems", "mqm.seg.tsv or --human",
         "Human scores are a TSV with system, seg_id (1-based) and a score column (score or mqm_score), e.g. the "
         "mqm.seg.tsv of wmt21.en-de: --human FILE, mqm.seg.tsv in a test-set folder, or an upload with your data in "
         "the sidebar.", lambda evalset: _rated(evalset.human, evalset)),
    Need("human_system_scores", "human scores", "has no human scores for its systems, neither per segment nor "
         "published per system", "mqm.seg.tsv, --human, or a WMT release's human-scores/",
         "Human scores are segment scores (a TSV with system, seg_id and a score column: --human FILE, mqm.seg.tsv "
         "in a test-set folder, or an upload in the sidebar), or a WMT release in the mt-metrics-eval layout with its "
         "human-scores/ files (--testset wmt23/ --lp en-de, a folder on the server or a .zip upload).",
         lambda evalset: _rated(evalset.human, evalset) or _rated(evalset.human_systems, evalset)),
    Need("esa_scores", "ESA scores", "has no ESA scores (0–100) for its systems", "esa.jsonl or --human",
         "Give 0–100 human scores (ESA): an esa.jsonl in a test-set folder, --human FILE, or an upload with your "
         "data in the sidebar.", lambda evalset: human_protocol(evalset) == "esa"),
    Need("annotations", "human error annotations", "has no human error annotations for its systems",

         "mqm.errors.tsv or --annotations",
         "Load an MQM error TSV (--annotations FILE, mqm.errors.tsv in a test-set folder, or an upload under 'Human "
         "error spans and metric scores' in the sidebar) or an ESA file with error spans.",
         lambda evalset: _rated(evalset.annotations, evalset)),
    Need("terms", "term annotations", "has no term annotations, so there is nothing to score here", "--terms",
         "Terms come from a terms.tsv (seg_id, src_term, tgt_term, with | between target alternatives), a glossary "
         "TSV (source, target, matched automatically where the source has the term and the reference its "
         "translation), or inline <term src=… tgt=…>…</term> tags in the source and reference: --terms FILE, "
         "terms.tsv in a test-set folder (e.g. tico19.en-fr or wmt21.en-ja), or an upload with your data in the "
         "sidebar.", lambda evalset: evalset.terms is not None and len(evalset.terms) > 0),
    Need("documents", "document ids", "has no document ids", "a doc column in segments.tsv",
         "Give them: a doc column in a segments.tsv (or the test set's documents in WMT XML/SGML).",
         lambda evalset: "doc" in evalset.segments.columns),
)}
"""Every need by name."""

METRIC = "metric:"


def check_names(needs: Iterable[str]) -> None:
    """``ValueError`` for a need that is neither a key of :data:`NEEDS` nor ``metric:NAME`` (a declaration's typo)."""
    for need in needs:
        if need not in NEEDS and not (need.startswith(METRIC) and len(need) > len(METRIC)):
            raise ValueError(f"unknown need {need!r}: use one of {', '.join(NEEDS)} or metric:NAME")


def lacking(evalset, metrics: Sequence[str] | None, needs: Iterable[str]) -> list[str]:
    """The needs of ``needs`` the data lacks, in order.

    ``metrics``: the metrics computed (None: not scored yet, so ``metric:NAME`` is not judged)."""
    out = []
    for need in needs:
        if need.startswith(METRIC):
            if metrics is not None and need[len(METRIC):] not in metrics:
                out.append(need)
        elif not NEEDS[need].test(evalset):
            out.append(need)
    return out


def what(need: str) -> str:
    """How a message names ``need``: ``a reference``, ``the otem scores``."""
    return f"the {need[len(METRIC):]} scores" if need.startswith(METRIC) else NEEDS[need].what


def missing(evalset, metrics: Sequence[str] | None, needs: Iterable[str]) -> str | None:
    """What of ``needs`` the data lacks, as ``needs … and …``; None when it has everything."""
    absent = lacking(evalset, metrics, needs)
    return f"needs {' and '.join(what(n) for n in absent)}" if absent else None


def missing_in(report, needs: Iterable[str]) -> str | None:
    """:func:`missing` on a report: its set and the metrics it computed (nothing is read when ``needs`` is empty)."""
    needs = tuple(needs)
    return missing(report.evalset, report.metrics, needs) if needs else None
