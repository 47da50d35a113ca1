"""Sliced, threaded and Dask scoring give exactly the numbers of scoring the whole set at once (every metric,
corpus and every segment), because every metric's statistics are one row per segment (``mtdiag.scoring.chunks``)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.scoring.chunks import Execution, slices
from mtdiag.io import load_folder
from tests.conftest import DEV, SAMPLE

WHOLE = Execution(chunk=10**9, workers=1)


def assert_same(a, b):
    assert a.metrics == b.metrics
    for key, result in a.results.items():
        other = b.results[key]
        np.testing.assert_array_equal(result.stats, other.stats, err_msg=str(key))
        assert result.signature == other.signature
    pd.testing.assert_frame_equal(a.corpus, b.corpus, rtol=0, atol=0)
    pd.testing.assert_frame_equal(a.segments, b.segments, rtol=0, atol=0)


@pytest.fixture(scope="module")
def tico():
    return load_folder(DEV / "terminology" / "tico19-en-fr")  # 971 segments, terms, every default metric


@pytest.fixture(scope="module")
def tico_whole(tico):
    return evaluate(tico, execution=WHOLE)


@pytest.mark.parametrize("execution", [Execution(chunk=1, workers=1), Execution(chunk=97, workers=1),
                                       Execution(chunk=250, workers=2), Execution()])
def test_slices_and_threads_give_the_same_numbers(tico, tico_whole, execution):
    assert {"term_exact", "term_window2", "term_ter", "ter", "chrf"} <= set(tico_whole.metrics)
    assert_same(tico_whole, evaluate(tico, execution=execution))


def test_several_references_and_systems_in_slices():
    evalset = load_folder(SAMPLE / "wmt21.en-de")  # 3 references, 6 systems, human scores
    options = Options(metric_options={"chrf": {"word_order": 2}, "otem": {"order": 3}})
    assert_same(evaluate(evalset, options, execution=WHOLE),
                evaluate(evalset, options, execution=Execution(chunk=10, workers=2)))


def test_slice_bounds():
    assert slices(10, 4) == [(0, 4), (4, 8), (8, 10)]
    assert slices(0, 4) == [(0, 0)]
    assert slices(3, 0) == [(0, 1), (1, 2), (2, 3)]


def test_segment_slice_renumbers_terms(tico):
    part = tico.segment_slice(100, 200)
    assert part.n_segments == 100 and part.terms["seg"].between(0, 99).all()
    expected = tico.terms[(tico.terms["seg"] >= 100) & (tico.terms["seg"] < 200)]
    assert len(part.terms) == len(expected) and list(part.terms["seg"] + 100) == list(expected["seg"])
    assert part.refs.iloc[0, 0] == tico.refs.iloc[100, 0]


@pytest.mark.slow
def test_dask_local_cluster_gives_the_same_numbers(tico, tico_whole):
    """A real ``dask.distributed.LocalCluster`` with two worker processes on the loopback interface."""
    report = evaluate(tico, execution=Execution(dask="local:2", chunk=200))
    assert_same(tico_whole, report)


@pytest.mark.parametrize("count", ["x", "0", "-1", "1000000", "9" * 400, "٣"])
def test_dask_address_is_checked_and_a_local_cluster_bounded(count, monkeypatch):
    """``local:1000000`` started worker processes until the machine ran out; N is at most twice the cores."""
    from mtdiag.scoring import chunks

    monkeypatch.setattr(chunks.os, "cpu_count", lambda: 2)
    import dask.distributed

    monkeypatch.setattr(dask.distributed, "LocalCluster", lambda **kwargs: pytest.fail("a cluster was started"))
    with pytest.raises(ValueError, match=r"^--dask local:\S+: N from 1 to 4 worker processes \(twice this machine's "
                                         r"cores\)$"):
        chunks.dask_client(f"local:{count}")


@pytest.mark.slow
def test_cli_dask_flag_gives_the_single_process_scores(capsys):
    import json

    from mtdiag import cli

    folder = SAMPLE / "wmt21.en-de"
    base = ["score", "--ref", str(folder / "ref.A.txt"), "--ref", str(folder / "ref.C.txt"),
            "--hyp", f"x={folder / 'newstest2021.en-de.UEdin.txt'}", "--hyp", f"y={folder / 'newstest2021.en-de.Online-W.txt'}"]
    assert cli.main(base) == 0
    single = json.loads(capsys.readouterr().out)["corpus"]
    assert cli.main(base + ["--dask", "local:2"]) == 0
    assert json.loads(capsys.readouterr().out)["corpus"] == single


@pytest.mark.parametrize("execution", [Execution(chunk=250, workers=1), Execution(chunk=250, workers=2), None])
def test_progress_names_metric_and_system(execution):
    evalset = load_folder(SAMPLE / "wmt21.en-de")
    seen: list[tuple[float, str]] = []
    evaluate(evalset, Options(metrics=("bleu", "chrf")), progress=lambda f, m: seen.append((f, m)),
             execution=execution)
    n = len(evalset.systems)
    assert seen[-1] == (1.0, "done")
    messages = {m for _, m in seen[:-1]}
    assert messages  # step messages, not only "done"
    assert messages <= {f"scoring {label}: system {j} of {n}" for label in ("BLEU", "chrF") for j in range(1, n + 1)}
    fractions = [f for f, _ in seen]
    assert fractions == sorted(fractions) and 0 <= fractions[0] < 1
    if execution is None or execution.workers == 1:  # on one thread every step is reported, in order
        assert [m for _, m in seen[:-1]][:n] == [f"scoring BLEU: system {j} of {n}" for j in range(1, n + 1)]
        assert len(seen) - 1 == 2 * n * (1 if execution is None else -(-evalset.n_segments // 250))


def _assert_same_tables(single, other) -> int:
    assert other.systems == single.systems and other.orders == single.orders
    assert other.frequent_words == single.frequent_words
    rows = 0
    for system in single.systems:
        for order in single.orders:
            a, b = single.table(system, order), other.table(system, order)
            for kind in ("ht_only", "mt_only", "skewed"):
                left, right = getattr(a, kind), getattr(b, kind)
                pd.testing.assert_frame_equal(left.drop(columns="segments"), right.drop(columns="segments"))
                assert all(np.array_equal(x, y) for x, y in zip(left["segments"], right["segments"]))
                rows += len(left)
    return rows


@pytest.mark.parametrize("size", [1, 37, 250])
def test_ngram_tables_from_slices_of_segments_equal_the_whole_set_tables(size):
    """Slices of 1, 37 and 250 segments (the last: one slice), summed in two passes, give every table exactly —
    also with another reference compared as a side and min_count 1."""
    from mtdiag.scoring.chunks import slices
    from mtdiag.metrics.ht_mt_ngrams import ngram_tables, partitioned_ngram_tables

    evalset = load_folder(SAMPLE / "wmt21.en-de")
    bounds = slices(evalset.n_segments, size)
    single = ngram_tables(evalset, orders=(1, 2, 3, 4), min_count=2)
    assert len(single.frequent_words) == 100
    assert _assert_same_tables(single, partitioned_ngram_tables(evalset, bounds, orders=(1, 2, 3, 4))) > 1000
    sides = [evalset.systems[0], "C"]
    single = ngram_tables(evalset, ht_ref="D", orders=(2, 4), min_count=1, systems=sides)
    assert _assert_same_tables(single, partitioned_ngram_tables(evalset, bounds, ht_ref="D", orders=(2, 4),
                                                                min_count=1, systems=sides)) > 1000


def test_ngram_tables_on_a_local_dask_cluster_equal_the_single_process_tables():
    """A real ``LocalCluster`` (two worker processes on loopback), tasks over slices of 40 segments."""
    from mtdiag.scoring.chunks import ngram_tables_on_dask
    from mtdiag.metrics.ht_mt_ngrams import ngram_tables

    evalset = load_folder(SAMPLE / "wmt21.en-de")
    single = ngram_tables(evalset, orders=(1, 2, 3, 4), min_count=2)
    distributed = ngram_tables_on_dask(evalset, "local:2", chunk=40, orders=(1, 2, 3, 4), min_count=2)
    assert distributed.systems == evalset.systems
    assert _assert_same_tables(single, distributed) > 1000


def test_cli_ngrams_dask_flag_gives_the_single_process_tables(capsys):
    from mtdiag import cli

    de = SAMPLE / "wmt21.en-de"
    base = ["ngrams", "--ht", str(de / "ref.A.txt"), "--mt", f"G={de / 'newstest2021.en-de.VolcTrans-GLAT.txt'}",
            "--mt", f"U={de / 'newstest2021.en-de.UEdin.txt'}", "--order", "1,3", "--top", "0"]
    assert cli.main(base) == 0
    single = capsys.readouterr().out
    assert cli.main(base + ["--dask", "local:2"]) == 0
    assert capsys.readouterr().out == single and len(single) > 10_000


def test_what_reads_no_score_is_prepared_while_the_metrics_score_and_changes_nothing(monkeypatch):
    """Scored whole on two threads, ``prepare`` runs on the calling thread with a report without scores on the same
    context while the metrics score: the flags it computes (the checks that read no metric) and the consensus the
    queue reads are the scored report's — computed once —, equal to those computed after scoring."""
    from mtdiag.metrics import consensus
    from mtdiag.pipeline.inputs import prepared
    from mtdiag.triage import checks, ranking
    from mtdiag.triage.checks.wrong_language import WrongLanguage

    evalset = load_folder(SAMPLE / "wmt21.en-de")
    options = Options(metrics=("chrf", "otem", "ter"))
    seen, computed = [], []
    real = WrongLanguage.fires
    monkeypatch.setattr(WrongLanguage, "fires", lambda self, report: computed.append(report.metrics) or real(self, report))
    agreed = []  # the orders consensus counted (its statistics are built once per report and order)
    real_counts = consensus.against_the_others  # consensus's own (chrF consensus imports it: not counted here)
    monkeypatch.setattr(consensus, "against_the_others", lambda index, sides, n: agreed.append(n)
                        or real_counts(index, sides, n))

    def prepare(report):
        seen.append((report.metrics, report.segments.shape))
        prepared(report)

    warmed = evaluate(evalset, options, execution=Execution(workers=2), prepare=prepare)
    assert seen == [((), (len(evalset.systems) * evalset.n_segments, 0))] and computed == [()]
    flags = checks.flag_frame(warmed)
    assert computed == [()]  # the scored report reads what was prepared: not computed again
    assert agreed == [1, 2]  # consensus (not a metric here) prepared once, orders 1 and 2, for queue and checks …
    agreement = ranking.view_scores(warmed, ranking.CONSENSUS)
    assert agreed == [1, 2]  # … and read by the queue, not computed again
    cold = evaluate(evalset, options, execution=Execution(workers=2))
    assert checks.flag_frame(cold).equals(flags) and computed == [(), ("chrf", "otem", "ter")]
    assert ranking.view_scores(cold, ranking.CONSENSUS).equals(agreement) and agreed == [1, 2, 1, 2]
    assert warmed.segments.equals(cold.segments)


