"""``mtdiag slices --compare A B``: the slices where the gap between two systems is unusual
(:mod:`mtdiag.slices.finder`, ``docs/slices.md``), each printed as the ``--where`` expression that defines it and
which way it departs. An alias of ``mtdiag view slices`` (:mod:`mtdiag.cli.view`): its flags are the view's options
(``--a``/``--b``, ``--metric``, ``--min-size``, ``--correction``, ``--test``, ``--samples``, ``--seed``),
``--compare A B`` kept as ``--a A --b B``; its rows the view's."""

from __future__ import annotations

import json

from mtdiag.cli import arguments, load, view
from mtdiag.cli.base import CliError, json_value, note


def add(commands) -> None:
    """Add the ``slices`` command and its flags (the options of view ``slices`` among them) to ``commands``."""
    slices = commands.add_parser(
        "slices", help="where is the gap between two systems unusual? candidate slices ranked, as --where expressions",
        description="Every bucket, label value, flag, human-score band and error category, and their pairwise "
                    "intersections, ranked by how far the gap between system A and B there departs from the gap on "
                    "the rest of the set (or, with --test gap, by the gap itself), with paired bootstrap p-values "
                    "corrected for the number of slices tried; each row says which way (docs/slices.md). Each slice "
                    "is printed as the expression that defines it: score --where EXPR reproduces its scores. An "
                    "alias of mtdiag view slices.")
    slices.add_argument("--compare", nargs=2, metavar=("A", "B"), help="the two systems (the same as --a A --b B)")
    arguments.add_input_options(slices)
    arguments.add_human_option(slices, ": their bands become candidates")
    slices.add_argument("--top", type=int, default=20, metavar="K", help="slices shown, 0 = all (default: %(default)s)")
    arguments.add_format(slices, ("tsv", "json"), default="tsv")
    from mtdiag.views import REGISTRY  # only for this command (see mtdiag.cli.base.Unfilled)

    view.add_options(slices, REGISTRY["slices"])
    slices.set_defaults(handler=run)


def _before(args, a: str, b: str, metric: str | None):
    """The systems and the metric checked on the loaded set, before anything is scored."""

    def check(evalset) -> None:
        from mtdiag.scoring.evaluate import default_metrics

        for system in (a, b):
            if system not in evalset.systems:
                raise CliError(f"--compare {system!r} is not a system; systems: {', '.join(evalset.systems)}")
        named = load.options(args).metrics
        metrics = list(named) if named is not None else list(default_metrics(evalset))
        if metric is not None and metric not in metrics:
            raise CliError(f"--metric {metric!r} is not computed; computed: {', '.join(metrics)}")

    return check


def _scoring(args, metric: str | None):
    """The options the finder scores with: the metrics named (``--metrics``), else only what it reads — the metric
    compared (``--metric``, else the page's default, chrF or BLEU) and the metrics the checks read, so every flag is
    a candidate as on the default report — not TER, predicted MQM or the others (on WMT23 zh-en, 1,976 segments x
    10 systems, 15.6 s of CPU before, most of it TER and the predicted spans)."""
    def options(evalset):
        from dataclasses import replace

        from mtdiag.pipeline.inputs import check_metrics
        from mtdiag.scoring.evaluate import default_metrics
        from mtdiag.views import default_metric

        given = load.options(args)
        defaults = default_metrics(evalset)
        compared = metric if metric is not None else default_metric([m for m in ("chrf", "bleu") if m in defaults])
        if given.metrics is not None or compared is None or compared not in defaults:
            return given
        return replace(given, metrics=tuple(dict.fromkeys([compared, *check_metrics(evalset)])))

    return options


def run(args) -> str:
    """The output of ``mtdiag slices``: the slices where the gap between two systems is unusual, as TSV or JSON."""
    from mtdiag.analysis.significance import CORRECTIONS
    from mtdiag.slices.finder import TESTS
    from mtdiag.views import REGISTRY

    given = arguments.view_options_given(args)
    if args.compare:
        given.update(a=args.compare[0], b=args.compare[1])
    if "a" not in given or "b" not in given:
        raise CliError("name the two systems: --compare A B (or --a A --b B)")
    a, b = given["a"], given["b"]
    if a == b:
        raise CliError("--compare: name two different systems")
    if args.top < 0:
        raise CliError(f"--top {args.top}: must be 0 (all slices) or more")
    metric = given.get("metric")
    report, chosen, frames = view.computed(args, REGISTRY["slices"], ["slices"], given=given,
                                           before=_before(args, a, b, metric), scoring=_scoring(args, metric))
    table = frames["slices"]
    facts, metric = table.attrs, chosen["metric"]
    note(f"slices: {metric} on all {facts['segments']:,} segments: {a} {facts['score_a']:.4f}, {b} "
         f"{facts['score_b']:.4f}; {facts['tried']:,} slices tried (at least {chosen['min_size']} segments), "
         f"{facts['n']:,} resamples each; {facts['significant']:,} significant after "
         f"{CORRECTIONS[chosen['correction']]}, testing {TESTS[chosen['test']]}")
    if args.top:
        table = table.head(args.top)
    if args.format == "json":
        return json.dumps([{"expression": row.expression, "size": int(row.size),
                            "scores": {a: json_value(float(row.score_a)), b: json_value(float(row.score_b))},
                            "difference": json_value(float(row.difference)),
                            "rest_difference": json_value(float(row.rest_difference)),
                            "departure": json_value(float(row.departure)), "direction": row.direction,
                            "test": chosen["test"], "p_value": json_value(float(row.p_value)),
                            "p_corrected": json_value(float(row.p_corrected)), "correction": row.correction,
                            "significant": bool(row.significant)} for row in table.itertuples(index=False)],
                          ensure_ascii=False)
    # written by hand: a TSV writer would quote the expressions' double quotes, and they are to be copied as shown
    from mtdiag.report.export import for_people as number, tsv_cell
    lines = ["\t".join(["expression", "size", a, b, "difference", "rest_difference", "departure", "direction",
                        "p_value", "p_corrected", "correction", "significant"])]
    lines += ["\t".join([row.expression, str(row.size), number(row.score_a), number(row.score_b),
                         number(row.difference), number(row.rest_difference), number(row.departure),
                         tsv_cell(row.direction), number(row.p_value), number(row.p_corrected),
                         row.correction, str(bool(row.significant)).lower()])
              for row in table.itertuples(index=False)]
    return "\n".join(lines)
