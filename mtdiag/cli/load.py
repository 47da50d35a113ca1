"""Reading a command's inputs, once: the test set (``--testset PATH``, or the separate files), what is added to it
(``--scores``, ``--annotations``, ``--metric-spans``, ``--comet-checkpoint``, ``--human``), the input limits, and
the one :class:`~mtdiag.scoring.evaluate.Options` every command scores with (:func:`options`). Every problem is a one-line
error naming the file and the line (:class:`mtdiag.core.errors.InputError`) or the flag (:class:`CliError`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from mtdiag.cli.base import CliError, note

if TYPE_CHECKING:
    from mtdiag.scoring.evaluate import Options, Report
    from mtdiag.core.evalset import EvalSet
    from mtdiag.io import Limits


def limits(args) -> "Limits":
    """The input limits: the environment's (``MTDIAG_MAX_ROWS`` …), each replaced by its flag when given."""
    from mtdiag.io import Limits

    given = {"max_file_bytes": args.max_file_mb * 1_000_000 if args.max_file_mb is not None else None,
             "max_rows": args.max_rows, "max_cells": args.max_cells, "max_segment_chars": args.max_segment_chars,
             "max_columns": args.max_columns}
    for flag, value in zip(("--max-file-mb", "--max-rows", "--max-cells", "--max-segment-chars", "--max-columns"),
                           given.values()):
        if value is not None and value < 1:
            raise CliError(f"{flag} must be at least 1")
    return Limits.from_environment(**given)


def error_weights(args):
    """The weighting scheme of human error rows: ``--error-weights``, else the default.

    ``--error-weights`` is a scheme's name or a weights file (:mod:`mtdiag.io.error_weights`)."""
    from mtdiag.io.error_weights import SCHEMES, error_weights as resolve

    given = getattr(args, "error_weights", None)
    if given is not None and given not in SCHEMES and not _is_file(given):
        raise CliError(f"--error-weights {shown(given)}: neither a scheme ({', '.join(SCHEMES)}) nor a weights file")
    return resolve(given, limits=limits(args))


def _is_file(path: str) -> bool:
    """Whether ``path`` names a file (a name the system cannot take — too long, a NUL — names none)."""
    try:
        return Path(path).is_file()
    except (OSError, ValueError):
        return False


def shown(value: str) -> str:
    """A value the user gave, as a message quotes it: ``repr``, at most 60 characters.

    A flag may be given 100,000."""
    return repr(value if len(value) <= 60 else value[:60] + "…")


