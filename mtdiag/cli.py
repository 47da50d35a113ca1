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


def _add_format(parser: argparse.ArgumentParser, choices=("json", "tsv")) -> None:
    parser.add_argument("--format", default="json", choices=choices, help="output format (default: %(default)s)")


def _add_significance_options(parser: argparse.ArgumentParser) -> None:
    """``--paired-bs [N]`` / ``--paired-ar [N]`` with ``--baseline NAME`` (as sacrebleu's paired tests)."""
    from mtdiag.compare import DEFAULT_SAMPLES, DEFAULT_SEED

    tests = parser.add_mutually_exclusive_group()
    tests.add_argument("--paired-bs", nargs="?", type=int, const=DEFAULT_SAMPLES["bs"], metavar="N",
                       help=f"paired bootstrap resampling against --baseline, N resamples (default: {DEFAULT_SAMPLES['bs']})")
    tests.add_argument("--paired-ar", nargs="?", type=int, const=DEFAULT_SAMPLES["ar"], metavar="N",
                       help=f"paired approximate randomisation against --baseline, N trials (default: {DEFAULT_SAMPLES['ar']})")
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
    if args.baseline is None:
        raise CliError(f"{option} needs --baseline NAME (one of the --hyp system names)")
    names = [name for name, _ in args.hyp]
    if args.baseline not in names:
        raise CliError(f"--baseline {args.baseline!r} is not a system; systems: {', '.join(names)}")
    if len(names) < 2:
        raise CliError(f"{option} needs at least two systems (--hyp) to compare")
    if args.segments and args.format != "json":
        raise CliError(f"--segments with {option} needs --format json")


def _significance(args, report):
    """The paired-test frame (:func:`mtdiag.compare.significance`) when one was requested, else None."""
    if args.paired_bs is None and args.paired_ar is None:
        return None
    from mtdiag.compare import significance

    method, n = ("bs", args.paired_bs) if args.paired_bs is not None else ("ar", args.paired_ar)
    return significance(report, args.baseline, method, n, args.seed)


