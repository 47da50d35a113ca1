"""``mtdiag buckets --by LIST``: every metric per bucket of segments (compare-mt's analysis, :mod:`mtdiag.buckets`),
and a paired bootstrap of two systems inside each bucket."""

from __future__ import annotations

import json

from mtdiag.cli import arguments, inputs
from mtdiag.cli.base import CliError


def add(commands) -> None:
    buckets = commands.add_parser("buckets", help="every metric per bucket of segments (length, rare words, "
                                  "labels, human-score bands)")
    buckets.add_argument("--ref", action="append", metavar="REF.txt", help="reference file (repeatable)")
    from mtdiag.buckets import BY  # only for this command (see mtdiag.cli.base.Unfilled)

    buckets.add_argument("--hyp", action="append", type=arguments.named_file, metavar="NAME=FILE",
                         help="system output (repeatable)")
    arguments.add_testset_option(buckets)
    buckets.add_argument("--src", metavar="SRC.txt", help="source file (needed for src_length)")
    buckets.add_argument("--terms", metavar="TERMS", help="terms TSV or glossary TSV (as for score)")
    arguments.add_human_option(buckets, ": the human dimension")
    arguments.add_scores_option(buckets)
    buckets.add_argument("--by", default="src_length,ref_length,ref_freq",
                         help=f"comma-separated dimensions: {', '.join(BY)}, label:COLUMN (default: %(default)s)")
    buckets.add_argument("--word-counts", metavar="COUNTS.tsv", help="word<TAB>count file for ref_freq (default: "
                         "frequencies within the test set's references)")
    buckets.add_argument("--metrics", help="comma-separated metrics (default: all the inputs allow)")
    buckets.add_argument("--compare", nargs=2, metavar=("A", "B"), help="also a paired bootstrap of system A "
                         "against B inside each bucket")
    arguments.add_where_option(buckets)
    arguments.add_tokenize_options(buckets)
    buckets.add_argument("--tgt-lang", help="target language code")
    arguments.add_metric_options(buckets)
    arguments.add_format(buckets)
    buckets.set_defaults(handler=run)


def run(args) -> str:
    from mtdiag import buckets as bucketing
    from mtdiag.export import to_json_records, to_tsv

    dimensions = [d.strip() for d in args.by.split(",") if d.strip()]
    if not dimensions:
        raise CliError(f"--by {args.by!r}: name at least one dimension")
    counts = bucketing.read_word_counts(args.word_counts) if args.word_counts else None
    evalset = inputs.load(args)
    inputs.print_warnings(evalset)
    evalset = inputs.with_human(args, evalset)
    scoring = inputs.options(args)
    inputs.check_where(args, evalset, scoring)
    report = inputs.sliced(args, inputs.evaluate(args, evalset, scoring))
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

