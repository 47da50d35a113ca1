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
    """``NAME=FILE`` -> (name, file); a bare FILE is named after its file name."""
    if "=" in value:
        name, path = value.split("=", 1)
        if not name:
            raise argparse.ArgumentTypeError(f"{value!r}: the system name before '=' is empty")
        return name, path
    return Path(value).stem, value


def _add_tokenize_options(parser: argparse.ArgumentParser) -> None:
    from mtdiag.tokenize import DEFAULT_TOKENIZER, TOKENIZERS

    parser.add_argument("--tokenize", default=DEFAULT_TOKENIZER, choices=TOKENIZERS,
                        help="sacrebleu tokenizer for mtdiag's metrics (default: %(default)s)")
    parser.add_argument("--no-lowercase", action="store_true",
                        help="keep case (default: lower-case before OTEM/UTEM/WAFT/NEVA/terms/n-grams)")


def _add_format(parser: argparse.ArgumentParser, choices=("json", "tsv")) -> None:
    parser.add_argument("--format", default="json", choices=choices, help="output format (default: %(default)s)")


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
    score.add_argument("--metrics", help=f"comma-separated subset of: {', '.join(REGISTRY)} (default: all the inputs allow)")
    _add_tokenize_options(score)
    score.add_argument("--tgt-lang", help="target language code (stop words of term window overlap)")
    score.add_argument("--otem-order", type=int, default=2, help="OTEM maximum n-gram order (default: %(default)s)")
    score.add_argument("--utem-order", type=int, default=4, help="UTEM maximum n-gram order (default: %(default)s)")
    score.add_argument("--segments", action="store_true", help="also print one score per segment")
    _add_format(score)
    score.set_defaults(handler=_score)

    serve = commands.add_parser("serve", help="start the dashboard")
    serve.add_argument("--data", metavar="DIR", help="open this test-set folder (default: the sample data)")
    serve.add_argument("--port", type=int, default=8501)
    serve.set_defaults(handler=_serve)
    return parser


def _load(args) -> "EvalSet":
    from mtdiag.io import load_files

    refs: dict[str, str] = {}
    for path in args.ref:
        name = Path(path).stem
        while name in refs:
            name += "'"
        refs[name] = path
    hyps: dict[str, str] = {}
    for name, path in args.hyp:
        if name in hyps:
            raise CliError(f"{path}: system name {name!r} is used twice (also for {hyps[name]})")
        hyps[name] = path
    return load_files(src=args.src, refs=refs, hyps=hyps, name="cli", lang_pair=None)


def _json_value(value: float):
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _score(args) -> str:
    from mtdiag.api import Options, evaluate

    metrics = tuple(m.strip() for m in args.metrics.split(",") if m.strip()) if args.metrics else None
    options = Options(tokenize=args.tokenize, lowercase=not args.no_lowercase, metrics=metrics,
                      otem_order=args.otem_order, utem_order=args.utem_order, tgt_lang=args.tgt_lang)
    evalset = _load(args)
    for warning in evalset.warnings:
        print(f"mtdiag: warning: {warning}", file=sys.stderr)
    report = evaluate(evalset, options)
    if args.format == "json":
        out = {"corpus": {s: {m: _json_value(float(v)) for m, v in row.items()} for s, row in report.corpus.iterrows()}}
        if args.segments:
            out["segments"] = {
                s: {m: [_json_value(float(v)) for v in report.segments.loc[s, m]] for m in report.metrics}
                for s in report.evalset.systems
            }
        return json.dumps(out, ensure_ascii=False)
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
