"""The ``mtdiag`` command line (also ``python -m mtdiag``), per the contract in ``shared/DESIGN.md``.

Every error is printed to stderr as one clear line and the exit status is non-zero; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Sequence

from mtdiag import __version__

EXIT_USAGE = 2
EXIT_INPUT = 1
HUMAN_HELP = ("human scores (system, seg_id, score), or an MQM/ESA error file (its segment scores, as --annotations "
              "derives them)")


class CliError(Exception):
    """A user-facing error: printed as one line, exit status 1."""


def _named_file(value: str) -> tuple[str, str]:
    """``NAME=FILE`` -> (name, file); a bare FILE is named after its file name (:mod:`mtdiag.io.naming`:
    ``newstest2021.en-de.Facebook-AI.txt`` -> ``Facebook-AI``)."""
    from mtdiag.io import system_name_from_file

    if "=" in value:
        name, path = value.split("=", 1)
        if not name:
            raise argparse.ArgumentTypeError(f"{value!r}: the system name before '=' is empty")
        return name, path
    return system_name_from_file(value), value


def _add_tokenize_options(parser: argparse.ArgumentParser) -> None:
    from mtdiag.tokenize import TOKENIZERS

    parser.add_argument("--tokenize", default=None, choices=TOKENIZERS,
                        help="sacrebleu tokenizer (default: 13a; ja-mecab for Japanese and zh for Chinese targets)")
    parser.add_argument("--no-lowercase", action="store_true",
                        help="keep case (default: lower-case before OTEM/UTEM/WAFT/NEVA/terms/n-grams)")
    parser.add_argument("--keep-typography", action="store_true",
                        help="compare quotes, apostrophes, dashes and full-width forms as written (default: "
                             "normalised before OTEM/UTEM/WAFT/NEVA/terms/n-grams, so don’t = don't; BLEU, chrF "
                             "and TER always see the texts as written)")


def _add_testset_option(parser: argparse.ArgumentParser, note: str = "") -> None:
    parser.add_argument("--testset", metavar="PATH", help="the whole test set instead of separate files: a folder, "
                        "WMT XML (.xml), SGML (.sgm, or a folder of them), TSV/CSV/JSONL with named columns; any of "
                        "them .gz" + (f"; {note}" if note else ""))
    _add_limit_options(parser)


def _add_limit_options(parser: argparse.ArgumentParser) -> None:
    """The input limits (:class:`mtdiag.io.Limits`, docs/inputs.md): every command that reads files has them."""
    group = parser.add_argument_group("input limits (a file over one is refused before it is parsed; default: the "
                                      "environment variable, else the built-in default)")
    for flag, help_text in (("--max-file-mb", "size of one file in MB, for .gz its inflated size (MTDIAG_MAX_FILE_MB; "
                                              "default 200)"),
                            ("--max-rows", "lines of one file (MTDIAG_MAX_ROWS; default 2,000,000)"),
                            ("--max-cells", "table cells (rows x columns) of one file, or XML/SGML tags "
                                            "(MTDIAG_MAX_CELLS; default 20,000,000)"),
                            ("--max-segment-chars", "characters of one segment or table cell "
                                                    "(MTDIAG_MAX_SEGMENT_CHARS; default 1,000,000)")):
        group.add_argument(flag, type=int, metavar="N", help=help_text.replace("%", "%%"))


def _limits(args) -> "Limits":
    """The input limits: the environment's (``MTDIAG_MAX_ROWS`` …), each replaced by its flag when given."""
    from mtdiag.io import Limits

    given = {"max_file_bytes": args.max_file_mb * 1_000_000 if args.max_file_mb is not None else None,
             "max_rows": args.max_rows, "max_cells": args.max_cells, "max_segment_chars": args.max_segment_chars}
    for flag, value in zip(("--max-file-mb", "--max-rows", "--max-cells", "--max-segment-chars"), given.values()):
        if value is not None and value < 1:
            raise CliError(f"{flag} must be at least 1")
    return Limits.from_environment(**given)


def _testset(args, ref_flag: str = "--ref", hyp_flag: str = "--hyp", refs=None, hyps=None):
    """The test set of ``--testset`` (None without it); an error when separate files are given too, or neither."""
    from mtdiag.io.testsets import load_testset

    if args.testset is None:
        if not hyps or not (refs or getattr(args, "src", None)):
            raise CliError(f"give the inputs: --testset PATH, or {hyp_flag} with {ref_flag} and/or --src "
                           "(--src alone: reference-free checks)")
        return None
    given = [flag for flag, value in ((ref_flag, refs), (hyp_flag, hyps), ("--src", getattr(args, "src", None)),
                                      ("--terms", getattr(args, "terms", None))) if value]
    if given:
        raise CliError(f"--testset PATH brings the whole test set; leave out {', '.join(given)}")
    evalset = load_testset(args.testset, limits=_limits(args))
    if getattr(args, "tgt_lang", None):
        from dataclasses import replace

        source = evalset.lang_pair.split("-")[0] if evalset.lang_pair and "-" in evalset.lang_pair else "xx"
        evalset = replace(evalset, lang_pair=f"{source}-{args.tgt_lang}")
    return evalset


def _add_scores_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--annotations", action="append", metavar="ERRORS.tsv",
                        help="human error annotations: an MQM error TSV (system, seg_id, rater, target with <v>...</v>, "
                        "category, severity) or ESA scores with error_spans (JSONL/TSV); their segment scores become the "
                        "human scores when there are none, their spans are shown (repeatable)")
    parser.add_argument("--metric-spans", action="append", metavar="[METRIC=]SPANS.json",
                        help="error spans a metric predicted (xCOMET): a JSON list or JSONL of {system, seg_id, "
                        "error_spans: [{start, end, severity, text, confidence}]}, or comet-score --to_json output; "
                        "character offsets into the outputs; shown apart from the human spans, never human scores; "
                        "METRIC= names the metric (default: the records' metric, else xcomet); scores in the file "
                        "are not read: use --scores (repeatable)")
    parser.add_argument("--scores", action="append", metavar="SCORES.tsv",
                        help="segment scores of metrics computed elsewhere (COMET, MetricX, ...): system, seg_id, "
                        "metric, score [, higher_is_better], or one column per metric; they become metrics like "
                        "the others (repeatable)")
    parser.add_argument("--comet-checkpoint", action="append", metavar="MODEL.ckpt",
                        help="score every system with this local COMET checkpoint (needs unbabel-comet; never "
                        "downloads; source and first reference); the scores become a metric like --scores "
                        "(repeatable)")


