"""The meta-evaluation statistics (``mtdiag.analysis.metrics_vs_humans`` / ``meta_statistics``) against an oracle
written here with plain loops over items and pairs — as mt-metrics-eval's ``stats.Agreement``,
``tau_optimization`` and Pearson define them — on the invented release ``tests/data/wmt99`` whose files are read
here independently of mtdiag.io; then the view, the command line and the report."""

from __future__ import annotations

import itertools
import json
import subprocess
import sys

import numpy as np
import pytest

from mtdiag.analysis import meta_statistics as ms
from mtdiag.analysis import metrics_vs_humans as mvh
from mtdiag.io.mtme import LayoutChoice, load_mtme, open_layout
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.slices import slice_report
from tests.conftest import DATA, REPO
from tests.test_mtme_layout import SYSTEMS, scores_file

WMT99 = DATA / "wmt99"
IMPORTED = ("MetA-refA", "MetB-src", "MetC-refB")


# ------------------------------------------------------------------------------------------------ the oracle


def pearson(x, y) -> float:
    x, y = np.asarray(x, float), np.asarray(y, float)
    if len(x) < 2 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return float("nan")
    return float(np.corrcoef(x, y)[0, 1])


def items(human, metric, segments):
    """(h, m) of every (system, segment) both score, segments in ``segments`` (with repeats, for a resample)."""
    return [(human[s][i], metric[s][i]) for i in segments for s in human
            if s in metric and not np.isnan(human[s][i]) and not np.isnan(metric[s][i])]


def segment_pearson(human, metric, segments) -> float:
    found = items(human, metric, segments)
    return pearson([h for h, _ in found], [m for _, m in found])


def within_accuracy(human, metric, segments) -> float:
    """Per segment: pairs the humans tell apart, 1 if ordered alike, ½ for a metric tie; mean over segments."""
    per_segment = []
    for i in segments:
        credit = pairs = 0
        for a, b in itertools.combinations(human, 2):
            ha, hb, ma, mb = human[a][i], human[b][i], metric[a][i], metric[b][i]
            if np.isnan([ha, hb, ma, mb]).any() or ha == hb:
                continue
            pairs += 1
            credit += 0.5 if ma == mb else float((ha > hb) == (ma > mb))
        if pairs:
            per_segment.append(credit / pairs)
    return float(np.mean(per_segment))


def acc_t(human, metric, segments) -> tuple[float, float]:
    """WMT23's acc-t by brute force: every candidate ε (0 and each |Δm|), acc₂₃ averaged over segments."""
    pairs = {i: [] for i in segments}
    for i in segments:
        for a, b in itertools.combinations(human, 2):
            values = [human[a][i], human[b][i], metric[a][i], metric[b][i]]
            if not np.isnan(values).any():
                pairs[i].append((values[0] - values[1], values[2] - values[3]))
    pairs = {i: p for i, p in pairs.items() if p}
    best = (-1.0, 0.0)
    for epsilon in sorted({0.0, *(abs(dm) for p in pairs.values() for _, dm in p)}):
        scores = [np.mean([(dh == 0) if abs(dm) <= epsilon else (dh != 0 and np.sign(dh) == np.sign(dm))
                           for dh, dm in p]) for p in pairs.values()]
        if np.mean(scores) > best[0] + 1e-15:
            best = (float(np.mean(scores)), epsilon)
    return best


def system_accuracy(human_system: dict, metric_system: dict) -> float:
    """Over the pairs of the set's systems scored by both sides (human outputs are not in the set)."""
    agree = total = 0
    for a, b in itertools.combinations([s for s in SYSTEMS if s in human_system and s in metric_system], 2):
        total += 1
        agree += np.sign(human_system[a] - human_system[b]) == np.sign(metric_system[a] - metric_system[b])
    return agree / total


def rated_mean(values, segments) -> float:
    kept = [values[i] for i in segments if not np.isnan(values[i])]
    return float(np.mean(kept)) if kept else float("nan")


# ------------------------------------------------------------------------------------------------ fixture data


@pytest.fixture(scope="module")
def report():
    evalset = load_mtme(open_layout(WMT99), LayoutChoice(lp="en-de"))
    return evaluate(evalset, Options(metrics=(*IMPORTED, "MetD-refA", "chrf", "ter")))


def human_scores() -> dict[str, list[float]]:
    mqm = scores_file(WMT99 / "human-scores/en-de.mqm.seg.score")
    return {s: mqm[s] for s in SYSTEMS}


def metric_scores(name: str) -> dict[str, list[float]]:
    found = scores_file(WMT99 / f"metric-scores/en-de/{name}.seg.score")
    return {s: found[s] for s in SYSTEMS}


def published(path) -> dict[str, float]:
    return {s: float(v) for s, v in (line.split("\t") for line in (WMT99 / path).read_text().splitlines())}