def test_while_the_calling_thread_prepares_the_metrics_take_one_thread_less(monkeypatch):
    """Two cores, two workers asked: with ``meanwhile`` (the checks, on the calling thread) the metrics score on one
    pool thread, so that three threads do not share two cores (``mtdiag triage`` on WMT21 en-de: 7.60 -> 6.55 s
    wall); once ``meanwhile`` is done the calling thread scores the metrics the pool has not begun. Without it, two
    pool threads. The statistics are the same every way."""
    import threading
    import time

    from mtdiag.metrics import ScoringContext
    from mtdiag.metrics.standard import CHRF
    from mtdiag.scoring.chunks import shared_statistics

    evalset = load_folder(SAMPLE / "wmt21.en-de")
    threads = []
    real = CHRF.statistics
    def statistics(self, ctx, system):
        threads.append(threading.current_thread().name)
        if threads[-1].startswith("mtdiag-metric"):
            time.sleep(0.02)  # the pool is slow: the calling thread, done first, takes the metric not yet begun
        return real(self, ctx, system)

    monkeypatch.setattr(CHRF, "statistics", statistics)
    metrics = [("chrf", CHRF()), ("chrf2", CHRF()), ("chrf3", CHRF())]
    prepared = threading.Event()

    def meanwhile():  # busy until the pool has scored every system of a metric
        while sum(name.startswith("mtdiag-metric") for name in threads) < len(evalset.systems):
            prepared.wait(0.01)

    alone = shared_statistics(ScoringContext(evalset), metrics, workers=1)
    threads.clear()
    shared = shared_statistics(ScoringContext(evalset), metrics, workers=2, meanwhile=meanwhile)
    pool = {name for name in threads if name.startswith("mtdiag-metric")}
    assert len(pool) == 1 and threading.current_thread().name in threads  # one pool thread, then the caller helped
    threads.clear()
    both = shared_statistics(ScoringContext(evalset), metrics, workers=2)
    assert len(set(threads)) == 2 and all(name.startswith("mtdiag-metric") for name in threads)
    for key, value in alone.items():
        np.testing.assert_array_equal(shared[key], value)
        np.testing.assert_array_equal(both[key], value)
