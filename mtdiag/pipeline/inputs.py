"""The one input path: from the data a run is given to the evaluated report of its slice, in one order for every
command of the command line (:func:`mtdiag.cli.load.report`) and for the dashboard's loader
(:mod:`mtdiag.ui.sidebar`, :mod:`mtdiag.ui.slicing`):

1. the test set — a folder, a test-set file or separate files, read by :mod:`mtdiag.io` (a folder brings its own
   ``mqm.seg.tsv``, ``mqm.errors.tsv``, metric scores);
2. its human scores — the folder's, or a file given apart (:func:`with_human`: ``--human``, the dashboard's upload);
3. its annotations, metric scores and metric spans (the command line's ``--annotations`` …, the dashboard's uploads);
   the human error rows are kept as read and weighed by the scheme the analysis chooses (:func:`weighed`:
   ``--error-weights``, the dashboard's choice), which makes them the error spans and, where no human scores are
   given, the human scores;
4. the options: the metrics named (or the defaults), and those a ``--where`` expression's flags read
   (:func:`scoring`: ``over_translation[A]`` reads OTEM, so ``score --metrics chrf --where 'over_translation[A]'``
   computes OTEM for the expression — the slice finder's expressions always work as ``--where``);
5. the expression checked on that set — its fields, the human scores among them — before anything is scored
   (:func:`check`);
6. scoring (:func:`mtdiag.scoring.evaluate.evaluate`: threads, a Dask cluster or the dashboard's progress bar);
7. the slice: the expression evaluated on the whole report (its flags computed there), and the report of its
   segments with the metrics asked for (:func:`sliced`).

:func:`report` runs steps 4 to 7. Segment ids stay the set's in a slice (:attr:`mtdiag.core.evalset.EvalSet.seg_ids`).

The human judgements (scores, error rows and spans, rated outputs) change no metric: a report scored on a set
without them (:meth:`mtdiag.core.evalset.EvalSet.without_judgements`, keyed by its
:meth:`~mtdiag.core.evalset.EvalSet.scoring_hash`) takes them afterwards, weighed, without scoring again
(:func:`judged`: the dashboard's report store keeps one scored report per texts and options, whatever the human
files uploaded and the scheme chosen).

The dashboard reads through this module (and :mod:`mtdiag.views`) only: it re-exports what a loader needs of the
scoring core — :class:`~mtdiag.scoring.evaluate.Options`, :class:`~mtdiag.scoring.evaluate.Report`, :data:`METRICS` (the metric registry, for
the option widgets), :mod:`mtdiag.scoring.report_cache` (folders' reports kept on disk), :func:`warm_up`,
:func:`~mtdiag.scoring.evaluate.underived` and :func:`~mtdiag.scoring.evaluate.with_derived` (the metrics derived from
a report, computed after the first page is drawn), the slice
expressions' fields and errors, and the weighting schemes of human error rows (:data:`SCHEMES`, :func:`error_weights`,
:func:`read_error_weights`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

from mtdiag.scoring import report_cache
from mtdiag.scoring.evaluate import (NO_REFERENCE, Options, Report, available_metrics, clear_caches, default_metrics,
                                     evaluate, underived, with_derived)
from mtdiag.scoring.chunks import Execution
from mtdiag.core.evalset import EvalSet
from mtdiag.io import Limits, with_human_file
from mtdiag.io.error_weights import DEFAULT_WEIGHTS, SCHEMES, ErrorWeights, error_weights, read_error_weights, weighed
from mtdiag.io.text import DEFAULT_LIMITS
from mtdiag.metrics import REGISTRY as METRICS
from mtdiag.core.needs import METRIC
from mtdiag.slices import ExpressionError, fields, parse, slice_report
from mtdiag.slices.expression import MAX_CHARS, fields_of
from mtdiag.slices.selection import check as check_fields
from mtdiag.slices.selection import segment_mask

Say = Callable[[str], None]


def with_human(evalset: EvalSet, path, *, limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """``evalset`` with the human judgements of the file ``path`` in place of any it had.

    The file is a human-score TSV, or an MQM/ESA error file or a Pearmut log whose errors give the segment scores under
    the analysis's scheme (:func:`weighed`); read by :func:`mtdiag.io.with_human_file` (the dashboard's upload is read
    with the set, :func:`mtdiag.io.load_files`); each rated system that is not loaded gives a warning in the set's
    warnings."""
    return with_human_file(evalset, path, str(path), limits=limits)


def judged(scored: Report, evalset: EvalSet, error_weights: ErrorWeights = DEFAULT_WEIGHTS) -> Report:
    """``scored`` with ``evalset``'s human judgements, its error rows weighed under ``error_weights``.

    ``scored`` is a report of ``evalset``'s texts (scored on :meth:`~mtdiag.core.evalset.EvalSet.without_judgements`, or
    on ``evalset`` itself); the error rows are weighed by :func:`weighed`. The human scores, error spans and rated
    outputs join the report, nothing is scored again (a human file uploaded, or another scheme chosen, re-weighs: linear
    in the error rows); the human system scores published with the set (``human_systems``) join too."""
    judgements = weighed(evalset, error_weights)
    joined = replace(scored.evalset, human=judgements.human, annotations=judgements.annotations,
                     rated=judgements.rated, error_rows=None, human_systems=judgements.human_systems)
    return replace(scored, evalset=joined)


def flag_metrics(where: str | None) -> list[str]:
    """The metrics the flags of expression ``where`` read, in reading order; none without an expression.

    A flag reads a metric through its check's ``metric:NAME`` needs (:attr:`mtdiag.triage.checks.Check.needs`)."""
    if not where:
        return []
    from mtdiag.triage import checks

    read = []
    for field in fields_of(parse(where)):
        check = checks.REGISTRY.get(field.name)
        if check is not None:
            read += [need[len(METRIC):] for need in check.needs if need.startswith(METRIC)]
    return list(dict.fromkeys(read))