def option_flag(metric: str, option: str) -> str:
    """The command-line flag of a metric option: ``--METRIC-OPTION`` with underscores as hyphens."""
    return f"--{metric}-{option}".replace("_", "-")


def _option_type(spec):
    """An argparse ``type`` that parses and validates with the option's declaration (argparse names the flag)."""

    def parse(text: str):
        try:
            return spec.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = spec.type.__name__  # argparse says "invalid int value" with this name
    return parse


def _add_metric_options(parser: argparse.ArgumentParser) -> None:
    """One flag per declared metric option (the registry's :class:`~mtdiag.metrics.OptionSpec`), e.g.
    ``--otem-order 3``, ``--chrf-word-order 2``, ``--term-ter-cost 2``; booleans as ``--X``/``--no-X``. A flag
    not given leaves the metric's declared default."""
    from mtdiag.metrics import REGISTRY

    group = parser.add_argument_group("metric options (generated from the metric registry)")
    for name, cls in REGISTRY.items():
        for spec in cls.info.options:
            flag = option_flag(name, spec.name)
            default = spec.describe(spec.default)
            extra = f"; one of {', '.join(map(spec.describe, spec.choices))}" if spec.choices and spec.type is not bool else ""
            if spec.type in (int, float) and (spec.minimum is not None or spec.maximum is not None):
                extra += f"; {'' if spec.minimum is None else f'{spec.minimum:g}'}..{'' if spec.maximum is None else f'{spec.maximum:g}'}"
            text = f"{cls.info.label}: {spec.help} (default: {default}{extra})"
            dest = f"metric_option:{name}:{spec.name}"
            if spec.type is bool:
                group.add_argument(flag, dest=dest, action=argparse.BooleanOptionalAction, default=None, help=text)
            else:
                group.add_argument(flag, dest=dest, type=_option_type(spec), default=None,
                                   metavar=spec.type.__name__.upper(), help=text.replace("%", "%%"))


def _metric_options(args) -> dict[str, dict]:
    """``{metric: {option: value}}`` of the generated flags the user gave."""
    chosen: dict[str, dict] = {}
    for dest, value in vars(args).items():
        if dest.startswith("metric_option:") and value is not None:
            _, metric, option = dest.split(":", 2)
            chosen.setdefault(metric, {})[option] = value
    return chosen


def _metric_list(text: str | None) -> tuple[str, ...] | None:
    """``--metrics`` as a tuple of names (None: every metric the inputs allow); an empty list is an error."""
    if text is None:
        return None
    names = tuple(dict.fromkeys(m.strip() for m in text.split(",") if m.strip()))
    if not names:
        raise CliError(f"--metrics {text!r}: name at least one metric")
    return names


def _add_format(parser: argparse.ArgumentParser, choices=("json", "tsv"), default: str = "json") -> None:
    parser.add_argument("--format", default=default, choices=choices, help="output format (default: %(default)s)")


def _add_significance_options(parser: argparse.ArgumentParser) -> None:
    """``--paired-bs [N]`` / ``--paired-ar [N]`` with ``--baseline NAME`` (as sacrebleu's paired tests), or without
    it: every system against every other (ranked clusters and the p-value matrix, docs/significance.md)."""
    from mtdiag.compare import DEFAULT_SAMPLES, DEFAULT_SEED

    tests = parser.add_mutually_exclusive_group()
    tests.add_argument("--paired-bs", nargs="?", type=int, const=DEFAULT_SAMPLES["bs"], metavar="N",
                       help=f"paired bootstrap resampling against --baseline (without it: every pair of systems), N resamples (default: {DEFAULT_SAMPLES['bs']})")
    tests.add_argument("--paired-ar", nargs="?", type=int, const=DEFAULT_SAMPLES["ar"], metavar="N",
                       help=f"paired approximate randomisation against --baseline (without it: every pair), N trials (default: {DEFAULT_SAMPLES['ar']})")
    parser.add_argument("--baseline", metavar="NAME", help="the system the paired tests compare every other system with")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed of the paired tests (default: %(default)s)")


def _check_significance_args(args) -> None:
    """Clear errors for inconsistent significance options, before any scoring."""
    method = "bs" if args.paired_bs is not None else "ar" if args.paired_ar is not None else None
    if method is None:
        if args.baseline is not None:
            raise CliError("--baseline needs --paired-bs or --paired-ar")
        if args.format == "latex" and args.segments:
            raise CliError("--segments is not available with --format latex")
        return
    n = args.paired_bs if method == "bs" else args.paired_ar
    option = f"--paired-{method}"
    if n < 1:
        raise CliError(f"{option} N: the number of {'resamples' if method == 'bs' else 'trials'} must be at least 1")
    if args.segments and args.format != "json":
        raise CliError(f"--segments with {option} needs --format json")


def _check_baseline(args, systems: list[str]) -> None:
    """The significance baseline against the loaded systems (the names come from --hyp or the test set)."""
    if args.paired_bs is None and args.paired_ar is None:
        return
    option = "--paired-bs" if args.paired_bs is not None else "--paired-ar"
    if args.baseline is not None and args.baseline not in systems:
        raise CliError(f"--baseline {args.baseline!r} is not a system; systems: {', '.join(systems)}")
    if len(systems) < 2:
        raise CliError(f"{option} needs at least two systems (--hyp) to compare")


def _significance(args, report):
    """The paired-test frame against ``--baseline`` (:func:`mtdiag.compare.significance`) when one was requested
    with a baseline, else None."""
    if (args.paired_bs is None and args.paired_ar is None) or args.baseline is None:
        return None
    from mtdiag.compare import significance

    method, n = ("bs", args.paired_bs) if args.paired_bs is not None else ("ar", args.paired_ar)
    return significance(report, args.baseline, method, n, args.seed)


def _pairwise(args, report):
    """``--paired-bs|--paired-ar`` without ``--baseline``: every system against every other, per metric
    (:func:`mtdiag.compare.pairwise_significance`), its ranked clusters (:func:`~mtdiag.compare.ranked_clusters`)
    and the signatures with the resampling fields; None when no such test was requested."""
    if (args.paired_bs is None and args.paired_ar is None) or args.baseline is not None:
        return None
    from mtdiag.compare import pairwise_significance, ranked_clusters, resampling_signature

    method, n = ("bs", args.paired_bs) if args.paired_bs is not None else ("ar", args.paired_ar)
    pairwise = pairwise_significance(report, method, n, args.seed)
    signatures = {metric: resampling_signature(sig, method, pairwise.attrs["n"], args.seed).format()
                  for metric, sig in report.signatures().items()}
    return pairwise, ranked_clusters(report, pairwise), signatures


