"""``mtdiag buckets --by LIST``: every metric per bucket of segments (compare-mt's analysis, :mod:`mtdiag.analysis.segment_groups`),
and a paired bootstrap of two systems inside each bucket. An alias of ``mtdiag view buckets``
(:mod:`mtdiag.cli.view`): one view per dimension of ``--by`` (its option ``by``), ``--compare A B`` its options
``--a A --b B`` (kept as an alias), the comparison the view's for each metric with a direction."""

from __future__ import annotations

import json

from mtdiag.cli import arguments, view
from mtdiag.cli.base import CliError


def add(commands) -> None:
    """Add the ``buckets`` command and its flags (the options of view ``buckets`` among them) to ``commands``."""
    buckets = commands.add_parser("buckets", help="every metric per bucket of segments (length, rare words, "
                                  "labels, human-score bands)")
    arguments.add_input_options(buckets)
    from mtdiag.analysis.segment_groups import DIMENSIONS  # only for this command (see mtdiag.cli.base.Unfilled)
    from mtdiag.views import REGISTRY

    arguments.add_human_option(buckets, ": the human dimension")
    buckets.add_argument("--by", default="src_length,ref_length,ref_freq",
                         help=f"comma-separated dimensions: {', '.join(n for n in DIMENSIONS if n != 'label')}, label:COLUMN "
                              "(default: %(default)s); "
                              "one table each (the view's option by)")
    buckets.add_argument("--word-counts", metavar="COUNTS.tsv", help="word<TAB>count file for ref_freq (default: "
                         "frequencies within the test set's references; the command line only — the page counts "
                         "the references)")
    buckets.add_argument("--compare", nargs=2, metavar=("A", "B"), help="also a paired bootstrap of system A "
                         "against B inside each bucket (the same as --a A --b B)")
    arguments.add_where_option(buckets)
    arguments.add_format(buckets)
    view.add_options(buckets, REGISTRY["buckets"], exclude=("by",))
    buckets.set_defaults(handler=run)


def run(args) -> str:
    """The output of ``mtdiag buckets``: every metric per bucket of each ``--by`` dimension, as JSON or TSV.

    With ``--compare`` (or ``--a``/``--b``), the paired test of the two systems inside each bucket too."""
    from mtdiag.report.export import to_json_records, to_tsv
    from mtdiag.views import REGISTRY

    dimensions = [d.strip() for d in args.by.split(",") if d.strip()]
    if not dimensions:
        raise CliError(f"--by {args.by!r}: name at least one dimension")
    given = arguments.view_options_given(args)
    if args.compare:
        given.update(a=args.compare[0], b=args.compare[1])
    compare = "a" in given or "b" in given
    buckets = REGISTRY["buckets"]
    report = view.evaluated(args, buckets)
    tables, tests = {}, {}
    for by in dimensions:
        _, frames = view.shown(args, buckets, report, ["buckets"], given={**given, "by": by}, quiet=True)
        tables[by] = _counted(args, report, by) if args.word_counts and by == "ref_freq" else frames["buckets"]
        if compare:
            tests[by] = _comparison(args, report, {**given, "by": by})
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


def _comparison(args, report, given: dict):
    """The view's two-system comparison inside each bucket of ``given["by"]`` for every metric with a direction
    (each the view's ``comparison`` table with that ``metric``), bucket by bucket."""
    import pandas as pd

    from mtdiag.views import REGISTRY

    buckets = REGISTRY["buckets"]
    metrics = buckets.option("metric").offered(report, {})
    frames = [buckets.table("comparison").make(report, buckets.resolve(report, {**given, "metric": metric}))
              for metric in metrics]
    frame = pd.concat(frames, ignore_index=True)
    order = {bucket: i for i, bucket in enumerate(dict.fromkeys(frame["bucket"]))}
    return frame.sort_values("bucket", key=lambda b: b.map(order), kind="stable", ignore_index=True)


def _counted(args, report, by: str):
    """``--word-counts``: the ref_freq buckets with word frequencies from a file (:func:`mtdiag.analysis.segment_groups.bucketing`)
    instead of the references'."""
    from mtdiag.analysis import segment_groups as bucketing

    counts = bucketing.read_word_counts(args.word_counts)
    return bucketing.bucket_scores(report, bucketing.bucketing(report, by, word_counts=counts))
