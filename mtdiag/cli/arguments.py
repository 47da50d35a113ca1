"""The options commands share, declared once and generated from the registries where there is one: the inputs
(separate files or ``--testset``), the input limits, the scores and annotations added to them, the tokenisation,
one ``--METRIC-OPTION`` flag per option of the metric registry, the paired tests, ``--where`` and ``--format``.

Nothing here reads a file: :mod:`mtdiag.cli.load` does, once per run.
"""

from __future__ import annotations

import argparse

HUMAN_HELP = ("human scores (system, seg_id, score), or an MQM/ESA error file (its segment scores, as --annotations "
              "derives them)")


def named_file(value: str) -> tuple[str, str]:
    """``NAME=FILE`` -> (name, file); a bare FILE is named after its file name.

    The name of a bare FILE comes from :mod:`mtdiag.io.naming` (``newstest2021.en-de.Facebook-AI.txt`` ->
    ``Facebook-AI``)."""
    from mtdiag.io import system_name_from_file

    if "=" in value:
        name, path = value.split("=", 1)
        if not name:
            raise argparse.ArgumentTypeError(f"{value!r}: the system name before '=' is empty")
        return name, path
    return system_name_from_file(value), value



def add_tokenize_options(parser: argparse.ArgumentParser) -> None:
    """The tokenisation flags: ``--tokenize``, ``--no-lowercase`` and ``--keep-typography``."""
    from mtdiag.core.tokenize import TOKENIZERS

    parser.add_argument("--tokenize", default=None, choices=TOKENIZERS,
                        help="sacrebleu tokenizer (default: 13a; ja-mecab for Japanese and zh for Chinese targets)")
    parser.add_argument("--no-lowercase", action="store_true",
                        help="keep case (default: lower-case before OTEM/UTEM/WAFT/NEVA/terms/n-grams)")
    parser.add_argument("--keep-typography", action="store_true",
                        help="compare quotes, apostrophes, dashes and full-width forms as written (default: "
                             "normalised before OTEM/UTEM/WAFT/NEVA/terms/n-grams, so don’t = don't; BLEU, chrF "
                             "and TER always see the texts as written)")