def _add_input_options(parser: argparse.ArgumentParser) -> None:
    """The inputs and scoring options of ``score`` (and of every command that scores like it). The parser is used
    before the registry is imported, so a command this run does not use stops here (:class:`_Unfilled`)."""
    parser.add_argument("--ref", action="append", metavar="REF.txt", help="reference file (repeatable)")
    from mtdiag.metrics import REGISTRY

    parser.add_argument("--hyp", action="append", type=_named_file, metavar="NAME=FILE",
                        help="system output (repeatable)")
    _add_testset_option(parser)
    parser.add_argument("--src", metavar="SRC.txt", help="source file (optional)")
    parser.add_argument("--terms", metavar="TERMS", help="terms TSV (seg_id, src_term, tgt_term) or glossary TSV "
                        "(source, target); inline <term> tags in source/reference lines are read without it")
    parser.add_argument("--metrics", help=f"comma-separated subset of: {', '.join(REGISTRY)} (default: all the "
                        "inputs allow)")
    _add_tokenize_options(parser)
    parser.add_argument("--tgt-lang", help="target language code (stop words of term window overlap)")
    _add_scores_option(parser)
    parser.add_argument("--dask", metavar="ADDRESS", help="compute on a Dask cluster: a scheduler address "
                        "(tcp://host:8786), or local / local:N for a local cluster of N worker processes; the "
                        "numbers are identical to a single-process run")
    _add_metric_options(parser)


def _add_where_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--where", metavar="EXPR", help="only the segments this expression selects, every system "
                        "kept (docs/slices.md): e.g. 'seg_id <= 500', 'doc == \"talk.2\"', 'chrf[A] < 40 and "
                        "src_len >= 20'; everything is recomputed on them from the statistics already computed")


def _check_where(args, evalset, options) -> None:
    """``--where``'s syntax and field names, checked before anything is scored."""
    if getattr(args, "where", None) is None:
        return
    from mtdiag.api import available_metrics
    from mtdiag.slices import check

    check(args.where, evalset, options.metrics if options.metrics is not None else available_metrics(evalset))


def _sliced(args, report):
    """The report of ``--where``'s segments (``report`` itself without it); how many it keeps goes to stderr."""
    if getattr(args, "where", None) is None:
        return report
    from mtdiag.slices import where

    sliced = where(report, args.where)
    print(f"mtdiag: where: {sliced.evalset.n_segments:,} of {report.evalset.n_segments:,} segments", file=sys.stderr)
    return sliced


def _with_human(args, evalset) -> "EvalSet":
    """``evalset`` with the human scores of ``--human`` — a human-score TSV, or an MQM/ESA error file whose segment
    scores are derived as for ``--annotations`` (:func:`mtdiag.io.read_human_scores`) — read before scoring, so a
    slice keeps its own; a warning for each rated system that is not loaded."""
    from dataclasses import replace

    from mtdiag.io import read_human_scores
    from mtdiag.io.human_scores import unknown_score_systems

    path = args.human
    human = read_human_scores(path, n_segments=evalset.n_segments, limits=_limits(args))
    for warning in unknown_score_systems(human, evalset.ref_names, evalset.systems, path):
        print(f"mtdiag: warning: {warning}", file=sys.stderr)
    return replace(evalset, human=human)


def _options(args) -> "Options":
    from mtdiag.api import Options

    return Options(tokenize=args.tokenize, lowercase=not args.no_lowercase, metrics=_metric_list(args.metrics),
                   metric_options=_metric_options(args), tgt_lang=args.tgt_lang,
                   typography=not args.keep_typography)


class _Skip(Exception):
    """Raised by :class:`_Unfilled`: the set-up of a command this run does not use stops there."""


class _Unfilled:
    """Stands for the parser of a command this run does not use: its first use stops that command's set-up
    (:class:`_Skip`), so the imports its options need (pandas, the metric registry) never happen."""

    def __getattr__(self, name: str):
        raise _Skip


