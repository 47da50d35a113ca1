"""Term warnings reach the loaded set (and so the CLI and the dashboard): lemmatised source terms give one warning,
a stray tag gives a warning naming file and line."""

from __future__ import annotations

import pandas as pd

from mtdiag.io import load_files, load_folder
from tests.conftest import DEV

TICO = DEV / "terminology" / "tico19-en-fr"


def test_lemma_terms_load_with_one_warning(tmp_path):
    table = pd.read_csv(TICO / "terms.tsv", sep="\t", dtype=str, keep_default_na=False)
    lemmas = table.assign(src_surface=table["src_term_lemma"])
    path = tmp_path / "lemmas.tsv"
    lemmas.to_csv(path, sep="\t", index=False)
    evalset = load_files(src=TICO / "src.txt", refs={"A": TICO / "ref.A.txt"},
                         hyps={"Fairseq": TICO / "tico19dev.en-fr.Fairseq.txt"}, terms=path)
    term_warnings = [w for w in evalset.warnings if "source term" in w]
    assert len(term_warnings) == 1 and "lemma-like stem" in term_warnings[0]
    surface = load_folder(TICO)
    assert len(evalset.terms) == len(surface.terms)


def test_stray_tag_is_a_warning_naming_file_and_line():
    src = ("src.txt", b'a <term id="1" src="cat" tgt="chat">cat</term> sat\nthe dog</term> ran\n')
    ref = ("ref.txt", b'un <TERM id="1" src="cat" tgt="chat">chat</TERM> assis\nle chien court\n')
    evalset = load_files(src=src, refs={"ref": ref}, hyps={"s": ("s.txt", b"un chat\nle chien\n")})
    assert any(w.startswith("src.txt: line 2") and "</term>" in w for w in evalset.warnings)
    assert evalset.src.iat[1] == "the dog ran" and evalset.refs.iat[0, 0] == "un chat assis"
    assert len(evalset.terms) == 1
