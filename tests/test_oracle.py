"""mtdiag's vectorised OTEM/UTEM/WAFT/NEVA equal naive implementations of their definitions (tests/oracle.py),
corpus and every segment, single and multiple references, on real sample data and on random small cases."""

from __future__ import annotations

import random

import numpy as np
import pytest

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.evalset import evalset_from_lists
from mtdiag.io import load_folder
from tests import oracle
from tests.conftest import SAMPLE

ORACLES = {"otem": oracle.otem, "utem": oracle.utem, "waft": oracle.waft, "neva": oracle.neva}


def check_against_oracle(report, systems, n_segments):
    tokens = report.context.tokens
    refs = [[tokens.tokens(r, i) for r in tokens.refs] for i in range(n_segments)]
    for system in systems:
        cands = [tokens.tokens(system, i) for i in range(n_segments)]
        for metric, naive in ORACLES.items():
            assert report.corpus.loc[system, metric] == pytest.approx(naive(cands, refs), abs=1e-12), (system, metric)
            expected = [naive([cands[i]], [refs[i]]) for i in range(n_segments)]
            np.testing.assert_allclose(report.segments.loc[system, metric], expected, atol=1e-12, rtol=0)


@pytest.mark.parametrize("folder", ["tico19.en-fr", "wmt21.en-de"])
def test_vectorised_metrics_equal_the_naive_definitions_on_sample_data(folder):
    data = load_folder(SAMPLE / folder)
    systems = data.systems[:2]
    report = evaluate(data.with_hyps(data.hyps[systems]), Options(metrics=tuple(ORACLES)))
    check_against_oracle(report, systems, data.n_segments)


def test_vectorised_metrics_equal_the_naive_definitions_on_random_cases():
    rng = random.Random(7)
    vocab = list("abcde")
    make = lambda: " ".join(rng.choice(vocab) for _ in range(rng.randint(0, 7)))  # noqa: E731
    n = 300
    refs = {f"r{k}": [make() for _ in range(n)] for k in range(3)}
    hyps = {f"s{k}": [make() for _ in range(n)] for k in range(2)}
    report = evaluate(evalset_from_lists(refs, hyps), Options(metrics=tuple(ORACLES), tokenize="none"))
    check_against_oracle(report, list(hyps), n)


def test_empty_texts_never_raise():
    report = evaluate(evalset_from_lists({"r": ["", "a", ""]}, {"s": ["", "", "a"]}), Options())
    assert report.segments.notna().all().all()
    assert report.segments.loc[("s", 0), "waft"] == 1.0  # both empty
    assert report.segments.loc[("s", 1), "waft"] == 0.0 and report.segments.loc[("s", 2), "waft"] == 0.0
    assert report.segments.loc[("s", 1), "neva"] == 0.0