class _Commands:
    """The subparsers of ``mtdiag``, filled only for ``only`` (None: every command). Every command is still listed
    with its help line, so ``mtdiag --help`` shows them all without importing pandas (0.05 s instead of 0.4 s)."""

    def __init__(self, action, only: str | None):
        self._action, self._only = action, only

    def add_parser(self, name: str, **kwargs):
        parser = self._action.add_parser(name, **kwargs)
        return parser if self._only is None or name == self._only else _Unfilled()


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The ``mtdiag`` parser; with ``only`` a command name, the other commands are listed but get no options
    (:func:`main` passes the command of its arguments, or ``""`` when there is none, e.g. ``mtdiag --help``)."""
    parser = argparse.ArgumentParser(prog="mtdiag", description="Diagnostic evaluation of machine translation output.")
    parser.add_argument("--version", action="version", version=f"mtdiag {__version__}")
    commands = _Commands(parser.add_subparsers(dest="command", required=True, metavar="COMMAND"), only)
    for add in (_add_score_command, _add_triage_command, _add_report_command, _add_ngrams_command,
                _add_likeness_command, _add_buckets_command, _add_slices_command, _add_serve_command):
        try:
            add(commands)
        except _Skip:
            pass
    return parser


def _add_score_command(commands) -> None:
    score = commands.add_parser("score", help="corpus (and segment) scores of one or more systems")
    _add_input_options(score)
    score.add_argument("--segments", action="store_true", help="also print one score per segment")
    _add_where_option(score)
    score.add_argument("--human", metavar="SCORES.tsv",
                       help=f"{HUMAN_HELP}: add each metric's correlation with them to the JSON output")
    _add_significance_options(score)
    _add_format(score, ("json", "tsv", "latex"))
    score.set_defaults(handler=_score)


def _add_serve_command(commands) -> None:
    serve = commands.add_parser("serve", help="start the dashboard")
    serve.add_argument("--data", metavar="DIR", help="open this test-set folder (default: the sample data)")
    serve.add_argument("--workspace", metavar="DIR", help="the folder of saved runs (default: $MTDIAG_WORKSPACE, "
                       "else ~/.mtdiag/workspace)")
    serve.add_argument("--workspace-max-mb", type=int, metavar="MB", help="keep the saved runs under this size: "
                       "saving removes the oldest runs first (default: $MTDIAG_WORKSPACE_MAX_MB, else no limit)")
    serve.add_argument("--address", default="127.0.0.1", help="the interface to listen on (default: %(default)s, "
                       "this machine only; 0.0.0.0 for every interface, which shows uploaded data to the network)")
    serve.add_argument("--port", type=int, default=8501, help="the port (default: %(default)s)")
    serve.set_defaults(handler=_serve)


def _ref_entries(ref_paths: Sequence[str]) -> list[tuple[str, str]]:
    """References named by :func:`mtdiag.io.ref_name_from_file` (``ref.A.txt`` -> ``A``); a repeated name gets a
    prime (``A'``)."""
    from mtdiag.io import ref_name_from_file

    refs: dict[str, str] = {}
    for path in ref_paths:
        name = ref_name_from_file(path)
        while name in refs:
            name += "'"
        refs[name] = path
    return list(refs.items())


def _lang_pair(tgt_lang: str | None, paths: Sequence[str]) -> str | None:
    """The language pair (:func:`mtdiag.io.resolve_lang_pair`): ``--tgt-lang``, else the files' folder names
    (``wmt22.en-ja``, ``en-ja``), else their ``testset.xx-yy.`` file names."""
    from mtdiag.io import resolve_lang_pair

    return resolve_lang_pair(tgt_lang, folders=[Path(p).resolve().parent.name for p in paths],
                             file_names=[Path(p).name for p in paths])


def _load(args) -> "EvalSet":
    from mtdiag.io import with_error_annotations, with_metric_scores
    from mtdiag.io.scores import with_comet_scores

    evalset = _testset(args, refs=args.ref, hyps=args.hyp)
    if evalset is None:
        evalset = _load_files(args)
    limits, read = _limits(args), _read_with_the_testset(args)
    for path in getattr(args, "scores", None) or ():
        if Path(path).resolve() not in read:
            evalset = with_metric_scores(evalset, path, limits=limits)
    for path in getattr(args, "annotations", None) or ():
        if Path(path).resolve() not in read:
            evalset = with_error_annotations(evalset, path, limits=limits)
    for given in getattr(args, "metric_spans", None) or ():
        evalset = _with_metric_spans(evalset, given, limits)
    for path in getattr(args, "comet_checkpoint", None) or ():
        evalset = with_comet_scores(evalset, path)
    return evalset


def _with_metric_spans(evalset, given: str, limits) -> "EvalSet":
    """``--metric-spans [METRIC=]FILE``: the metric's name before ``=`` unless the whole value is a file."""
    from mtdiag.io.metric_spans import with_metric_spans

    metric, path = None, given
    if "=" in given and not Path(given).exists():
        metric, path = given.split("=", 1)
    return with_metric_spans(evalset, path, metric=metric or None, limits=limits)


def _read_with_the_testset(args) -> set[Path]:
    """The extra files a ``--testset`` folder brings itself (``metric_scores.tsv``, ``mqm.errors.tsv`` …): given
    again as ``--scores``/``--annotations`` they are not read twice (twice the spans, every warning twice)."""
    from mtdiag.io.folders import extra_files

    if args.testset is None or not Path(args.testset).is_dir():
        return set()
    return {path.resolve() for path in extra_files(args.testset)}


def _load_files(args) -> "EvalSet":
    from mtdiag.io import clean_name, load_files

    hyps: dict[str, str] = {}
    for name, path in args.hyp:
        name = clean_name(name)
        if name in hyps:
            raise CliError(f"{path}: system name {name!r} is used twice (also for {hyps[name]})")
        hyps[name] = path
    paths = [*(args.ref or ()), *hyps.values(), *([args.src] if args.src else [])]
    return load_files(src=args.src, refs=_ref_entries(args.ref or ()), hyps=list(hyps.items()), name="cli",
                      lang_pair=_lang_pair(args.tgt_lang, paths), terms=args.terms, limits=_limits(args))


def _json_value(value: float):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _score(args) -> str:
    from mtdiag.api import evaluate
    from mtdiag.chunks import Execution

    options = _options(args)
    _check_significance_args(args)
    _check_human_args(args)
    evalset = _load(args)
    _check_baseline(args, evalset.systems)
    _check_where(args, evalset, options)
    for warning in evalset.warnings:
        print(f"mtdiag: warning: {warning}", file=sys.stderr)
    if args.human:
        evalset = _with_human(args, evalset)
    whole = evaluate(evalset, options, execution=Execution(dask=args.dask))
    report = _sliced(args, whole)
    if not whole.metrics:
        from mtdiag.api import no_metric_reason

        raise CliError(no_metric_reason(evalset))
    from mtdiag.compare import report_signatures
    from mtdiag.export import clusters_latex, export_comparison, latex_table, pairwise_json, pairwise_tsv, significance_json

    comparison, pairwise = _significance(args, report), _pairwise(args, report)
    signatures = pairwise[2] if pairwise is not None else report_signatures(report, comparison)
    if args.format == "latex":
        if pairwise is not None:
            return clusters_latex(report.corpus, pairwise[1], pairwise[0], signatures=signatures, within=report)
        return latex_table(report.corpus, comparison, signatures=signatures, within=report)
    if args.format == "json":
        out = {"corpus": {s: {m: _json_value(float(v)) for m, v in row.items()} for s, row in report.corpus.iterrows()}}
        if args.segments:
            out["segments"] = {
                s: {m: [_json_value(float(v)) for v in report.segments.loc[s, m]] for m in report.metrics}
                for s in report.evalset.systems
            }
        if args.where is not None:
            out["slice"] = {"where": args.where, "segments": report.evalset.n_segments,
                            "of": whole.evalset.n_segments}
            if args.segments:
                out["slice"]["seg_ids"] = report.evalset.seg_ids.tolist()
        if comparison is not None:
            out["significance"] = significance_json(comparison)
        if pairwise is not None:
            out["pairwise"] = pairwise_json(pairwise[0], pairwise[1])
        out["signatures"] = signatures
        if args.human:
            out["human"] = _human_json(args, report)
        return json.dumps(out, ensure_ascii=False)
    if comparison is not None:
        return export_comparison(comparison, "tsv").rstrip("\n")
    if pairwise is not None:
        return pairwise_tsv(pairwise[0], pairwise[1]).rstrip("\n")
    lines = ["\t".join(["system", *(["seg_id"] if args.segments else []), *report.metrics])]
    fmt = lambda v: "" if v is None or math.isnan(v) else repr(float(v))
    for system, row in report.corpus.iterrows():
        lines.append("\t".join([system, *(["corpus"] if args.segments else []), *(fmt(v) for v in row)]))
        if args.segments:
            seg_ids = report.evalset.seg_ids
            for seg, seg_row in report.segments.loc[system].iterrows():
                lines.append("\t".join([system, str(seg_ids[seg]), *(fmt(v) for v in seg_row)]))
    return "\n".join(lines)


def _add_triage_command(commands) -> None:
    triage = commands.add_parser(
        "triage", help="the worst-first queue: every (system, segment) pair by problem score, with its flags",
        description="Every (system, segment) pair worst first (docs/triage.md): system, seg_id (1-based), problem "
                    "(0-1, higher = worse), flags (comma-joined checks that fired), then every segment score.")
    _add_input_options(triage)
    triage.add_argument("--human", metavar="SCORES.tsv",
                        help=f"{HUMAN_HELP}: add a 'human' column and print the queue's lift at 10 %% over them on "
                             "stderr (with --annotations alone: over the scores the annotations give)")
    triage.add_argument("--top", type=int, metavar="N", help="only the N worst pairs")
    triage.add_argument("--sources", action="store_true", help="the queue as sources: seg_id, difficulty (mean "
                        "problem over systems), spread (max - min), worst_system, worst_problem; hardest first")
    triage.add_argument("--strict", action="store_true", help="pairs in strict problem order throughout (default: "
                        "the first 50 rows show one pair per source, each its worst)")
    _add_where_option(triage)
    triage.add_argument("--with-text", action="store_true", help="add the texts after the scores: src, one "
                        "ref:NAME per reference and hyp (the output; not with --sources), whole; in TSV a backslash, "
                        "tab, newline or carriage return in a text is written \\\\, \\t, \\n, \\r")
    _add_format(triage, ("tsv", "json"), default="tsv")
    triage.set_defaults(handler=_triage)


def _triage(args) -> str:
    from mtdiag import triage
    from mtdiag.views import segments
    from mtdiag.api import evaluate
    from mtdiag.chunks import Execution
    from mtdiag.export import to_json, to_tsv

    if args.top is not None and args.top < 1:
        raise CliError(f"--top must be at least 1, got {args.top}")
    options = _options(args)
    evalset = _load(args)
    _check_where(args, evalset, options)
    for warning in evalset.warnings:
        print(f"mtdiag: warning: {warning}", file=sys.stderr)
    if args.human:
        evalset = _with_human(args, evalset)
    report = _sliced(args, evaluate(evalset, options, execution=Execution(dask=args.dask)))
    if args.sources:
        table = triage.source_difficulty(report)
    else:
        print(f"mtdiag: {triage.signals(report)}", file=sys.stderr)
        queue = triage.worst_first(report, strict=args.strict)
        table = queue[["system", "seg_id", "problem", "flags", *report.metrics]]
        if args.human or args.annotations:  # the given scores, else those the annotations gave the set
            table = _with_human_column(report, table)
    if args.top is not None:
        table = table.head(args.top)
    if args.with_text:
        table = segments.with_texts(report, table)
    table = table.assign(seg_id=report.evalset.seg_ids[table["seg_id"].to_numpy() - 1])  # a slice: original ids
    return to_json(table) if args.format == "json" else to_tsv(table).rstrip("\n")


def _add_report_command(commands) -> None:
    report = commands.add_parser(
        "report", help="one self-contained HTML file to share: overview, ranked significance, buckets, worst segments",
        description="Write one HTML file (docs/report.md) that opens in any browser without a server or network: "
                    "corpus scores, ranked significance clusters and p-values, buckets, and the worst segments with "
                    "their evidence highlighted.")
    _add_input_options(report)
    report.add_argument("-o", "--output", required=True, metavar="REPORT.html", help="the file to write")
    report.add_argument("--top", type=int, default=50, metavar="N", help="worst segments shown (default: %(default)s)")
    report.add_argument("--title", help="the report's title (default: the test set's name)")
    report.add_argument("--human", metavar="SCORES.tsv", help=f"{HUMAN_HELP}, shown with the worst segments")
    _add_where_option(report)
    report.set_defaults(handler=_report)


def _report(args) -> str:
    from mtdiag.api import evaluate
    from mtdiag.chunks import Execution
    from mtdiag.report import html_report

    if args.top < 1:
        raise CliError(f"--top must be at least 1, got {args.top}")
    evalset = _load(args)
    options = _options(args)
    _check_where(args, evalset, options)
    if args.human:
        evalset = _with_human(args, evalset)
    for warning in evalset.warnings:
        print(f"mtdiag: warning: {warning}", file=sys.stderr)
    print("mtdiag: scoring …", file=sys.stderr)
    whole = evaluate(evalset, options, execution=Execution(dask=args.dask))
    report = _sliced(args, whole)
    title = args.title
    if title is None and args.where is not None:
        title = (f"mtdiag report: {evalset.name}, where {args.where} ({report.evalset.n_segments:,} of "
                 f"{evalset.n_segments:,} segments)")
    page = html_report(report, top=args.top, title=title,
                       progress=lambda step: print(f"mtdiag: writing {step} …", file=sys.stderr))
    output = Path(args.output)
    output.write_text(page, encoding="utf-8")
    print(f"mtdiag: wrote {output} ({len(page.encode('utf-8')) / 1e6:.1f} MB)", file=sys.stderr)
    return ""


def _with_human_column(report, queue):
    """The queue with a ``human`` column from the report's human scores (blank where not rated, all blank without
    scores); the queue's lift at 10 % on stderr."""
    from mtdiag import triage

    human = report.evalset.human
    if human is None or human.empty:
        return queue.assign(human=float("nan"))
    scores = human.assign(seg_id=human["seg"] + 1).set_index(["system", "seg_id"])["score"]
    queue = queue.assign(human=scores.reindex(list(zip(queue["system"], queue["seg_id"]))).to_numpy())
    rated = queue["human"].notna().to_numpy()
    if rated.sum() >= 10:
        value = triage.lift(-queue.index.to_numpy()[rated].astype(float), -queue["human"].to_numpy()[rated])
        print(f"mtdiag: lift at 10 % of this queue over {int(rated.sum())} human-rated pairs: {value:.2f} "
              "(random = 1)", file=sys.stderr)
    return queue


def _serve(args) -> str:
    import os
    import subprocess

    app = Path(__file__).resolve().parent.parent / "app.py"
    if not 0 < args.port < 65536:
        raise CliError(f"--port {args.port}: expected a port number 1-65535")
    command = [sys.executable, "-m", "streamlit", "run", str(app), "--server.address", args.address,
               "--server.port", str(args.port)]
    app_arguments = (["--data", args.data] if args.data else []) + (["--workspace", args.workspace]
                                                                      if args.workspace else [])
    if app_arguments:
        command += ["--", *app_arguments]
    if args.workspace_max_mb is not None:
        if args.workspace_max_mb < 1:
            raise CliError("--workspace-max-mb must be at least 1")
        os.environ["MTDIAG_WORKSPACE_MAX_MB"] = str(args.workspace_max_mb)  # the dashboard's process inherits it
    # glibc gives each thread (a Streamlit session runs in its own) an arena of its own; two keep freed memory from
    # staying scattered over up to 16 of them (docs/scaling.md, "Hostile uploads under load"); a value set wins
    os.environ.setdefault("MALLOC_ARENA_MAX", "2")
    return_code = subprocess.call(command)
    if return_code:
        raise CliError(f"the dashboard exited with status {return_code}")
    return ""


def _add_ngrams_command(commands) -> None:
    """``mtdiag ngrams``: HT-only / MT-only n-gram tables (Aikawa & Rarrick §2.2; METRICS.md §4)."""
    ngrams = commands.add_parser("ngrams", help="n-grams only the human translation or only a system uses")
    ngrams.add_argument("--ht", metavar="REF.txt", help="the human translation")
    ngrams.add_argument("--mt", action="append", type=_named_file, metavar="NAME=FILE",
                        help="system output (repeatable)")
    _add_testset_option(ngrams, "its first reference is the human translation")
    ngrams.add_argument("--order", type=_orders, default=(3,), metavar="N[,N...]",
                        help="n-gram order 1-4, or several comma-separated (1,2,3,4: one tokenisation shared; the "
                        "output then has one table set per order) (default: 3)")
    ngrams.add_argument("--min-count", type=int, default=2, help="minimum count k in the corpus that has the n-gram "
                        "(default: %(default)s)")
    ngrams.add_argument("--top", type=int, default=50, help="rows per table, 0 = all (default: %(default)s)")
    _add_tokenize_options(ngrams)
    ngrams.add_argument("--tgt-lang", help="target language code: chooses the default tokeniser (default: read "
                        "from a folder name like wmt22.en-ja or en-ja, or file names like generaltest2022.en-ja.X.txt)")
    ngrams.add_argument("--dask", metavar="ADDRESS", help="count on a Dask cluster, one task per system: a "
                        "scheduler address (tcp://host:8786), or local / local:N; the tables are identical")
    _add_format(ngrams)
    ngrams.set_defaults(handler=_ngrams)


def _add_buckets_command(commands) -> None:
    """``mtdiag buckets --by LIST``: every metric per bucket of segments (compare-mt's analysis; mtdiag.buckets)."""
    buckets = commands.add_parser("buckets", help="every metric per bucket of segments (length, rare words, "
                                  "labels, human-score bands)")
    buckets.add_argument("--ref", action="append", metavar="REF.txt", help="reference file (repeatable)")
    from mtdiag.buckets import BY

    buckets.add_argument("--hyp", action="append", type=_named_file, metavar="NAME=FILE",
                         help="system output (repeatable)")
    _add_testset_option(buckets)
    buckets.add_argument("--src", metavar="SRC.txt", help="source file (needed for src_length)")
    buckets.add_argument("--terms", metavar="TERMS", help="terms TSV or glossary TSV (as for score)")
    buckets.add_argument("--human", metavar="SCORES.tsv", help=f"{HUMAN_HELP}: the human dimension")
    _add_scores_option(buckets)
    buckets.add_argument("--by", default="src_length,ref_length,ref_freq",
                         help=f"comma-separated dimensions: {', '.join(BY)}, label:COLUMN (default: %(default)s)")
    buckets.add_argument("--word-counts", metavar="COUNTS.tsv", help="word<TAB>count file for ref_freq (default: "
                         "frequencies within the test set's references)")
    buckets.add_argument("--metrics", help="comma-separated metrics (default: all the inputs allow)")
    buckets.add_argument("--compare", nargs=2, metavar=("A", "B"), help="also a paired bootstrap of system A "
                         "against B inside each bucket")
    _add_where_option(buckets)
    _add_tokenize_options(buckets)
    buckets.add_argument("--tgt-lang", help="target language code")
    _add_metric_options(buckets)
    _add_format(buckets)
    buckets.set_defaults(handler=_buckets)


def _buckets(args) -> str:
    from mtdiag import buckets as bucketing
    from mtdiag.api import Options, evaluate
    from mtdiag.export import to_json_records, to_tsv

    dimensions = [d.strip() for d in args.by.split(",") if d.strip()]
    if not dimensions:
        raise CliError(f"--by {args.by!r}: name at least one dimension")
    counts = bucketing.read_word_counts(args.word_counts) if args.word_counts else None
    evalset = _load(args)
    _print_warnings(evalset)
    if args.human:
        evalset = _with_human(args, evalset)
    options = Options(tokenize=args.tokenize, lowercase=not args.no_lowercase, typography=not args.keep_typography,
                      metrics=_metric_list(args.metrics),
                      metric_options=_metric_options(args), tgt_lang=args.tgt_lang)
    _check_where(args, evalset, options)
    report = _sliced(args, evaluate(evalset, options))
    if args.compare:
        missing = [s for s in args.compare if s not in report.evalset.systems]
        if missing:
            raise CliError(f"--compare {missing[0]!r} is not a system; systems: {', '.join(report.evalset.systems)}")
    tables, tests = {}, {}
    for by in dimensions:
        groups = bucketing.bucketing(report, by, word_counts=counts)
        tables[by] = bucketing.bucket_scores(report, groups)
        if args.compare:
            tests[by] = bucketing.bucket_significance(report, groups, *args.compare)
    if args.format == "json":
        out = {"buckets": {by: to_json_records(table) for by, table in tables.items()}}
        if tests:
            out["significance"] = {by: to_json_records(table) for by, table in tests.items()}
        return json.dumps(out, ensure_ascii=False)
    text = "".join(to_tsv(table.assign(by=by)[["by", *table.columns]], header=i == 0)
                   for i, (by, table) in enumerate(tables.items()))
    if tests:  # a second table after one empty line: the paired test per bucket
        text += "\n" + "".join(to_tsv(table.assign(by=by)[["by", *table.columns]], header=i == 0)
                                for i, (by, table) in enumerate(tests.items()))
    return text.rstrip("\n")


def _add_slices_command(commands) -> None:
    """``mtdiag slices --compare A B``: the slices where two systems differ most (mtdiag.slices.finder)."""
    slices = commands.add_parser(
        "slices", help="where do two systems differ most? candidate slices ranked, as --where expressions",
        description="Every bucket, label value, flag, human-score band and error category, and their pairwise "
                    "intersections, ranked by how much system A and B differ there, with paired bootstrap p-values "
                    "corrected for the number of slices tried (docs/slices.md). Each slice is printed as the "
                    "expression that defines it: score --where EXPR reproduces its scores.")
    slices.add_argument("--compare", nargs=2, required=True, metavar=("A", "B"), help="the two systems")
    from mtdiag.compare import DEFAULT_SAMPLES, DEFAULT_SEED  # only for this command (see _Unfilled)
    from mtdiag.slices import CORRECTIONS
    from mtdiag.slices.finder import DEFAULT_MIN_SIZE

    _add_input_options(slices)
    slices.add_argument("--human", metavar="SCORES.tsv", help="human scores (system, seg_id, score): their bands "
                        "become candidates")
    slices.add_argument("--metric", default="chrf", help="the metric A and B are compared by (default: %(default)s)")
    slices.add_argument("--min-size", type=int, default=DEFAULT_MIN_SIZE, metavar="N",
                        help="fewest segments a slice keeps (default: %(default)s)")
    slices.add_argument("--correction", default="bh", choices=list(CORRECTIONS),
                        help="multiple-comparison correction over the slices tried: bh (Benjamini-Hochberg, false "
                        "discovery rate) or holm (family-wise error) (default: %(default)s)")
    slices.add_argument("--samples", type=int, default=DEFAULT_SAMPLES["bs"], metavar="N",
                        help="bootstrap resamples per slice (default: %(default)s)")
    slices.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (default: %(default)s)")
    slices.add_argument("--top", type=int, default=20, metavar="K", help="slices shown, 0 = all (default: %(default)s)")
    _add_format(slices, ("tsv", "json"), default="tsv")
    slices.set_defaults(handler=_slices)


def _slices(args) -> str:
    from mtdiag.api import available_metrics, evaluate
    from mtdiag.chunks import Execution
    from mtdiag.slices import CORRECTIONS, find_slices

    if args.top < 0:
        raise CliError(f"--top {args.top}: must be 0 (all slices) or more")
    if args.min_size < 1:
        raise CliError(f"--min-size {args.min_size}: must be at least 1")
    if args.samples < 1:
        raise CliError(f"--samples {args.samples}: must be at least 1")
    options = _options(args)
    evalset = _load(args)
    a, b = args.compare
    for system in (a, b):
        if system not in evalset.systems:
            raise CliError(f"--compare {system!r} is not a system; systems: {', '.join(evalset.systems)}")
    if a == b:
        raise CliError("--compare: name two different systems")
    metrics = options.metrics if options.metrics is not None else available_metrics(evalset)
    if args.metric not in metrics:
        raise CliError(f"--metric {args.metric!r} is not computed; computed: {', '.join(metrics)}")
    _print_warnings(evalset)
    if args.human:
        evalset = _with_human(args, evalset)
    report = evaluate(evalset, options, execution=Execution(dask=args.dask))
    table = find_slices(report, a, b, args.metric, min_size=args.min_size, correction=args.correction,
                        n=args.samples, seed=args.seed, top=args.top or None)
    facts = table.attrs
    print(f"mtdiag: slices: {args.metric} on all {facts['segments']:,} segments: {a} {facts['score_a']:.4f}, {b} "
          f"{facts['score_b']:.4f}; {facts['tried']:,} slices tried (at least {args.min_size} segments), "
          f"{facts['significant']:,} significant after {CORRECTIONS[args.correction]}", file=sys.stderr)
    if args.format == "json":
        return json.dumps([{"expression": row.expression, "size": int(row.size),
                            "scores": {a: _json_value(float(row.score_a)), b: _json_value(float(row.score_b))},
                            "difference": _json_value(float(row.difference)),
                            "p_value": _json_value(float(row.p_value)),
                            "p_corrected": _json_value(float(row.p_corrected)), "correction": row.correction,
                            "significant": bool(row.significant)} for row in table.itertuples(index=False)],
                          ensure_ascii=False)
    # written by hand: a TSV writer would quote the expressions' double quotes, and they are to be copied as shown
    number = lambda v: "" if not math.isfinite(v) else repr(float(v))  # noqa: E731
    lines = ["\t".join(["expression", "size", a, b, "difference", "p_value", "p_corrected", "correction",
                        "significant"])]
    lines += ["\t".join([row.expression, str(row.size), number(row.score_a), number(row.score_b),
                         number(row.difference), number(row.p_value), number(row.p_corrected), row.correction,
                         str(bool(row.significant)).lower()]) for row in table.itertuples(index=False)]
    return "\n".join(lines)


def _add_likeness_command(commands) -> None:
    """``mtdiag likeness``: ORANGE/KING per metric and QUEEN per system (Amigó et al. 2006 §2.2, §3.1)."""
    likeness = commands.add_parser("likeness", help="ORANGE/KING of metrics and QUEEN of systems (several references)")
    likeness.add_argument("--ref", action="append", metavar="REF.txt", help="reference file (repeatable)")
    likeness.add_argument("--hyp", action="append", type=_named_file, metavar="NAME=FILE",
                          help="system output (repeatable)")
    _add_testset_option(likeness)
    likeness.add_argument("--metrics", default="waft,neva,bleu,chrf",
                          help="comma-separated similarity metrics (default: %(default)s)")
    _add_tokenize_options(likeness)
    _add_format(likeness)
    likeness.set_defaults(handler=_likeness)


def _print_warnings(evalset) -> None:
    for warning in evalset.warnings:
        print(f"mtdiag: warning: {warning}", file=sys.stderr)


def _load_named(args, ref_paths: Sequence[str], hyps: Sequence[tuple[str, str]],
                tgt_lang: str | None = None) -> "EvalSet":
    """References named by :func:`_ref_entries`, systems by ``NAME=`` (or their file names); the language pair
    from ``tgt_lang`` or the files' folder and file names (:func:`_lang_pair`)."""
    from mtdiag.io import load_files

    paths = [*ref_paths, *(path for _, path in hyps)]
    evalset = load_files(refs=_ref_entries(ref_paths), hyps=list(hyps), name="cli",
                         lang_pair=_lang_pair(tgt_lang, paths), limits=_limits(args))
    _print_warnings(evalset)
    return evalset


def _orders(value: str) -> tuple[int, ...]:
    """``3`` -> (3,); ``1,2,3,4`` -> (1, 2, 3, 4): n-gram orders among 1-4, each once, in the order given."""
    try:
        orders = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r}: expected an order 1-4 or a comma-separated list (1,2,3,4)")
    if not orders or any(n not in (1, 2, 3, 4) for n in orders) or len(set(orders)) != len(orders):
        raise argparse.ArgumentTypeError(f"{value!r}: orders must be among 1, 2, 3, 4, each at most once")
    return orders


