"""``mtdiag score``: corpus (and segment) scores of one or more systems, with paired significance against a
baseline or between every pair (sacrebleu's ``--paired-bs``/``--paired-ar``; ``docs/significance.md``), and the
agreement of every metric with human scores."""

from __future__ import annotations

import json

from mtdiag.cli import arguments, load
from mtdiag.cli.base import CliError, json_value, note


def add(commands) -> None:
    """Add the ``score`` command and its flags to ``commands``."""
    score = commands.add_parser("score", help="corpus (and segment) scores of one or more systems")
    arguments.add_input_options(score)
    score.add_argument("--segments", action="store_true", help="also print one score per segment")
    arguments.add_where_option(score)
    arguments.add_human_option(score, ": add each metric's correlation with them to the JSON output")
    arguments.add_significance_options(score)
    arguments.add_format(score, ("json", "tsv", "latex"))
    score.set_defaults(handler=run)


def _check_significance_args(args) -> None:
    """Clear errors for inconsistent significance options, before any scoring."""
    from mtdiag.analysis.significance import MAX_SAMPLES

    method = "bs" if args.paired_bs is not None else "ar" if args.paired_ar is not None else None
    if method is None:
        if args.baseline is not None:
            raise CliError("--baseline needs --paired-bs or --paired-ar")
        if args.format == "latex" and args.segments:
            raise CliError("--segments is not available with --format latex")
        return
    n = args.paired_bs if method == "bs" else args.paired_ar
    option = f"--paired-{method}"
    if args.seed is not None and args.seed < 0:
        raise CliError(f"--seed {args.seed:,}: a whole number from 0")
    if not 1 <= n <= MAX_SAMPLES:
        raise CliError(f"{option} {n:,}: from 1 to {MAX_SAMPLES:,} {'resamples' if method == 'bs' else 'trials'}")
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
    """The paired-test frame against ``--baseline`` (:func:`mtdiag.analysis.significance.significance`) when one was requested
    with a baseline, else None."""
    if (args.paired_bs is None and args.paired_ar is None) or args.baseline is None:
        return None
    from mtdiag.analysis.significance import significance

    method, n = ("bs", args.paired_bs) if args.paired_bs is not None else ("ar", args.paired_ar)
    return significance(report, args.baseline, method, n, args.seed)


def _pairwise(args, report):
    """``--paired-bs|--paired-ar`` without ``--baseline``: every system against every other, per metric
    (:func:`mtdiag.analysis.significance.pairwise_significance`), its ranked clusters (:func:`~mtdiag.analysis.significance.ranked_clusters`)
    and the signatures with the resampling fields; None when no such test was requested."""
    if (args.paired_bs is None and args.paired_ar is None) or args.baseline is not None:
        return None
    from mtdiag.analysis.significance import pairwise_significance, ranked_clusters, resampling_signature

    method, n = ("bs", args.paired_bs) if args.paired_bs is not None else ("ar", args.paired_ar)
    pairwise = pairwise_significance(report, method, n, args.seed)
    signatures = {metric: resampling_signature(sig, method, pairwise.attrs["n"], args.seed).format()
                  for metric, sig in report.signatures().items()}
    return pairwise, ranked_clusters(report, pairwise), signatures



def _check_human_args(args) -> None:
    if args.human and args.format != "json":
        raise CliError("--human needs --format json")


def _human_json(args, report) -> dict:
    """``{METRIC: {seg_pearson, seg_kendall, sys_pearson, sys_kendall, n_seg, n_sys}}`` against the human scores
    of ``--human``, attached to the report's set before scoring (:func:`mtdiag.pipeline.inputs.with_human`; positive =
    agrees with the humans; see :mod:`mtdiag.analysis.human_agreement`)."""
    from mtdiag.analysis.human_agreement import human_agreement

    table = human_agreement(report, report.evalset.human)
    return {metric: {k: int(v) if k.startswith("n_") else json_value(float(v)) for k, v in row.items()}
            for metric, row in table.to_dict(orient="index").items()}


def _warn_reference_bias(report) -> None:
    """On stderr: the systems a reference favours (:func:`mtdiag.analysis.reference_bias.warning`), and where to
    see the rankings without them (``mtdiag view overview``)."""
    from mtdiag.analysis import reference_bias

    if reference_bias.applies(report):
        text = reference_bias.warning(report)
        if text:
            note(f"{text} The rankings without those segments and by the other references: mtdiag view overview "
                 "--table bias_rankings (the test: --table reference_bias).")


def run(args) -> str:
    """The output of ``mtdiag score``: the scores, paired tests and agreement with humans, as JSON, TSV or LaTeX."""
    _check_significance_args(args)
    _check_human_args(args)
    whole, report = load.report(args, before=lambda evalset: _check_baseline(args, evalset.systems))
    if not whole.metrics:
        from mtdiag.scoring.evaluate import no_metric_reason

        raise CliError(no_metric_reason(whole.evalset))
    from mtdiag.analysis.significance import report_signatures
    from mtdiag.report.export import (clusters_latex, export_comparison, for_people, latex_table, pairwise_json, pairwise_tsv, significance_json)

    _warn_reference_bias(report)
    comparison, pairwise = _significance(args, report), _pairwise(args, report)
    signatures = pairwise[2] if pairwise is not None else report_signatures(report, comparison)
    if args.format == "latex":
        if pairwise is not None:
            return clusters_latex(report.corpus, pairwise[1], pairwise[0], signatures=signatures, within=report)
        return latex_table(report.corpus, comparison, signatures=signatures, within=report)
    if args.format == "json":
        out = {"corpus": {s: {m: json_value(float(v)) for m, v in row.items()} for s, row in report.corpus.iterrows()}}
        if args.segments:
            out["segments"] = {
                s: {m: [json_value(float(v)) for v in report.segments.loc[s, m]] for m in report.metrics}
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
        return export_comparison(comparison, "tsv", rounded=True).rstrip("\n")
    if pairwise is not None:
        return pairwise_tsv(pairwise[0], pairwise[1]).rstrip("\n")
    lines = ["\t".join(["system", *(["seg_id"] if args.segments else []), *report.metrics])]
    fmt = for_people
    for system, row in report.corpus.iterrows():
        lines.append("\t".join([system, *(["corpus"] if args.segments else []), *(fmt(v) for v in row)]))
        if args.segments:
            seg_ids = report.evalset.seg_ids
            for seg, seg_row in report.segments.loc[system].iterrows():
                lines.append("\t".join([system, str(seg_ids[seg]), *(fmt(v) for v in seg_row)]))
    return "\n".join(lines)
