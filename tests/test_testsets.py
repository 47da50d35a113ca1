"""Test sets in the field's formats (WMT XML, SGML, TSV, JSONL, gzip) score exactly like the same set as text files
— on the real WMT21 en-de dev set (12 systems, 3 references) — and bad files are named clearly."""

from __future__ import annotations

import re

import pandas as pd
import pytest

from mtdiag import cli
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.core.errors import InputError
from mtdiag.io.testsets import load_testset
from tests.conftest import DEV, SAMPLE
from tests.testset_formats import gzipped, write_jsonl, write_sgml, write_tsv, write_wmt_xml

METRICS = ("otem", "utem", "waft", "neva", "bleu", "chrf", "ter", "length_ratio")


@pytest.fixture(scope="module")
def en_de():
    from mtdiag.io import load_folder

    evalset = load_folder(DEV / "wmt21" / "en-de")
    return evalset, evaluate(evalset, Options(metrics=METRICS))


@pytest.fixture(scope="module")
def written(en_de, tmp_path_factory):
    evalset, _ = en_de
    out = tmp_path_factory.mktemp("formats")
    xml = write_wmt_xml(evalset, out / "newstest2021.xml", "en", "de")
    sgml = out / "sgml.en-de"
    write_sgml(evalset, sgml, "en", "de")
    return {"xml": xml, "xml.gz": gzipped(xml), "sgml": sgml, "tsv": write_tsv(evalset, out / "test.tsv"),
            "jsonl.gz": gzipped(write_jsonl(evalset, out / "test.jsonl"))}


@pytest.mark.parametrize("fmt", ["xml", "xml.gz", "sgml", "tsv", "jsonl.gz"])
def test_every_format_scores_like_the_text_files(en_de, written, fmt):
    evalset, expected = en_de
    loaded = load_testset(written[fmt])
    assert loaded.systems == evalset.systems and loaded.ref_names == evalset.ref_names
    pd.testing.assert_frame_equal(loaded.refs, evalset.refs)
    pd.testing.assert_frame_equal(loaded.hyps, evalset.hyps)
    assert loaded.src.tolist() == evalset.src.tolist()
    report = evaluate(loaded, Options(metrics=METRICS))
    pd.testing.assert_frame_equal(report.corpus, expected.corpus, rtol=0, atol=0)
    pd.testing.assert_frame_equal(report.segments, expected.segments, rtol=0, atol=0)
    if fmt in ("xml", "xml.gz", "sgml"):
        assert loaded.lang_pair == "en-de" and loaded.segments["doc"].iat[0] == "doc1"
        assert loaded.segments["doc"].iat[-1] == f"doc{(evalset.n_segments - 1) // 50 + 1}"


def test_cli_testset_flag(written, capsys):
    import json

    assert cli.main(["score", "--testset", str(written["xml"]), "--metrics", "bleu"]) == 0
    corpus = json.loads(capsys.readouterr().out)["corpus"]
    assert len(corpus) == 12 and all("bleu" in v for v in corpus.values())
    assert cli.main(["score", "--metrics", "bleu"]) == 1
    assert "--testset PATH, or --hyp with --ref and/or --src" in capsys.readouterr().err


XML_HEAD = '<?xml version="1.0"?><dataset id="t"><collection id="c"><doc id="d1" origlang="en">'


@pytest.mark.parametrize("body,message", [
    ('<src lang="en"><p><seg id="1">a</seg></p></src><ref lang="de" translator="A"><p><seg id="1">b</seg></p></ref>',
     "no <hyp system=…> element"),
    ('<src lang="en"><p><seg id="x">a</seg></p></src><ref lang="de" translator="A"><p><seg id="1">b</seg></p></ref>'
     '<hyp lang="de" system="S"><p><seg id="1">b</seg></p></hyp>', '<doc id="d1"> <src>: <seg id="x"> needs a whole-number id'),
    ('<src lang="en"><p><seg id="1">a</seg><seg id="2">c</seg></p></src><ref lang="de" translator="A"><p>'
     '<seg id="1">b</seg><seg id="2">d</seg></p></ref><hyp lang="de" system="S"><p><seg id="1">b</seg></p></hyp>',
     '<doc id="d1"> <hyp system="S">: no <seg id="2">'),
    ('<src lang="en"><p><seg id="1">a &amp; <b</seg></p></src>', "is not well-formed XML"),
])
def test_bad_wmt_xml_names_the_element(body, message):
    data = (XML_HEAD + body + "</doc></collection></dataset>").encode()
    with pytest.raises(InputError, match=re.escape(message)):
        load_testset(("bad.xml", data))


def test_xml_entity_expansion_is_refused():
    bomb = b'<?xml version="1.0"?><!DOCTYPE d [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><dataset>&b;</dataset>'
    with pytest.raises(InputError, match="entities or DTDs"):
        load_testset(("bomb.xml", bomb))


def test_bad_sgml_names_file_and_line(tmp_path):
    from mtdiag.io import load_folder

    evalset = load_folder(SAMPLE / "wmt21.en-de")
    paths = write_sgml(evalset, tmp_path / "s", "en", "de")
    system_file = paths[-1]
    lines = system_file.read_text(encoding="utf-8").split("\n")
    dropped = next(i for i, line in enumerate(lines) if line.startswith('<seg id="3"'))
    system_file.write_text("\n".join(lines[:dropped] + lines[dropped + 1:]), encoding="utf-8")
    with pytest.raises(InputError, match=rf'{system_file.name}: line 1: tstset .* has no <seg id="3"> in <doc docid="doc1">'):
        load_testset(tmp_path / "s")


def test_gzip_bomb_is_refused(tmp_path):
    from mtdiag.io.text import Limits

    path = tmp_path / "big.tsv.gz"
    import gzip

    path.write_bytes(gzip.compress(b"ref\tsys\n" + b"a\tb\n" * 200_000))
    with pytest.raises(InputError, match="decompresses to more than 1,000 bytes"):
        load_testset(path, limits=Limits(max_file_bytes=1000))