def _ngrams(args) -> str:
    from mtdiag.ht_mt_ngrams import ngram_tables
    from mtdiag.tokenize import TokenizeOptions, default_tokenizer

    if args.min_count < 1:
        raise CliError(f"--min-count {args.min_count}: must be at least 1")
    if args.top < 0:
        raise CliError(f"--top {args.top}: must be 0 (all rows) or more")
    evalset = _testset(args, "--ht", "--mt", refs=args.ht, hyps=args.mt)
    if evalset is None:
        evalset = _load_named(args, [args.ht], args.mt, args.tgt_lang)
    options = TokenizeOptions(args.tokenize or default_tokenizer(evalset.tgt_lang), lowercase=not args.no_lowercase,
                              typography=not args.keep_typography)
    if args.dask:
        from mtdiag.chunks import ngram_tables_on_dask

        tables = ngram_tables_on_dask(evalset, args.dask, orders=args.order, min_count=args.min_count,
                                      options=options)
    else:
        tables = ngram_tables(evalset, orders=args.order, min_count=args.min_count, options=options)

    def rows(system: str, order: int) -> dict:
        table = tables.table(system, order)
        frames = {kind: getattr(table, kind)[["ngram", "ht_count", "mt_count"]] for kind in ("ht_only", "mt_only")}
        return {kind: frame.head(args.top) if args.top else frame for kind, frame in frames.items()}

    # one order: {"order": n, "tables": {system: ...}} as before; several: {"orders": [...], "tables": {"n": ...}}
    per_order = {order: {system: rows(system, order) for system in tables.systems} for order in args.order}
    single = len(args.order) == 1
    if args.format == "json":
        def records(by_system: dict) -> dict:
            return {system: {kind: [[g, int(h), int(m)] for g, h, m in frame.itertuples(index=False)]
                             for kind, frame in kinds.items()}
                    for system, kinds in by_system.items()}
        if single:
            return json.dumps({"order": args.order[0], "tables": records(per_order[args.order[0]])},
                              ensure_ascii=False)
        return json.dumps({"orders": list(args.order),
                           "tables": {str(order): records(by_system) for order, by_system in per_order.items()}},
                          ensure_ascii=False)
    lines = ["system\ttable\tngram\tht_count\tmt_count" if single else
             "order\tsystem\ttable\tngram\tht_count\tmt_count"]
    for order, by_system in per_order.items():
        lead = "" if single else f"{order}\t"
        for system, kinds in by_system.items():
            for kind, frame in kinds.items():
                lines += [f"{lead}{system}\t{kind}\t{g}\t{h}\t{m}" for g, h, m in frame.itertuples(index=False)]
    return "\n".join(lines)