def add_testset_option(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``--testset PATH`` (``note`` ends its help), with the layout flags and the input limits."""
    parser.add_argument("--testset", metavar="PATH", help="the whole test set instead of separate files: a folder, "
                        "WMT XML (.xml), SGML (.sgm, or a folder of them), TSV/CSV/JSONL with named columns; any of "
                        "them .gz; or a year of WMT's mt-metrics-eval layout (wmt23/, or a .zip/.tar.gz of it) with "
                        "--lp" + (f"; {note}" if note else ""))
    add_layout_options(parser)
    add_limit_options(parser)


def add_layout_options(parser: argparse.ArgumentParser) -> None:
    """What to open of a WMT release in the mt-metrics-eval layout (:class:`mtdiag.io.mtme.LayoutChoice`)."""
    group = parser.add_argument_group("a WMT release in the mt-metrics-eval layout (--testset wmt23/ or a .zip)")
    group.add_argument("--lp", metavar="LP", help="the language pair, e.g. en-de (needed when the release has several)")
    group.add_argument("--human-type", metavar="TYPE", help="the human scores taken as 'human': mqm, da-sqm, esa, … "
                       "(default: mqm when present, else the first by name)")
    group.add_argument("--references", metavar="LIST", type=name_list, help="the references the set keeps, e.g. refB "
                       "(default: every reference not included as an output, except synthetic_ref); metric files that "
                       "used another reference are left out, as WMT does")
    group.add_argument("--include-outputs", metavar="LIST", type=name_list, default=(),
                       help="human outputs (system-outputs named after a reference, synthetic_ref) to score as "
                       "systems, e.g. refA (default: none, as WMT leaves them out)")


def name_list(text: str) -> tuple[str, ...]:
    """``refA,refB`` -> ("refA", "refB"): names, each once, in the order given."""
    names = tuple(dict.fromkeys(part.strip() for part in text.split(",") if part.strip()))
    if not names:
        raise argparse.ArgumentTypeError(f"{text!r}: give at least one name")
    return names


def layout_choice(args):
    """The :class:`mtdiag.io.mtme.LayoutChoice` of the layout flags (:func:`add_layout_options`)."""
    from mtdiag.io.mtme import LayoutChoice

    return LayoutChoice(lp=getattr(args, "lp", None), human=getattr(args, "human_type", None),
                        references=getattr(args, "references", None),
                        include=tuple(getattr(args, "include_outputs", None) or ()))



def add_limit_options(parser: argparse.ArgumentParser) -> None:
    """The input limits (:class:`mtdiag.io.Limits`, docs/inputs.md): every command that reads files has them."""
    group = parser.add_argument_group("input limits (a file over one is refused before it is parsed; default: the "
                                      "environment variable, else the built-in default)")
    for flag, help_text in (("--max-file-mb", "size of one file in MB, for .gz its inflated size (MTDIAG_MAX_FILE_MB; "
                                              "default 200)"),
                            ("--max-rows", "lines of one file (MTDIAG_MAX_ROWS; default 2,000,000)"),
                            ("--max-cells", "table cells (rows x columns) of one file, or XML/SGML tags "
                                            "(MTDIAG_MAX_CELLS; default 20,000,000)"),
                            ("--max-segment-chars", "characters of one segment or table cell "
                                                    "(MTDIAG_MAX_SEGMENT_CHARS; default 1,000,000)"),
                            ("--max-columns", "columns of one table (MTDIAG_MAX_COLUMNS; default 1,000)")):
        group.add_argument(flag, type=int, metavar="N", help=help_text.replace("%", "%%"))



def add_scores_option(parser: argparse.ArgumentParser) -> None:
    """The flags of the scores and annotations added to the test set.

    ``--annotations``, ``--error-weights``, ``--metric-spans``, ``--scores`` and ``--comet-checkpoint``."""
    parser.add_argument("--annotations", action="append", metavar="ERRORS.tsv",
                        help="human error annotations: an MQM error TSV (system, seg_id, rater, target with <v>...</v>, "
                        "category, severity) or ESA scores with error_spans (JSONL/TSV); their segment scores become the "
                        "human scores when there are none, their spans are shown (repeatable)")
    parser.add_argument("--error-weights", metavar="SCHEME|FILE",
                        help="how human error rows (MQM/ESA, of --annotations, --human or a --testset folder) become "
                        "segment scores: wmt (default: the weights of Google's WMT MQM releases), esa (severity only: "
                        "minor 1, major 5), or a TSV of rules severity, category, weight (* for any; the most "
                        "specific rule applies); docs/inputs.md lists every rule and its source")
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
    """An argparse ``type`` that parses and validates with the declaration of a metric's or a view's option
    (argparse names the flag)."""

    def parse(text: str):
        try:
            return spec.parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = spec.type.__name__  # argparse says "invalid int value" with this name
    return parse


def add_metric_options(parser: argparse.ArgumentParser) -> None:
    """One flag per declared metric option (the registry's :class:`~mtdiag.metrics.OptionSpec`).

    E.g. ``--otem-order 3``, ``--chrf-word-order 2``, ``--term-ter-cost 2``; booleans as ``--X``/``--no-X``. A flag not
    given leaves the metric's declared default."""
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



def add_format(parser: argparse.ArgumentParser, choices=("json", "tsv"), default: str = "json") -> None:
    """``--format``: one of ``choices``, ``default`` when not given."""
    parser.add_argument("--format", default=default, choices=choices, help="output format (default: %(default)s)")


def add_significance_options(parser: argparse.ArgumentParser) -> None:
    """The paired tests' flags: ``--paired-bs [N]`` / ``--paired-ar [N]``, ``--baseline NAME``, ``--seed``.

    With ``--baseline NAME``, as sacrebleu's paired tests; without it, every system against every other (ranked clusters
    and the p-value matrix, docs/significance.md)."""
    from mtdiag.analysis.significance import DEFAULT_SAMPLES, DEFAULT_SEED

    tests = parser.add_mutually_exclusive_group()
    tests.add_argument("--paired-bs", nargs="?", type=int, const=DEFAULT_SAMPLES["bs"], metavar="N",
                       help=f"paired bootstrap resampling against --baseline (without it: every pair of systems), N resamples (default: {DEFAULT_SAMPLES['bs']})")
    tests.add_argument("--paired-ar", nargs="?", type=int, const=DEFAULT_SAMPLES["ar"], metavar="N",
                       help=f"paired approximate randomisation against --baseline (without it: every pair), N trials (default: {DEFAULT_SAMPLES['ar']})")
    parser.add_argument("--baseline", metavar="NAME", help="the system the paired tests compare every other system with")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed of the paired tests (default: %(default)s)")



def add_input_options(parser: argparse.ArgumentParser) -> None:
    """The inputs and scoring options of ``score`` (and of every command that scores like it).

    The parser is used before the registry is imported, so a command this run does not use stops here
    (:class:`mtdiag.cli.base.Unfilled`)."""
    parser.add_argument("--ref", action="append", metavar="REF.txt", help="reference file (repeatable)")
    from mtdiag.metrics import REGISTRY

    parser.add_argument("--hyp", action="append", type=named_file, metavar="NAME=FILE",
                        help="system output (repeatable)")
    add_testset_option(parser)
    parser.add_argument("--src", metavar="SRC.txt", help="source file (optional)")
    parser.add_argument("--terms", metavar="TERMS", help="terms TSV (seg_id, src_term, tgt_term) or glossary TSV "
                        "(source, target); inline <term> tags in source/reference lines are read without it")
    parser.add_argument("--metrics", help=f"comma-separated subset of: {', '.join(REGISTRY)} (default: all the "
                        "inputs allow)")
    add_tokenize_options(parser)
    parser.add_argument("--tgt-lang", help="target language code (stop words of term window overlap)")
    add_scores_option(parser)
    parser.add_argument("--dask", metavar="ADDRESS", help="compute on a Dask cluster: a scheduler address "
                        "(tcp://host:8786), or local / local:N for a local cluster of N worker processes; the "
                        "numbers are identical to a single-process run")
    add_metric_options(parser)


def add_where_option(parser: argparse.ArgumentParser) -> None:
    """``--where EXPR``: only the segments the expression selects, every system kept (docs/slices.md)."""
    parser.add_argument("--where", metavar="EXPR", help="only the segments this expression selects, every system "
                        "kept (docs/slices.md): e.g. 'seg_id <= 500', 'doc == \"talk.2\"', 'chrf[A] < 40 and "
                        "src_len >= 20'; everything is recomputed on them from the statistics already computed")



def add_view_option(parser, option, flag: str | None = None, help_text: str | None = None) -> None:
    """One flag for one option a view declares (:class:`mtdiag.views.ViewOption`), made from its declaration.

    Its help and parsing come from the declaration: ``--NAME VALUE`` (or ``flag``; comma-separated for several),
    booleans as ``--NAME``/``--no-NAME``. The value lands in ``view_option:NAME`` (None: not given); ``help_text``
    replaces the declared help."""
    dest = f"view_option:{option.name}"
    fixed = option.offered(None, {}) if option.choices is not None and not callable(option.choices) else None
    text = help_text or option.help or option.label
    if fixed is not None:
        text += f"; one of {', '.join(map(str, fixed))}"
    elif option.type is float and all(isinstance(v, float) for v in (option.minimum, option.maximum, option.default)):
        text += f" ({option.minimum:g} to {option.maximum:g}; default: {option.default:g})"  # fixed bounds
    text = text.replace("%", "%%")
    if option.type is bool and not option.many:
        parser.add_argument(flag or option.flag, dest=dest, action=argparse.BooleanOptionalAction, default=None,
                            help=text)
    else:
        parser.add_argument(flag or option.flag, dest=dest, type=_option_type(option), default=None,
                            metavar="LIST" if option.many else option.name.upper(), help=text)


def view_options_given(args) -> dict:
    """``{option: value}`` of the view options (:func:`add_view_option`) the user gave."""
    return {dest.split(":", 1)[1]: value for dest, value in vars(args).items()
            if dest.startswith("view_option:") and value is not None}


def fixed_view_option(args, option, flag: str | None = None):
    """The value of a view option whose allowed values do not depend on the data (a number between fixed bounds).

    It is checked before any file is read: the one given (:func:`add_view_option`), else its default; ``ValueError``
    naming ``flag`` (the option's own by default) when it is out of bounds."""
    try:
        return option.resolve(None, {}, getattr(args, f"view_option:{option.name}"))
    except ValueError as exc:
        raise ValueError(str(exc).replace(option.flag, flag or option.flag, 1)) from None


def add_human_option(parser: argparse.ArgumentParser, use: str) -> None:
    """``--human SCORES.tsv``: human scores read with the test set, for ``use``.

    They are read by :func:`mtdiag.pipeline.inputs.with_human`."""
    parser.add_argument("--human", metavar="SCORES.tsv", help=f"{HUMAN_HELP}{use}")


def orders(value: str) -> tuple[int, ...]:
    """``3`` -> (3,); ``1,2,3,4`` -> (1, 2, 3, 4): n-gram orders among 1-4, each once, in the order given."""
    try:
        orders = tuple(int(part) for part in value.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{value!r}: expected an order 1-4 or a comma-separated list (1,2,3,4)")
    if not orders or any(n not in (1, 2, 3, 4) for n in orders) or len(set(orders)) != len(orders):
        raise argparse.ArgumentTypeError(f"{value!r}: orders must be among 1, 2, 3, 4, each at most once")
    return orders

