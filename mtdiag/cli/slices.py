"""``mtdiag slices --compare A B``: the slices where two systems differ most (:mod:`mtdiag.slices.finder`,
``docs/slices.md``), each printed as the ``--where`` expression that defines it."""

from __future__ import annotations

import json

from mtdiag.cli import arguments, inputs
from mtdiag.cli.base import CliError, json_value, note


def add(commands) -> None:
    slices = commands.add_parser(
        "slices", help="where do two systems differ most? candidate slices ranked, as --where expressions",
        description="Every bucket, label value, flag, human-score band and error category, and their pairwise "
                    "intersections, ranked by how far the gap between system A and B there departs from the gap on "
                    "the rest of the set (or, with --test gap, by the gap itself), with paired bootstrap p-values "
                    "corrected for the number of slices tried; each row says which way (docs/slices.md). Each slice "
                    "is printed as the expression that defines it: score --where EXPR reproduces its scores.")
    slices.add_argument("--compare", nargs=2, required=True, metavar=("A", "B"), help="the two systems")
    from mtdiag.significance import CORRECTIONS, DEFAULT_SEED  # only for this command (Unfilled)
    from mtdiag.slices.finder import DEFAULT_CORRECTION, DEFAULT_MIN_SIZE, DEFAULT_TEST, TESTS
    from mtdiag.views import DEFAULT_METRICS

    arguments.add_input_options(slices)
    arguments.add_human_option(slices, ": their bands become candidates")
    slices.add_argument("--metric", help="the metric A and B are compared by (default: "
                        f"{', else '.join(DEFAULT_METRICS)}, else the first computed)")
    slices.add_argument("--min-size", type=int, default=DEFAULT_MIN_SIZE, metavar="N",
                        help="fewest segments a slice keeps (default: %(default)s)")
    slices.add_argument("--correction", default=DEFAULT_CORRECTION, choices=list(CORRECTIONS),
                        help="multiple-comparison correction over the slices tried: bh (Benjamini-Hochberg, false "
                        "discovery rate) or holm (family-wise error) (default: %(default)s)")
    slices.add_argument("--test", default=DEFAULT_TEST, choices=list(TESTS),
                        help="departure: is the gap A - B on the slice unlike the gap on the rest of the set (paired "
                        "bootstrap of the difference of differences: where B catches up, wins, or falls further "
                        "behind); gap: is A - B != 0 on the slice (the p-value of score --where EXPR --paired-bs) "
                        "(default: %(default)s)")
    slices.add_argument("--samples", type=int, metavar="N",
                        help="bootstrap resamples per slice (default: enough for the slices tried, at least 1000: "
                             "max(1000, 2 x slices / 0.05), so that the smallest possible p survives the correction)")
    slices.add_argument("--seed", type=int, default=DEFAULT_SEED, help="random seed (default: %(default)s)")
    slices.add_argument("--top", type=int, default=20, metavar="K", help="slices shown, 0 = all (default: %(default)s)")
    arguments.add_format(slices, ("tsv", "json"), default="tsv")
    slices.set_defaults(handler=run)


def run(args) -> str:
    from mtdiag.api import available_metrics
    from mtdiag.significance import CORRECTIONS
    from mtdiag.slices import find_slices
    from mtdiag.slices.finder import TESTS
    from mtdiag.views import default_metric

    if args.top < 0:
        raise CliError(f"--top {args.top}: must be 0 (all slices) or more")
    if args.min_size < 1:
        raise CliError(f"--min-size {args.min_size}: must be at least 1")
    if args.samples is not None and args.samples < 1:
        raise CliError(f"--samples {args.samples}: must be at least 1")
    scoring = inputs.options(args)
    evalset = inputs.load(args)
    a, b = args.compare
    for system in (a, b):
        if system not in evalset.systems:
            raise CliError(f"--compare {system!r} is not a system; systems: {', '.join(evalset.systems)}")
    if a == b:
        raise CliError("--compare: name two different systems")
    metrics = scoring.metrics if scoring.metrics is not None else available_metrics(evalset)
    metric = args.metric or default_metric(metrics)
    if metric not in metrics:
        raise CliError(f"--metric {metric!r} is not computed; computed: {', '.join(metrics)}")
    inputs.print_warnings(evalset)
    evalset = inputs.with_human(args, evalset)
    report = inputs.evaluate(args, evalset, scoring)
    table = find_slices(report, a, b, metric, min_size=args.min_size, correction=args.correction, test=args.test,
                        n=args.samples, seed=args.seed, top=args.top or None)
    facts = table.attrs
    note(f"slices: {metric} on all {facts['segments']:,} segments: {a} {facts['score_a']:.4f}, {b} "
         f"{facts['score_b']:.4f}; {facts['tried']:,} slices tried (at least {args.min_size} segments), "
         f"{facts['n']:,} resamples each; {facts['significant']:,} significant after {CORRECTIONS[args.correction]}, "
         f"testing {TESTS[args.test]}")
    if args.format == "json":
        return json.dumps([{"expression": row.expression, "size": int(row.size),
                            "scores": {a: json_value(float(row.score_a)), b: json_value(float(row.score_b))},
                            "difference": json_value(float(row.difference)),
                            "rest_difference": json_value(float(row.rest_difference)),
                            "departure": json_value(float(row.departure)), "direction": row.direction,
                            "test": args.test, "p_value": json_value(float(row.p_value)),
                            "p_corrected": json_value(float(row.p_corrected)), "correction": row.correction,
                            "significant": bool(row.significant)} for row in table.itertuples(index=False)],
                          ensure_ascii=False)
    # written by hand: a TSV writer would quote the expressions' double quotes, and they are to be copied as shown
    from mtdiag.export import for_people as number, tsv_cell
    lines = ["\t".join(["expression", "size", a, b, "difference", "rest_difference", "departure", "direction",
                        "p_value", "p_corrected", "correction", "significant"])]
    lines += ["\t".join([row.expression, str(row.size), number(row.score_a), number(row.score_b),
                         number(row.difference), number(row.rest_difference), number(row.departure),
                         tsv_cell(row.direction), number(row.p_value), number(row.p_corrected),
                         row.correction, str(bool(row.significant)).lower()])
              for row in table.itertuples(index=False)]
    return "\n".join(lines)
