"""A metric added through the registry alone reaches every surface: the CLI (its option flag, scores and
signature), significance, exports and the dashboard (columns, its option widget, its segment evidence) — with no
other edit. Also: option declarations drive the CLI flags, and ``term_ter`` really uses its cost."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from mtdiag import cli
from mtdiag.analysis import significance
from mtdiag.report import export
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.core.highlight import Span
from mtdiag.io import load_folder
from mtdiag.metrics import (REGISTRY, EvidenceTable, Metric, MetricInfo, OptionSpec, SegmentEvidence, create_metric,
                            registered)
from tests.conftest import REPO, SAMPLE
from tests.test_app import visit


class LongWords(Metric):
    """Throw-away metric: the share (x weight) of hypothesis tokens longer than ``min_chars`` characters."""

    info = MetricInfo(name="long_words", label="Long words", description="share of long tokens", paper="none",
                      scale=100, higher_is_better=False,
                      options=(OptionSpec("min_chars", 6, "characters a long token has at least", minimum=1,
                                          maximum=40),))
    stat_names = ("long", "tokens")

    def statistics(self, ctx, system):
        side = ctx.tokens.hyps[system]
        lengths = np.array([len(t) for t in ctx.tokens.vocab], dtype=np.int64)
        long = (lengths[side.ids] >= self.options["min_chars"]).astype(np.int64)
        per_segment = np.bincount(np.repeat(np.arange(side.n_segments), side.lengths), weights=long,
                                  minlength=side.n_segments)
        return np.column_stack([per_segment, side.lengths]).astype(np.int64)

    def corpus_score(self, stats_sum):
        stats_sum = np.asarray(stats_sum, dtype=float)
        return 100.0 * stats_sum[..., 0] / np.maximum(stats_sum[..., 1], 1)

    def segment_evidence(self, ctx, system, seg):
        shown, matched = ctx.display_tokens(system, seg)
        spans = tuple(Span(i, i + 1, "over1", "long word") for i, t in enumerate(matched)
                      if len(t) >= self.options["min_chars"])
        frame = pd.DataFrame({"long_word": [shown[s.start] for s in spans]})
        return SegmentEvidence(hyp_spans=spans, tables={"long_words": EvidenceTable("Long words", frame)})


@pytest.fixture
def long_words():
    with registered(LongWords):
        yield LongWords


def test_cli_flags_are_generated_from_the_declarations(capsys):
    with pytest.raises(SystemExit):
        cli.main(["score", "--help"])
    text = capsys.readouterr().out
    for name, cls in REGISTRY.items():
        for spec in cls.info.options:
            assert cli.option_flag(name, spec.name) in text
    for flag in ("--otem-order", "--utem-order", "--chrf-word-order", "--term-ter-cost"):
        assert flag in text


def test_a_bad_option_value_names_the_flag(capsys):
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["score", "--ref", "r.txt", "--hyp", "s.txt", "--chrf-word-order", "7"])
    assert exit_info.value.code == 2
    assert "argument --chrf-word-order: option word_order=7: must be in 0..4" in capsys.readouterr().err


def test_empty_metric_list_is_an_error(tmp_path, capsys):
    (tmp_path / "r.txt").write_text("a\n", encoding="utf-8")
    assert cli.main(["score", "--ref", str(tmp_path / "r.txt"), "--hyp", str(tmp_path / "r.txt"), "--metrics", ","]) == 1
    assert "--metrics ',': name at least one metric" in capsys.readouterr().err


def test_a_registered_metric_reaches_the_cli(long_words, tmp_path, capsys):
    (tmp_path / "r.txt").write_text("a translation\nshort\n", encoding="utf-8")
    (tmp_path / "s.txt").write_text("a translation\nanother sentence\n", encoding="utf-8")
    base = ["score", "--ref", str(tmp_path / "r.txt"), "--hyp", f"s={tmp_path / 's.txt'}", "--metrics", "long_words"]
    assert cli.main(base) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["corpus"]["s"]["long_words"] == pytest.approx(100 * 3 / 4)  # translation, another, sentence
    assert "|min_chars:6|" in out["signatures"]["long_words"]
    assert cli.main(base + ["--long-words-min-chars", "9"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["corpus"]["s"]["long_words"] == pytest.approx(100 * 1 / 4)
    assert "|min_chars:9|" in out["signatures"]["long_words"]


def test_a_registered_metric_reaches_significance_and_exports(long_words):
    evalset = evalset_from_lists({"r": ["a b c"] * 6}, {"x": ["translation words here"] * 6, "y": ["a b c"] * 6})
    report = evaluate(evalset, Options(metrics=("bleu", "long_words"), metric_options={"long_words": {"min_chars": 4}}))
    sig = significance.significance(report, "y", "bs", 50)
    assert ("x", "long_words") in sig.index and sig.loc[("x", "long_words"), "better"] == -1  # lower is better
    assert "|min_chars:4|" in sig.attrs["signatures"]["long_words"]
    assert "Long words $\\downarrow$" in export.latex_table(report.corpus, sig)
    csv = export.export_comparison(sig, "csv")
    assert "long_words,Long words" in csv


def test_a_registered_metric_reaches_the_dashboard(long_words, clean_streamlit, monkeypatch):
    monkeypatch.delenv("MTDIAG_DATA", raising=False)
    at = AppTest.from_file(str(REPO / "app.py"), default_timeout=60)
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    assert at.number_input(key="opt_long_words_min_chars").value == 6  # its option's widget
    at.number_input(key="opt_long_words_min_chars").set_value(12).run()
    visit(at, "overview").run()
    corpus = next(f.value for f in at.dataframe if "long_words" in f.value.columns)
    expected = evaluate(load_folder(SAMPLE / "wmt21.en-de"),
                        Options(metric_options={"long_words": {"min_chars": 12}})).corpus["long_words"]
    np.testing.assert_allclose(corpus["long_words"].to_numpy(dtype=float), expected.reindex(corpus.index).to_numpy())
    visit(at, "segments").run()
    assert not at.exception, [e.value for e in at.exception]
    assert any("long_words" in f.value.columns for f in at.dataframe)
    at.session_state["seg_table"] = {"selection": {"rows": [0], "columns": [], "cells": []}}
    at.run()
    assert "Long words" in [t.label for t in at.tabs]  # its evidence tab in the segment detail


def test_term_ter_uses_its_cost_and_states_ter_tokenisation():
    evalset = load_folder(SAMPLE / "tico19.en-fr")
    scores, signatures = {}, {}
    for cost in (1.0, 2.0, 5.0):
        report = evaluate(evalset, Options(metrics=("term_ter", "ter"), metric_options={"term_ter": {"cost": cost}}))
        system = evalset.systems[0]
        scores[cost] = report.corpus.loc[system, "term_ter"]
        signatures[cost] = report.result("term_ter", system).signature
        if cost == 1.0:  # every word costs 1: TERm is TER
            assert scores[cost] == pytest.approx(100 - report.corpus.loc[system, "ter"], abs=1e-9)
    assert scores[1.0] > scores[2.0] > scores[5.0]
    for cost, signature in signatures.items():
        assert f"|cost:{cost:g}|" in signature and "|tok:tercom|" in signature and "tok:13a" not in signature


def test_options_validate_against_declarations():
    with pytest.raises(ValueError, match="otem has no option size"):
        Options(metric_options={"otem": {"size": 2}})
    with pytest.raises(ValueError, match="order=9"):
        Options(metric_options={"otem": {"order": 9}})
    assert Options(metric_options={"otem": {"order": 2}}) == Options()  # a default is no option
    assert create_metric("chrf", word_order=2).signature_name() == "chrF2++"