def test_every_statistic_equals_the_oracle(report):
    table = mvh.metric_table(report, samples=50, seed=3).set_index("metric")
    human, everything = human_scores(), range(8)
    human_system = published("human-scores/en-de.mqm.sys.score")
    for name in IMPORTED:
        metric = metric_scores(name)
        row = table.loc[name]
        assert row["segment_pearson"] == pytest.approx(segment_pearson(human, metric, everything), abs=1e-12)
        assert row["within_segment_accuracy"] == pytest.approx(within_accuracy(human, metric, everything), abs=1e-12)
        accuracy, epsilon = acc_t(human, metric, everything)
        assert (row["acc_t"], row["acc_t_epsilon"]) == pytest.approx((accuracy, epsilon), abs=1e-12)
        metric_system = published(f"metric-scores/en-de/{name}.sys.score")  # the release's, not the mean
        assert row["system_accuracy"] == pytest.approx(system_accuracy(human_system, metric_system), abs=1e-12)
        shared = [s for s in SYSTEMS if s in metric_system]
        assert row["system_pearson"] == pytest.approx(
            pearson([human_system[s] for s in shared], [metric_system[s] for s in shared]), abs=1e-12)
        assert row["items"] == len(items(human, metric, everything))
    assert table.loc["MetA-refA", "items"] == 30  # 31 rated outputs, sysB's 7th has no MetA score
    assert table.loc["MetD-refA", "system_accuracy"] == pytest.approx(
        system_accuracy(human_system, published("metric-scores/en-de/MetD-refA.sys.score")))
    assert np.isnan(table.loc["MetD-refA", "segment_pearson"])  # no segment scores: no segment statistics


def test_the_tools_own_metrics_are_on_trial_too(report):
    table = mvh.metric_table(report, samples=20).set_index("metric")
    human = human_scores()
    chrf = {s: report.segments["chrf"].loc[s].tolist() for s in SYSTEMS}
    ter = {s: (-report.segments["ter"].loc[s]).tolist() for s in SYSTEMS}  # lower is better: turned
    assert table.loc["chrf", "segment_pearson"] == pytest.approx(segment_pearson(human, chrf, range(8)), abs=1e-12)
    assert table.loc["ter", "within_segment_accuracy"] == pytest.approx(within_accuracy(human, ter, range(8)))
    assert table.loc["chrf", "source"] == "mtdiag" and table.loc["MetA-refA", "source"] == "imported"
    human_system = published("human-scores/en-de.mqm.sys.score")
    assert table.loc["ter", "system_accuracy"] == pytest.approx(system_accuracy(
        human_system, {s: -report.corpus.at[s, "ter"] for s in SYSTEMS}))


def test_the_bootstrap_is_resampling_source_segments(report):
    """Each resample's statistics equal the oracle's on the segments drawn (a segment drawn twice counts twice);
    the system level of a resample uses means (the published scores describe the whole set)."""
    samples, seed = 12, 7
    weights = ms.resample_weights(8, samples, seed)
    ev = mvh.evidence(report)
    draws = mvh.statistics_under(report, ev, mvh.segment_terms(ev), weights)
    human = human_scores()
    for name in ("MetA-refA", "MetC-refB"):
        j, metric = ev.metrics.index(name), metric_scores(name)
        for r in range(samples):
            drawn = np.repeat(np.arange(8), weights[r].astype(int))
            assert draws["segment_pearson"][r, j] == pytest.approx(segment_pearson(human, metric, drawn), abs=1e-12)
            assert draws["within_segment_accuracy"][r, j] == pytest.approx(within_accuracy(human, metric, drawn))
            means_h = {s: rated_mean(human[s], drawn) for s in SYSTEMS}
            means_m = {s: rated_mean(metric[s], drawn) for s in SYSTEMS}
            assert draws["system_accuracy"][r, j] == pytest.approx(system_accuracy(means_h, means_m))
    table = mvh.metric_table(report, samples=200, seed=1).set_index("metric")
    low, high = table.loc["MetA-refA", ["segment_pearson_low", "segment_pearson_high"]]
    assert low < table.loc["MetA-refA", "segment_pearson"] < high


def test_clusters_are_wmts_assign_ranks_on_bootstrap_p_values():
    rng = np.random.default_rng(0)
    point = np.array([0.9, 0.85, 0.5, 0.48, np.nan])
    draws = point + rng.normal(0, 0.03, size=(400, 5))
    ranks, p = ms.rank_clusters(point, draws, 0.05)
    order = [0, 1, 2, 3]
    expected, rank, start = {}, 1, 0  # mt-metrics-eval's AssignRanks, as written there
    for position, j in enumerate(order):
        if any(np.mean(draws[:, j] >= draws[:, i]) <= 0.05 for i in order[start:position]):
            rank, start = rank + 1, position
        expected[j] = rank
    assert [ranks[j] for j in order] == [expected[j] for j in order] and np.isnan(ranks[4])
    assert ranks[0] == 1 and ranks[2] > ranks[0]


