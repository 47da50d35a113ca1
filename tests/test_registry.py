"""Every registered metric: metadata complete, computes on every sample set, vectorised corpus_score agrees."""

from __future__ import annotations

import numpy as np
import pytest

from mtdiag.scoring.evaluate import Options, available_metrics, evaluate
from mtdiag.io import load_folder
from mtdiag.metrics import REGISTRY, create_metric
from tests.conftest import SAMPLE

SAMPLES = ["wmt21.en-de", "wmt21.en-ja", "tico19.en-fr"]


@pytest.fixture(scope="module", params=SAMPLES)
def sample_report(request):
    evalset = load_folder(SAMPLE / request.param)
    return evaluate(evalset, Options(metrics=tuple(available_metrics(evalset))))  # on-request metrics too


@pytest.mark.parametrize("name", list(REGISTRY))
def test_metric_metadata(name):
    info = REGISTRY[name].info
    assert info.name == name and info.label and info.description and info.paper
    assert info.scale in (1, 100) or info.range_text  # MQM-like scores say how they read
    create_metric(name)  # default options validate


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_metric_computes_and_resamples_on_every_sample(sample_report, name):
    if name not in available_metrics(sample_report.evalset):
        info = REGISTRY[name].info
        assert ("terms" in info.needs or "esa_scores" in info.needs  # predicted ESA: where the human scores are ESA
                or len(sample_report.evalset.systems) < info.min_systems)
        return
    metric = sample_report.metric(name)
    for system in sample_report.evalset.systems:
        result = sample_report.result(name, system)
        assert result.stats.shape[0] == sample_report.evalset.n_segments
        assert len(result.stat_names) == result.stats.shape[1]
        assert np.isfinite(result.corpus)
        # corpus_score is vectorised over leading axes: a stack of two identical sums gives the corpus score twice
        stacked = metric.corpus_score(np.stack([result.stats.sum(axis=0)] * 2))
        np.testing.assert_allclose(stacked, [result.corpus] * 2)
        assert name in result.signature.lower()


def test_option_validation():
    with pytest.raises(ValueError, match="order=9"):
        create_metric("otem", order=9)
    with pytest.raises(ValueError, match="has no option"):
        create_metric("waft", order=2)
    with pytest.raises(ValueError, match="unknown tokenizer"):
        Options(tokenize="moses").tokenize_options