def check_metrics(evalset: EvalSet) -> list[str]:
    """The metrics the triage checks read (their ``metric:NAME`` needs) that scoring with no metric named computes.

    With them, every check that applies to the default report applies (the same flags), whatever else is left out."""
    from mtdiag.triage import checks

    defaults = default_metrics(evalset)
    read = [need[len(METRIC):] for check in checks.REGISTRY.values() for need in check.needs if need.startswith(METRIC)]
    return [m for m in dict.fromkeys(read) if m in defaults]


def scoring(evalset: EvalSet, options: Options, where: str | None = None) -> Options:
    """``options`` with the metrics ``where``'s flags read added where these inputs allow them.

    The metrics named, or the defaults, are otherwise unchanged."""
    extra = [m for m in flag_metrics(where) if m in available_metrics(evalset)]
    names = tuple(options.metrics) if options.metrics is not None else default_metrics(evalset)
    missing = [m for m in extra if m not in names]
    return replace(options, metrics=(*names, *missing)) if missing else options


def check(evalset: EvalSet, options: Options, where: str | None) -> None:
    """Check ``where``'s syntax and fields on ``evalset`` scored with ``options``, before anything is scored.

    The options are :func:`scoring`'s. :class:`~mtdiag.slices.ExpressionError`, one line, for a field these inputs
    lack."""
    if where is None:
        return
    scored = scoring(evalset, options, where)
    check_fields(where, evalset, scored.metrics if scored.metrics is not None else available_metrics(evalset))


def unscored_mask(evalset: EvalSet, where: str | None):
    """The segments ``where`` selects when it reads nothing scoring computes, read on the set before anything is scored.

    Such an expression reads no metric, flag or problem score (``seg_id > 1000``, ``doc == "a"``, ``human[A] < -5``,
    ``src ~ "virus"``: :func:`mtdiag.slices.catalogue.unscored_fields`); None for any other expression (or none). A
    command then refuses an expression that keeps no segment without scoring the set first (the sample set scored,
    276 MB and 2.7 s of CPU, to say "keeps none")."""
    if where is None:
        return None
    from mtdiag.slices.catalogue import unscored_fields

    if not {field.name for field in fields_of(parse(where))} <= unscored_fields(evalset):
        return None
    return segment_mask(evaluate(evalset, Options(metrics=())), where)


