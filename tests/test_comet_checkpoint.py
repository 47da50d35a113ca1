"""COMET from a local checkpoint (issue 15, Build 3, optional part): ``--comet-checkpoint PATH`` scores every
system with ``comet.load_from_checkpoint(PATH).predict`` and the scores become an imported metric. CI has no model:
a stub ``comet`` module (injected through ``sys.modules``) stands for unbabel-comet and records how it was called."""

from __future__ import annotations

import json
import sys
import types
from dataclasses import replace

import numpy as np
import pytest

from mtdiag import cli
from mtdiag.scoring.evaluate import evaluate
from mtdiag.core.errors import InputError
from mtdiag.io import load_folder
from mtdiag.io.scores import comet_metric_name, with_comet_scores
from tests.conftest import SAMPLE

DE = SAMPLE / "wmt21.en-de"


def overlap(src: str, mt: str, ref: str) -> float:
    """The stub model's "quality": the share of the reference's word types the output has."""
    words = set(ref.split())
    return len(words & set(mt.split())) / max(1, len(words))


@pytest.fixture
def stub_comet(monkeypatch):
    calls: dict = {}

    class Model:
        def predict(self, data, batch_size, gpus):
            calls["predict"] = (len(data), batch_size, gpus)
            calls["first"] = data[0]
            return types.SimpleNamespace(scores=[overlap(d["src"], d["mt"], d["ref"]) for d in data],
                                         system_score=None)

    def load_from_checkpoint(path, local_files_only=False):
        calls["load"] = (path, local_files_only)
        return Model()

    monkeypatch.setitem(sys.modules, "comet", types.SimpleNamespace(load_from_checkpoint=load_from_checkpoint))
    return calls


@pytest.fixture
def checkpoint(tmp_path):
    path = tmp_path / "wmt22-comet-da" / "checkpoints" / "model.ckpt"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"not a real model")
    return path


def test_a_local_checkpoint_scores_every_system_into_an_imported_metric(stub_comet, checkpoint):
    evalset = load_folder(DE)
    scored = with_comet_scores(evalset, checkpoint)
    assert stub_comet["load"] == (str(checkpoint), True)  # local files only: never a download
    assert stub_comet["predict"] == (6 * 117, 8, 0)
    assert stub_comet["first"] == {"src": evalset.src.iat[0], "mt": evalset.hyps[evalset.systems[0]].iat[0],
                                   "ref": evalset.refs["A"].iat[0]}  # the first reference
    report = evaluate(scored)
    assert "wmt22_comet_da" in report.metrics
    for system in evalset.systems:
        expected = [overlap(s, m, r) for s, m, r in zip(evalset.src, evalset.hyps[system], evalset.refs["A"])]
        np.testing.assert_allclose(report.segments.loc[system, "wmt22_comet_da"].to_numpy(), expected, rtol=0,
                                   atol=0)
        assert report.corpus.at[system, "wmt22_comet_da"] == pytest.approx(np.mean(expected), rel=1e-12)
    info = report.metric_objects["wmt22_comet_da"].info
    assert info.higher_is_better is True
    assert f"source:{checkpoint}" in str(report.result("wmt22_comet_da", "UEdin").signature)


def test_the_score_command_takes_a_checkpoint(stub_comet, checkpoint, capsys):
    assert cli.main(["score", "--testset", str(DE), "--comet-checkpoint", str(checkpoint), "--metrics",
                     "bleu,wmt22_comet_da", "--format", "json"]) == 0
    corpus = json.loads(capsys.readouterr().out)["corpus"]
    evalset = load_folder(DE)
    expected = np.mean([overlap(s, m, r) for s, m, r in zip(evalset.src, evalset.hyps["UEdin"], evalset.refs["A"])])
    assert corpus["UEdin"]["wmt22_comet_da"] == pytest.approx(expected, rel=1e-12)


def test_a_missing_checkpoint_is_refused_before_anything_is_loaded(stub_comet, tmp_path, capsys):
    missing = tmp_path / "Unbabel" / "wmt22-comet-da"
    assert cli.main(["score", "--testset", str(DE), "--comet-checkpoint", str(missing)]) != 0
    assert f"{missing}: no such COMET checkpoint file (mtdiag never downloads a model" in capsys.readouterr().err
    assert "load" not in stub_comet


def test_without_unbabel_comet_the_message_says_what_to_install(checkpoint, monkeypatch):
    monkeypatch.setitem(sys.modules, "comet", None)  # import comet -> ImportError
    with pytest.raises(InputError, match="needs the unbabel-comet package"):
        with_comet_scores(load_folder(DE), checkpoint)


def test_comet_needs_the_source(stub_comet, checkpoint):
    evalset = load_folder(DE)
    without = replace(evalset, segments=evalset.segments.drop(columns=["src"]))
    with pytest.raises(InputError, match="COMET needs the source segments"):
        with_comet_scores(without, checkpoint)


def test_the_metric_is_named_after_the_model_folder(tmp_path):
    assert comet_metric_name(tmp_path / "wmt22-cometkiwi-da" / "checkpoints" / "model.ckpt") == "wmt22_cometkiwi_da"
    assert comet_metric_name(tmp_path / "my.ckpt") == "comet"
