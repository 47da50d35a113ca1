"""The Compare page: two systems per metric, the segments where their outputs differ most, and the words where
the two outputs differ (the paired tests themselves are :mod:`mtdiag.analysis.significance`'s)."""

from __future__ import annotations

import numpy as np
import pandas as pd

from mtdiag.core.highlight import Span
from mtdiag.metrics import metric_info
from mtdiag.views.base import (TEST_METHODS, Chart, Table, View, ViewOption, first_metric, other_system,
                               systems)
from mtdiag.views.detail import SideTokens, side_tokens
from mtdiag.views.reference_notes import compare_note


def closeness_metrics(report) -> list[str]:
    """The metrics that can say which of two outputs is better: segment scores with a better direction.

    Better: closer to the reference, or without one to the other systems' outputs."""
    return [m for m in report.metrics if metric_info(m, report).has_direction and metric_info(m, report).segment_level
            and m in report.segments.columns]


def corpus_differences(report, a: str, b: str) -> pd.DataFrame:
    """Per metric: the corpus scores of systems ``a`` and ``b``, ``a − b`` and which one is better."""
    rows = []
    for metric in report.metrics:
        va, vb = float(report.corpus.at[a, metric]), float(report.corpus.at[b, metric])
        diff = va - vb
        info = metric_info(metric, report)
        if not info.has_direction:
            better = "—"
        else:
            better = "tie" if np.isclose(diff, 0, atol=1e-12) else (a if (diff > 0) == info.higher_is_better else b)
        rows.append({"metric": metric, "label": info.label, a: va, b: vb, "difference": diff,
                     "better": better})
    return pd.DataFrame(rows)


def pair_differences(report, a: str, b: str, sig: pd.DataFrame | None = None) -> pd.DataFrame:
    """Per metric: A's and B's corpus scores, ``difference`` (A − B), ``better`` and, given ``sig``, the paired test.

    ``sig``: a frame of :func:`mtdiag.analysis.significance.significance` with ``b`` as the baseline; it adds the
    paired test's ``p`` and ``significant``. ``better`` names the system the metric prefers ("tie" when equal)."""
    frame = corpus_differences(report, a, b)
    if sig is not None:
        frame["p"] = [float(sig.at[(a, m), "p"]) if (a, m) in sig.index else np.nan for m in frame["metric"]]
        frame["significant"] = [bool(sig.at[(a, m), "significant"]) if (a, m) in sig.index else False
                                for m in frame["metric"]]
    return frame


def closer_to(report) -> str:
    """What the ``closer`` column's output is closer to, in words: the reference(s) or the other systems' outputs.

    The other systems' outputs without a reference, where the only metric is consensus. The page never says
    "reference" of data that has none."""
    if report.evalset.has_references:
        return "closer to the reference" + ("s" if len(report.evalset.ref_names) > 1 else "")
    return "closer to the other systems' outputs (no reference)"


def closer_to_reference(report, a: str, b: str, metric: str) -> pd.Series:
    """Per segment (0-based index): which of the two outputs ``metric`` puts closer to the reference(s).

    ``a``, ``b``, or ``"tie"`` (equal scores, or a score undefined on either side); without a reference, closer to
    the other systems' outputs (:func:`closer_to`). Direction-aware (:class:`MetricInfo`); a metric without a better
    direction (the length ratio) says ``"tie"`` everywhere."""
    seg = report.segments[metric]
    va, vb = seg.xs(a, level="system"), seg.xs(b, level="system")
    info = metric_info(metric, report)
    if not info.has_direction:
        return pd.Series("tie", index=va.index, name="closer")
    advantage = info.oriented(va) - info.oriented(vb)  # > 0: a is better
    closer = np.where(advantage > 0, a, np.where(advantage < 0, b, "tie"))
    return pd.Series(closer, index=va.index, name="closer").where(advantage.notna(), "tie")