def build_parser() -> argparse.ArgumentParser:
    from mtdiag.metrics import REGISTRY

    parser = argparse.ArgumentParser(prog="mtdiag", description="Diagnostic evaluation of machine translation output.")
    parser.add_argument("--version", action="version", version=f"mtdiag {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    score = commands.add_parser("score", help="corpus (and segment) scores of one or more systems")
    score.add_argument("--ref", action="append", required=True, metavar="REF.txt", help="reference file (repeatable)")
    score.add_argument("--hyp", action="append", required=True, type=_named_file, metavar="NAME=FILE",
                       help="system output (repeatable)")
    score.add_argument("--src", metavar="SRC.txt", help="source file (optional)")
    score.add_argument("--terms", metavar="TERMS", help="terms TSV (seg_id, src_term, tgt_term) or glossary TSV "
                       "(source, target); inline <term> tags in source/reference lines are read without it")
    score.add_argument("--metrics", help=f"comma-separated subset of: {', '.join(REGISTRY)} (default: all the inputs allow)")
    _add_tokenize_options(score)
    score.add_argument("--tgt-lang", help="target language code (stop words of term window overlap)")
    score.add_argument("--otem-order", type=int, default=2, help="OTEM maximum n-gram order (default: %(default)s)")
    score.add_argument("--utem-order", type=int, default=4, help="UTEM maximum n-gram order (default: %(default)s)")
    score.add_argument("--segments", action="store_true", help="also print one score per segment")
    score.add_argument("--human", metavar="SCORES.tsv", help="human scores (system, seg_id, score): add each "
                       "metric's correlation with them to the JSON output")
    _add_significance_options(score)
    _add_format(score, ("json", "tsv", "latex"))
    score.set_defaults(handler=_score)

    _add_ngrams_command(commands)
    _add_likeness_command(commands)

    serve = commands.add_parser("serve", help="start the dashboard")
    serve.add_argument("--data", metavar="DIR", help="open this test-set folder (default: the sample data)")
    serve.add_argument("--port", type=int, default=8501)
    serve.set_defaults(handler=_serve)
    return parser


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
    from mtdiag.io import clean_name, load_files

    hyps: dict[str, str] = {}
    for name, path in args.hyp:
        name = clean_name(name)
        if name in hyps:
            raise CliError(f"{path}: system name {name!r} is used twice (also for {hyps[name]})")
        hyps[name] = path
    paths = [*args.ref, *hyps.values(), *([args.src] if args.src else [])]
    return load_files(src=args.src, refs=_ref_entries(args.ref), hyps=list(hyps.items()), name="cli",
                      lang_pair=_lang_pair(args.tgt_lang, paths), terms=args.terms)


def _json_value(value: float):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _score(args) -> str:
    from mtdiag.api import Options, evaluate

    metrics = tuple(m.strip() for m in args.metrics.split(",") if m.strip()) if args.metrics else None
    options = Options(tokenize=args.tokenize, lowercase=not args.no_lowercase, metrics=metrics,
                      otem_order=args.otem_order, utem_order=args.utem_order, tgt_lang=args.tgt_lang)
    _check_significance_args(args)
    _check_human_args(args)
    evalset = _load(args)
    for warning in evalset.warnings:
        print(f"mtdiag: warning: {warning}", file=sys.stderr)
    report = evaluate(evalset, options)
    from mtdiag.compare import export_comparison, latex_table, report_signatures, significance_json

    comparison = _significance(args, report)
    if args.format == "latex":
        return latex_table(report.corpus, comparison, signatures=report_signatures(report, comparison))
    if args.format == "json":
        out = {"corpus": {s: {m: _json_value(float(v)) for m, v in row.items()} for s, row in report.corpus.iterrows()}}
        if args.segments:
            out["segments"] = {
                s: {m: [_json_value(float(v)) for v in report.segments.loc[s, m]] for m in report.metrics}
                for s in report.evalset.systems
            }
        if comparison is not None:
            out["significance"] = significance_json(comparison)
        out["signatures"] = report_signatures(report, comparison)
        if args.human:
            out["human"] = _human_json(args.human, report)
        return json.dumps(out, ensure_ascii=False)
    if comparison is not None:
        return export_comparison(comparison, "tsv").rstrip("\n")
    lines = ["\t".join(["system", *(["seg_id"] if args.segments else []), *report.metrics])]
    fmt = lambda v: "" if v is None or math.isnan(v) else repr(float(v))
    for system, row in report.corpus.iterrows():
        lines.append("\t".join([system, *(["corpus"] if args.segments else []), *(fmt(v) for v in row)]))
        if args.segments:
            for seg, seg_row in report.segments.loc[system].iterrows():
                lines.append("\t".join([system, str(seg + 1), *(fmt(v) for v in seg_row)]))
    return "\n".join(lines)


def _serve(args) -> str:
    import subprocess

    app = Path(__file__).resolve().parent.parent / "app.py"
    command = [sys.executable, "-m", "streamlit", "run", str(app), "--server.port", str(args.port)]
    if args.data:
        command += ["--", "--data", args.data]
    return_code = subprocess.call(command)
    if return_code:
        raise CliError(f"the dashboard exited with status {return_code}")
    return ""


def _add_ngrams_command(commands) -> None:
    """``mtdiag ngrams``: HT-only / MT-only n-gram tables (Aikawa & Rarrick §2.2; METRICS.md §4)."""
    ngrams = commands.add_parser("ngrams", help="n-grams only the human translation or only a system uses")
    ngrams.add_argument("--ht", required=True, metavar="REF.txt", help="the human translation")
    ngrams.add_argument("--mt", action="append", required=True, type=_named_file, metavar="NAME=FILE",
                        help="system output (repeatable)")
    ngrams.add_argument("--order", type=int, default=3, choices=(1, 2, 3, 4), help="n-gram order (default: %(default)s)")
    ngrams.add_argument("--min-count", type=int, default=2, help="minimum count k in the corpus that has the n-gram "
                        "(default: %(default)s)")
    ngrams.add_argument("--top", type=int, default=50, help="rows per table, 0 = all (default: %(default)s)")
    _add_tokenize_options(ngrams)
    ngrams.add_argument("--tgt-lang", help="target language code: chooses the default tokeniser (default: read "
                        "from a folder name like wmt22.en-ja or en-ja, or file names like generaltest2022.en-ja.X.txt)")
    _add_format(ngrams)
    ngrams.set_defaults(handler=_ngrams)


def _add_likeness_command(commands) -> None:
    """``mtdiag likeness``: ORANGE/KING per metric and QUEEN per system (Amigó et al. 2006 §2.2, §3.1)."""
    likeness = commands.add_parser("likeness", help="ORANGE/KING of metrics and QUEEN of systems (several references)")
    likeness.add_argument("--ref", action="append", required=True, metavar="REF.txt", help="reference file (repeatable)")
    likeness.add_argument("--hyp", action="append", required=True, type=_named_file, metavar="NAME=FILE",
                          help="system output (repeatable)")
    likeness.add_argument("--metrics", default="waft,neva,bleu,chrf",
                          help="comma-separated similarity metrics (default: %(default)s)")
    _add_tokenize_options(likeness)
    _add_format(likeness)
    likeness.set_defaults(handler=_likeness)


def _print_warnings(evalset) -> None:
    for warning in evalset.warnings:
        print(f"mtdiag: warning: {warning}", file=sys.stderr)


def _load_named(ref_paths: Sequence[str], hyps: Sequence[tuple[str, str]], tgt_lang: str | None = None) -> "EvalSet":
    """References named by :func:`_ref_entries`, systems by ``NAME=`` (or their file names); the language pair
    from ``tgt_lang`` or the files' folder and file names (:func:`_lang_pair`)."""
    from mtdiag.io import load_files

    paths = [*ref_paths, *(path for _, path in hyps)]
    evalset = load_files(refs=_ref_entries(ref_paths), hyps=list(hyps), name="cli",
                         lang_pair=_lang_pair(tgt_lang, paths))
    _print_warnings(evalset)
    return evalset


def _ngrams(args) -> str:
    from mtdiag.metrics.ht_mt_ngrams import ngram_tables
    from mtdiag.tokenize import TokenizeOptions, default_tokenizer

    if args.min_count < 1:
        raise CliError(f"--min-count {args.min_count}: must be at least 1")
    if args.top < 0:
        raise CliError(f"--top {args.top}: must be 0 (all rows) or more")
    evalset = _load_named([args.ht], args.mt, args.tgt_lang)
    options = TokenizeOptions(args.tokenize or default_tokenizer(evalset.tgt_lang), lowercase=not args.no_lowercase)
    tables = ngram_tables(evalset, orders=args.order, min_count=args.min_count, options=options)
    rows = {}
    for system in tables.systems:
        table = tables.table(system, args.order)
        rows[system] = {kind: getattr(table, kind)[["ngram", "ht_count", "mt_count"]] for kind in ("ht_only", "mt_only")}
        rows[system] = {kind: frame.head(args.top) if args.top else frame for kind, frame in rows[system].items()}
    if args.format == "json":
        return json.dumps({"order": args.order, "tables": {
            system: {kind: [[g, int(h), int(m)] for g, h, m in frame.itertuples(index=False)]
                     for kind, frame in kinds.items()}
            for system, kinds in rows.items()}}, ensure_ascii=False)
    lines = ["system\ttable\tngram\tht_count\tmt_count"]
    for system, kinds in rows.items():
        for kind, frame in kinds.items():
            lines += [f"{system}\t{kind}\t{g}\t{h}\t{m}" for g, h, m in frame.itertuples(index=False)]
    return "\n".join(lines)


def _likeness(args) -> str:
    from mtdiag.api import Options
    from mtdiag.likeness import likeness_scores, orange_king, queen

    metrics = tuple(m.strip() for m in args.metrics.split(",") if m.strip())
    evalset = _load_named(args.ref, args.hyp)
    scores = likeness_scores(evalset, metrics, Options(tokenize=args.tokenize, lowercase=not args.no_lowercase))
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


def _human_json(path: str, report) -> dict:
    """``{METRIC: {seg_pearson, seg_kendall, sys_pearson, sys_kendall, n_seg, n_sys}}`` against the human scores
    in ``path`` (positive = agrees with the humans; see :mod:`mtdiag.human`)."""
    from mtdiag.human import human_agreement
    from mtdiag.io import read_human_scores

    human = read_human_scores(path, n_segments=report.evalset.n_segments)
    table = human_agreement(report, human)
    return {metric: {k: int(v) if k.startswith("n_") else _json_value(float(v)) for k, v in row.items()}
            for metric, row in table.to_dict(orient="index").items()}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    from mtdiag.io import InputError

    try:
        output = args.handler(args)
    except (CliError, InputError, ValueError, OSError, RuntimeError) as exc:
        message = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(f"mtdiag: error: {message}", file=sys.stderr)
        return EXIT_INPUT
    if output:
        sys.stdout.write(output + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