def test_acc_t_brute_force_on_ties():
    """Tie calibration against brute force where ties abound on both sides (integers)."""
    rng = np.random.default_rng(5)
    h = rng.integers(-3, 1, size=(5, 40)).astype(float)
    m = rng.integers(0, 4, size=(5, 40)).astype(float)
    h[0, :5] = np.nan
    m[2, 10:12] = np.nan
    accuracy, epsilon, _ = ms.tie_calibrated_accuracy(ms.human_pairs(h), m)
    human = {k: h[k].tolist() for k in range(5)}
    assert (accuracy, epsilon) == pytest.approx(acc_t(human, {k: m[k].tolist() for k in range(5)}, range(40)))


def test_a_slice_and_a_group_give_the_slices_figures(report):
    news = slice_report(report, np.arange(8) < 4)
    table = mvh.metric_table(news, samples=20).set_index("metric")
    human, metric = human_scores(), metric_scores("MetB-src")
    assert table.loc["MetB-src", "segment_pearson"] == pytest.approx(segment_pearson(human, metric, range(4)))
    means_h = {s: rated_mean(human[s], range(4)) for s in SYSTEMS}  # no published score on a slice: the means
    means_m = {s: rated_mean(metric[s], range(4)) for s in SYSTEMS}
    assert table.loc["MetB-src", "system_accuracy"] == pytest.approx(system_accuracy(means_h, means_m))
    groups = mvh.group_table(report, np.array(["news"] * 4 + ["social"] * 4, dtype=object), ["news", "social"])
    row = groups[(groups["group"] == "social") & (groups["metric"] == "MetB-src")].iloc[0]
    assert row["within_segment_accuracy"] == pytest.approx(within_accuracy(human, metric, range(4, 8)))
    assert (row["segments"], row["items"]) == (4, len(items(human, metric, range(4, 8))))


def test_disagreements_worst_first_with_the_spans(report):
    frame = mvh.disagreements(report, "MetA-refA", top=3)
    human, metric = human_scores(), metric_scores("MetA-refA")
    keyed = [(s, i) for s in SYSTEMS for i in range(8) if not np.isnan(human[s][i]) and not np.isnan(metric[s][i])]
    h = np.array([human[s][i] for s, i in keyed])
    m = np.array([metric[s][i] for s, i in keyed])
    rank = lambda v: np.array([(np.sum(v < x) + (np.sum(v == x) + 1) / 2) / len(v) for x in v])  # noqa: E731
    gaps = rank(m) - rank(h)
    worst = max(range(len(keyed)), key=lambda k: abs(gaps[k]))
    assert (frame.iloc[0]["system"], frame.iloc[0]["seg"]) == keyed[worst]
    assert frame.iloc[0]["gap"] == pytest.approx(gaps[worst])
    assert list(abs(frame["gap"])) == sorted(abs(frame["gap"]), reverse=True)
    sysd = mvh.disagreements(report, "MetA-refA", top=100).set_index(["system", "seg"])
    assert sysd.loc[("sysD", 0), "human_errors"] == ("major Accuracy/Omission “on the warm”; "
                                                    "major Accuracy/Omission “windowsill”")


def test_the_view_the_command_line_and_the_report(report, tmp_path):
    from mtdiag.views import REGISTRY

    view = REGISTRY["meta_evaluation"]
    chosen = view.resolve(report, {"samples": 30})
    frames = view.frames(report, chosen)
    assert set(frames) == {"metrics", "groups", "disagreements", "systems"}
    assert chosen["group_by"] == "label:domain" and chosen["metric"] == "MetA-refA"
    systems = frames["systems"].set_index("system")
    assert systems.loc["sysD", "published"] == pytest.approx(-43 / 7) and systems.loc["sysD", "rated"] == 7
    assert not systems.loc["refA", "in_set"]
    run = subprocess.run([sys.executable, "-m", "mtdiag", "view", "meta_evaluation", "--testset", str(WMT99), "--lp",
                          "en-de", "--metrics", ",".join(IMPORTED), "--samples", "30", "--table", "metrics",
                          "--format", "json"], capture_output=True, text=True, cwd=REPO, timeout=300)
    assert run.returncode == 0, run.stderr
    rows = {row["metric"]: row for row in json.loads(run.stdout)["tables"]["metrics"]}
    assert rows["MetA-refA"]["system_accuracy"] == pytest.approx(frames["metrics"].set_index("metric").loc[
        "MetA-refA", "system_accuracy"])