def segment_differences(report, a: str, b: str, metric: str) -> pd.DataFrame:
    """The segments where systems ``a`` and ``b`` differ most, first, with both outputs side by side.

    **Ranking**: largest ``|problem_difference|`` first, the difference of the two outputs' problem scores
    (:func:`mtdiag.triage.ranking.problem_scores`: each output's badness among every output of this test set, the score
    the worst-first queue sorts by) — "one output is fine, the other one is bad". Not the difference of one segment
    metric: a segment score swings from 0 to 100 on a two-word greeting ("Good day" vs "Hello": chrF 0 against 100),
    so ranking by |ΔchrF| filled the top with short segments, while the problem score's percentiles weigh a
    greeting's swing against every other output's (and a problem score that grows with the length an error can
    span weighs it less still). Figures: ``docs/dashboard.md`` (Compare), ``benchmarks/compare_ranking.py``.

    Columns: ``seg``, ``closer`` (:func:`closer_to_reference` by ``metric``: which output is closer to the
    reference, or without one to the other systems' outputs), ``problem A``/``problem B`` (named ``problem
    <system>``), ``problem_difference`` (A − B; > 0: A is worse), ``metric`` of both (``<metric> <system>``),
    ``difference`` (A − B) and ``advantage`` (positive = A better, direction-aware), then the source, the first
    reference (when there is one) and both outputs (``src``, ``ref``, ``hyp <system>``; whole: a table cell shows
    :data:`mtdiag.views.TABLE_TEXT` characters of them). Ties keep segment order."""
    from mtdiag.triage.ranking import problem_scores

    problem = problem_scores(report)["problem"]
    pa, pb = problem.xs(a, level="system"), problem.xs(b, level="system")
    seg = report.segments[metric]
    va, vb = seg.xs(a, level="system"), seg.xs(b, level="system")
    diff = (va - vb).to_numpy()
    evalset = report.evalset
    frame = pd.DataFrame({"seg": va.index, "closer": closer_to_reference(report, a, b, metric).to_numpy(),
                          f"problem {a}": pa.to_numpy(), f"problem {b}": pb.to_numpy(),
                          "problem_difference": (pa - pb).to_numpy(), f"{metric} {a}": va.to_numpy(),
                          f"{metric} {b}": vb.to_numpy(), "difference": diff,
                          "advantage": metric_info(metric, report).sign * diff})
    frame["src"] = evalset.src.astype(str).to_numpy()
    if evalset.has_references:
        frame["ref"] = evalset.refs[evalset.ref_names[0]].astype(str).to_numpy()
    frame[f"hyp {a}"] = evalset.hyps[a].astype(str).to_numpy()
    frame[f"hyp {b}"] = evalset.hyps[b].astype(str).to_numpy()
    frame["_abs"] = frame["problem_difference"].abs()
    frame = frame.sort_values(["_abs", "seg"], ascending=[False, True], kind="stable").drop(columns="_abs")
    return frame.reset_index(drop=True)


def hypothesis_diff(report, a: str, b: str, seg: int) -> tuple[SideTokens, SideTokens, list[Span], list[Span]]:
    """The two systems' tokens for one segment, and spans marking the tokens the other system does not share.

    The spans come from a word-level Levenshtein alignment of the two hypotheses."""
    from mtdiag.core.highlight import diff_spans
    from mtdiag.metrics.waft_neva import aligned_tokens

    ta, tb = side_tokens(report, a, seg), side_tokens(report, b, seg)
    ops = [(op, hp, rp) for op, _, _, hp, rp in aligned_tokens(ta.matched, tb.matched)]
    return ta, tb, diff_spans(ops, "a"), diff_spans(ops, "b")


# ----------------------------------------------------------------------------------------------- the view


def metric_differences(report, a: str, b: str, method: str) -> pd.DataFrame:
    """:func:`pair_differences` of ``a`` and ``b`` with the paired test (``method``, B as the baseline)."""
    from mtdiag.analysis.significance import significance

    return pair_differences(report, a, b, significance(report, b, method, systems=(a,)))


def _difference(report, chosen):
    from mtdiag.views.charts import difference_area

    a, b = chosen["a"], chosen["b"]
    return difference_area(segment_differences(report, a, b, chosen["metric"]), a, b, seg_ids=report.evalset.seg_ids)


def _segments_caption(report, chosen, frame) -> str:
    return ("Largest difference of the two outputs' problem scores first (each output's badness among every output of "
            "this set, as in the Segments queue): one output fine and the other bad comes first, not a two-word "
            "greeting whose single-metric score swings from 0 to 100. 'closer' names the output the chosen metric "
            f"puts {closer_to(report)}; the chart shows that metric's advantage per segment.")


VIEW = View(
    name="compare", title="Compare",
    help="two systems: every metric's difference with its paired test, and the segments where their outputs "
         "differ most",
    about="Two systems side by side: the difference of every metric with its paired test, the segments where their "
          "outputs differ most, and both outputs of a segment with their differences marked.",
    needs=("two_systems",),
    options=(
        ViewOption("a", "System A", choices=systems),
        ViewOption("b", "System B", choices=other_system("a")),
        ViewOption("method", "Test", "the paired test, B as the baseline", choices=tuple(TEST_METHODS),
                   describe=TEST_METHODS),
        ViewOption("metric", "Better output by", "the metric that says which of the two outputs is better: the one "
                   "closer to the reference(s), or without a reference to the other systems' outputs (consensus)",
                   choices=lambda report, chosen: closeness_metrics(report), of="metric",
                   default=first_metric(lambda report, chosen: closeness_metrics(report)),
                   empty="No segment metric with a better direction was computed for this data."),
    ),
    tables=(
        Table("metrics", "Per metric", lambda report, chosen: metric_differences(report, chosen["a"], chosen["b"],
                                                                                chosen["method"]),
              uses=("a", "b", "method"),
              caption="difference = A − B; p from the paired test with B as the baseline; 'better' names the system "
                      "the metric prefers (p < 0.05: significant)."),
        Table("segments", "Segments where they differ most",
              lambda report, chosen: segment_differences(report, chosen["a"], chosen["b"], chosen["metric"]),
              uses=("a", "b", "metric"), caption=_segments_caption),
    ),
    charts=(Chart("difference", "Advantage per segment", _difference, uses=("a", "b", "metric")),),
    details={"differences": hypothesis_diff, "closer_to": closer_to, "bias_note": compare_note},
    in_report=False,
)