def prepared(report: Report) -> None:
    """Compute on ``report`` what every analysis of a report reads that depends on no score.

    ``report`` is a report of the set without scores, on the context the scored report will have
    (:func:`mtdiag.scoring.evaluate.evaluate`'s ``prepare``, run while the metrics score). What is computed: the flags
    of the checks that read no metric (language detection, copied words, numbers, suspect references …; a check that
    reads a metric is not active on a report without scores), the words' support the predicted spans read, and the
    consensus the queue reads where no metric gives it (:func:`mtdiag.triage.ranking.prepare_views`)."""
    from mtdiag.spans.support import word_support
    from mtdiag.triage import checks
    from mtdiag.triage.ranking import prepare_views

    for check in checks.active_checks(report):
        checks.fired(report, check)
    word_support(report)
    prepare_views(report)


def sliced(whole: Report, where: str | None, metrics: Sequence[str] | None = None, tags=None) -> Report:
    """The report of ``where``'s segments (``whole`` itself without an expression).

    The expression is evaluated on ``whole`` — its flags computed there, ``tag`` read from ``tags`` (the user's,
    :mod:`mtdiag.core.tags`) — and the slice keeps ``metrics`` (default: every metric of ``whole``)."""
    if where is None:
        return whole
    mask = segment_mask(whole, where, tags)
    if not mask.any():
        raise ExpressionError(f"the expression keeps none of the {whole.evalset.n_segments:,} segments")
    return slice_report(whole, mask, metrics=metrics)


def report(evalset: EvalSet, options: Options, where: str | None = None, *, execution: Execution | None = None,
           progress=None, say: Say | None = None, analysed: bool = False) -> tuple[Report, Report]:
    """The whole report and the report of ``where``'s segments: steps 4 to 7 of the input path on a loaded set.

    The loaded set has its human scores and annotations attached. The report of ``where``'s segments (the same without
    an expression) keeps the metrics ``options`` name. ``say`` is told how many segments the slice keeps. ``analysed``:
    the caller reads the checks or the spans next (a view, the queue, the report), which are then :func:`prepared` while
    the metrics score."""
    check(evalset, options, where)
    early = unscored_mask(evalset, where)
    if early is not None and not early.any():
        raise ExpressionError(f"the expression keeps none of the {evalset.n_segments:,} segments")
    scored = scoring(evalset, options, where)
    whole = evaluate(evalset, scored, progress=progress, execution=execution, prepare=prepared if analysed else None)
    shown = None if scored is options else (options.metrics or default_metrics(evalset))
    part = sliced(whole, where, shown)
    if where is not None and say is not None:
        say(f"where: {part.evalset.n_segments:,} of {whole.evalset.n_segments:,} segments")
    return whole, part


def warm_up() -> None:
    """Load what scoring compiles (the TER kernel, :func:`mtdiag.metrics.ter_engine.load_kernel`) before it is needed.

    The dashboard calls it in the background while a user chooses files."""
    from mtdiag.metrics.ter_engine import load_kernel

    load_kernel()


def warm_up_statistics() -> None:
    """Import ``scipy.stats`` (0.9-1.2 s here), which the agreement with human scores reads, before a page needs it.

    The dashboard calls it in the background after the run that draws an upload's completed report: the Human
    page's first visit then does not pay for the import (:func:`mtdiag.analysis.human_agreement.correlations`
    imports it where it is used, so that the command line and the first page never do)."""
    import scipy.stats  # noqa: F401


__all__ = ["DEFAULT_WEIGHTS", "MAX_CHARS", "METRICS", "NO_REFERENCE", "SCHEMES", "ErrorWeights", "EvalSet", "Execution",
           "ExpressionError", "Limits", "Options", "Report", "check", "check_metrics", "clear_caches", "error_weights",
           "evaluate", "fields", "flag_metrics", "judged", "prepared", "read_error_weights", "report", "report_cache",
           "scoring", "sliced", "underived", "unscored_mask", "warm_up", "warm_up_statistics", "weighed",
           "with_derived", "with_human"]