def _likeness(args) -> str:
    from mtdiag.api import Options
    from mtdiag.likeness import likeness_scores, orange_king, queen

    metrics = _metric_list(args.metrics)
    evalset = _testset(args, refs=args.ref, hyps=args.hyp) or _load_named(args, args.ref, args.hyp)
    scores = likeness_scores(evalset, metrics, Options(tokenize=args.tokenize, lowercase=not args.no_lowercase,
                                                                typography=not args.keep_typography))
    ok, qu = orange_king(scores), queen(scores)
    for explanation in dict.fromkeys(e for e in (ok.explanation, qu.explanation) if e):
        print(f"mtdiag: note: {explanation}", file=sys.stderr)
    out = {"orange": ok.table["orange"].to_dict(), "king": ok.table["king"].to_dict(), "queen": qu.systems.to_dict()}
    out = {measure: {k: _json_value(float(v)) for k, v in values.items()} for measure, values in out.items()}
    if args.format == "json":
        return json.dumps(out, ensure_ascii=False)
    lines = ["measure\tname\tvalue"]
    for measure, values in out.items():
        lines += [f"{measure}\t{name}\t{'' if v is None else repr(v)}" for name, v in values.items()]
    return "\n".join(lines)


def _check_human_args(args) -> None:
    if args.human and args.format != "json":
        raise CliError("--human needs --format json")