def metric_list(text: str | None) -> tuple[str, ...] | None:
    """``--metrics`` as a tuple of names (None: every metric the inputs allow); an empty list is an error."""
    if text is None:
        return None
    names = tuple(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    if not names:
        raise CliError(f"--metrics {shown(text)}: name at least one metric")
    return names


def metric_options(args) -> dict[str, dict]:
    """``{metric: {option: value}}`` of the generated flags the user gave."""
    chosen: dict[str, dict] = {}
    for dest, value in vars(args).items():
        if dest.startswith("metric_option:") and value is not None:
            _, metric, option = dest.split(":", 2)
            chosen.setdefault(metric, {})[option] = value
    return chosen


def options(args) -> "Options":
    """The scoring options of a command's flags — the one place they are read.

    Tokeniser, case, typography, ``--metrics``, the metric options and ``--tgt-lang`` (a command without a flag leaves
    its default)."""
    from mtdiag.scoring.evaluate import Options

    return Options(tokenize=args.tokenize, lowercase=not args.no_lowercase,
                   metrics=metric_list(getattr(args, "metrics", None)), metric_options=metric_options(args),
                   tgt_lang=getattr(args, "tgt_lang", None), typography=not args.keep_typography)


def load(args, ref_flag: str = "--ref", hyp_flag: str = "--hyp") -> "EvalSet":
    """The command's test set, with the scores, annotations and spans the command's flags add.

    The set: ``--testset PATH``, else the separate files (``--src``, the references of ``ref_flag``, the systems of
    ``hyp_flag``, ``--terms``). Its warnings are the command's to print (:func:`print_warnings`), after its own
    checks."""
    from mtdiag.io import with_error_annotations, with_metric_scores
    from mtdiag.io.scores import with_comet_scores

    refs, hyps = getattr(args, ref_flag[2:]), getattr(args, hyp_flag[2:])
    refs = [refs] if isinstance(refs, str) else refs
    evalset = _testset(args, ref_flag, hyp_flag, refs, hyps)
    if evalset is None:
        evalset = _files(args, refs or (), hyps)
    bounds, read = limits(args), _read_with_the_testset(args)
    for path in getattr(args, "scores", None) or ():
        if Path(path).resolve() not in read:
            evalset = with_metric_scores(evalset, path, limits=bounds)
    for path in getattr(args, "annotations", None) or ():
        if Path(path).resolve() not in read:
            evalset = with_error_annotations(evalset, path, limits=bounds)
    for given in getattr(args, "metric_spans", None) or ():
        evalset = _with_metric_spans(evalset, given, bounds)
    for path in getattr(args, "comet_checkpoint", None) or ():
        evalset = with_comet_scores(evalset, path)
    return evalset


def print_warnings(evalset) -> None:
    """The test set's warnings (empty lines, very long segments, …) on stderr, one line each."""
    for warning in evalset.warnings:
        note(f"warning: {warning}")


LAYOUT_FLAGS = (("--lp", "lp"), ("--human-type", "human_type"), ("--references", "references"),
                ("--include-outputs", "include_outputs"))


def _check_layout_flags(args) -> None:
    """The layout flags (a WMT release's language pair, human score type, references, outputs to include) apply to a
    ``--testset`` that is a release's folder or archive (:mod:`mtdiag.io.mtme`): one line naming the flags given
    otherwise."""
    from mtdiag.io.archives import is_archive_name
    from mtdiag.io.mtme import is_layout_folder

    given = [flag for flag, name in LAYOUT_FLAGS if getattr(args, name, None)]
    if not given:
        return
    path = Path(args.testset) if args.testset is not None else None
    if path is None or (path.exists() and not (is_archive_name(path.name) or (path.is_dir()
                                                                             and is_layout_folder(path)))):
        raise CliError(f"{', '.join(given)}: {'apply' if len(given) > 1 else 'applies'} to a WMT release's folder "
                       "or .zip/.tar.gz (mt-metrics-eval's layout) given as --testset; this --testset is none")


def _testset(args, ref_flag: str, hyp_flag: str, refs, hyps):
    """The test set of ``--testset`` (None without it); an error when separate files are given too, or neither."""
    from mtdiag.io.testsets import load_testset

    if args.testset is None:
        _check_layout_flags(args)
        if not hyps or not (refs or getattr(args, "src", None)):
            raise CliError(f"give the inputs: --testset PATH, or {hyp_flag} with {ref_flag} and/or --src "
                           "(--src alone: reference-free checks)")
        return None
    given = [flag for flag, value in ((ref_flag, refs), (hyp_flag, hyps), ("--src", getattr(args, "src", None)),
                                      ("--terms", getattr(args, "terms", None))) if value]
    if given:
        raise CliError(f"--testset PATH brings the whole test set; leave out {', '.join(given)}")
    from mtdiag.cli.arguments import layout_choice

    _check_layout_flags(args)
    evalset = load_testset(args.testset, limits=limits(args), layout=layout_choice(args))

    if getattr(args, "tgt_lang", None):
        from dataclasses import replace

        source = evalset.lang_pair.split("-")[0] if evalset.lang_pair and "-" in evalset.lang_pair else "xx"
        evalset = replace(evalset, lang_pair=f"{source}-{args.tgt_lang}")
    return evalset


def _files(args, refs: Sequence[str], hyps: Sequence[tuple[str, str]]) -> "EvalSet":
    """The test set of separate files: references named by :func:`ref_entries`, systems by ``NAME=`` (or their
    file names; a name given twice is an error), the language pair from ``--tgt-lang`` or the files' names."""
    from mtdiag.io import clean_name, load_files

    systems: dict[str, str] = {}
    for name, path in hyps:
        name = clean_name(name)
        if name in systems:
            raise CliError(f"{path}: system name {name!r} is used twice (also for {systems[name]})")
        systems[name] = path
    src = getattr(args, "src", None)
    paths = [*refs, *systems.values(), *([src] if src else [])]
    return load_files(src=src, refs=ref_entries(refs), hyps=list(systems.items()), name="cli",
                      lang_pair=lang_pair(getattr(args, "tgt_lang", None), paths), terms=getattr(args, "terms", None),
                      limits=limits(args))


def ref_entries(ref_paths: Sequence[str]) -> list[tuple[str, str]]:
    """``(name, path)`` of each reference, named by :func:`mtdiag.io.ref_name_from_file`.

    ``ref.A.txt`` -> ``A``; a repeated name gets a prime (``A'``)."""
    from mtdiag.io import ref_name_from_file

    refs: dict[str, str] = {}
    for path in ref_paths:
        name = ref_name_from_file(path)
        while name in refs:
            name += "'"
        refs[name] = path
    return list(refs.items())


def lang_pair(tgt_lang: str | None, paths: Sequence[str]) -> str | None:
    """The language pair (:func:`mtdiag.io.resolve_lang_pair`) from ``--tgt-lang`` or the files' names.

    ``--tgt-lang``, else the files' folder names (``wmt22.en-ja``, ``en-ja``), else their ``testset.xx-yy.`` file
    names."""
    from mtdiag.io import resolve_lang_pair

    return resolve_lang_pair(tgt_lang, folders=[Path(p).resolve().parent.name for p in paths],
                             file_names=[Path(p).name for p in paths])


def _with_metric_spans(evalset, given: str, bounds) -> "EvalSet":
    """``--metric-spans [METRIC=]FILE``: the metric's name before ``=`` unless the whole value is a file."""
    from mtdiag.io.metric_spans import with_metric_spans

    metric, path = None, given
    if "=" in given and not Path(given).exists():
        metric, path = given.split("=", 1)
    return with_metric_spans(evalset, path, metric=metric or None, limits=bounds)


def _read_with_the_testset(args) -> set[Path]:
    """The extra files a ``--testset`` folder brings itself (``metric_scores.tsv``, ``mqm.errors.tsv`` …): given
    again as ``--scores``/``--annotations`` they are not read twice (twice the spans, every warning twice)."""
    from mtdiag.io.folders import extra_files

    if args.testset is None or not Path(args.testset).is_dir():
        return set()
    return {path.resolve() for path in extra_files(args.testset)}


def _check_metrics(scoring: "Options", evalset: "EvalSet") -> None:
    """``--metrics`` names only metrics of the registry or of the set's imported scores (one line naming the flag)."""
    from mtdiag.metrics import metric_classes

    known = metric_classes(evalset)
    unknown = [name for name in scoring.metrics or () if name not in known]
    if unknown:
        raise CliError(f"--metrics: unknown metric {shown(unknown[0])}; known: {', '.join(known)}")


def report(args, *, scoring=None, before=None, flags: tuple[str, str] = ("--ref", "--hyp"),
           analysed: bool = False) -> tuple["Report", "Report"]:
    """The one input path of a command (:mod:`mtdiag.pipeline.inputs`): its inputs read, checked and scored.

    The test set (:func:`load`), its human scores (the folder's, or ``--human``), its error rows weighed
    (``--error-weights``), ``--where`` checked on them (a bad expression is the one line printed), the set's warnings on
    stderr, then the options (``scoring``: :class:`Options`, or a function of the loaded set giving them; default
    :func:`options`) with the metrics ``--where``'s flags read, scoring (on the Dask cluster of ``--dask``) and the
    slice. Returns (the whole report, the report of ``--where``'s segments — the whole one without it); how many
    segments the slice keeps goes to stderr. ``before(evalset)``: the command's own checks of the loaded set, before
    anything is scored. ``flags``: the command's flags of the references and the systems (:func:`load`). ``analysed``:
    the command reads checks or spans next (:func:`mtdiag.pipeline.inputs.report`)."""
    from mtdiag.pipeline import inputs
    from mtdiag.scoring.chunks import Execution

    scoring = options(args) if scoring is None else scoring  # the flags checked before anything is read
    where = getattr(args, "where", None)
    evalset = load(args, *flags)
    if getattr(args, "human", None):
        evalset = inputs.with_human(evalset, args.human, limits=limits(args))
    evalset = inputs.weighed(evalset, error_weights(args))  # the error rows weighed: spans and human scores
    scoring = scoring(evalset) if callable(scoring) else scoring
    _check_metrics(scoring, evalset)
    inputs.check(evalset, scoring, where)  # a bad expression is the one line printed
    print_warnings(evalset)
    if before is not None:
        before(evalset)
    return inputs.report(evalset, scoring, where, execution=Execution(dask=getattr(args, "dask", None)), say=note,
                         analysed=analysed)