def _human_json(args, report) -> dict:
    """``{METRIC: {seg_pearson, seg_kendall, sys_pearson, sys_kendall, n_seg, n_sys}}`` against the human scores
    of ``path``, attached to the report's set before scoring (:func:`_with_human`; positive = agrees with the
    humans; see :mod:`mtdiag.human`)."""
    from mtdiag.human import human_agreement

    table = human_agreement(report, report.evalset.human)
    return {metric: {k: int(v) if k.startswith("n_") else _json_value(float(v)) for k, v in row.items()}
            for metric, row in table.to_dict(orient="index").items()}


def main(argv: Sequence[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else [str(a) for a in argv]
    parser = build_parser(only=next((a for a in argv if not a.startswith("-")), ""))
    args = parser.parse_args(argv)
    from mtdiag.io import InputError

    try:
        output = args.handler(args)
    except (CliError, InputError, ValueError, OSError, RuntimeError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"mtdiag: error: {message}", file=sys.stderr)
        return EXIT_INPUT
    if output:
        sys.stdout.write(_printed(output, args) + "\n")
    return 0


def _printed(output: str, args) -> str:
    """What is printed: JSON indented when stdout is a terminal (a person reads it), on one line otherwise (a pipe
    or a file, for scripts and jq); any other output as it is. Every ``--format json`` handler returns compact
    JSON; this is the one place that decides its layout."""
    if getattr(args, "format", None) == "json" and sys.stdout.isatty():
        return json.dumps(json.loads(output), ensure_ascii=False, indent=2)
    return output


def run() -> None:
    """The console entry point (``mtdiag``, ``python -m mtdiag``): :func:`main`, then leave at once.

    With pandas loaded, the interpreter's teardown (freeing every module's objects) takes ~60 ms — a tenth of a
    quick ``mtdiag score``. Once ``main`` has returned nothing of mtdiag's is left to clean up (thread pools, Dask
    clients and files are closed by their own ``with`` blocks and ``finally`` clauses), so the output is flushed and
    the process ends with ``os._exit``. An uncaught exception still goes through Python's normal exit (traceback).
    """
    import os

    try:
        code = main()
    except SystemExit as exc:  # argparse: --help, usage errors
        code = exc.code
        if isinstance(code, str):
            print(code, file=sys.stderr)
            code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code or 0)


if __name__ == "__main__":
    run()
