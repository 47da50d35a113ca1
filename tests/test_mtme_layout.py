"""WMT's mt-metrics-eval layout as an input (``mtdiag.io.mtme``), on the invented release ``tests/data/wmt99``: what
becomes of each file, read back here independently of mtdiag.io; archives and their hostile forms."""

from __future__ import annotations

import io
import json
import shutil
import tarfile
import zipfile

import numpy as np
import pandas as pd
import pytest

from mtdiag.core.errors import InputError
from mtdiag.io import archives, weighed
from mtdiag.io.mtme import LayoutChoice, load_mtme, open_layout
from mtdiag.io.testsets import load_testset
from mtdiag.io.text import Limits
from mtdiag.scoring.evaluate import Options, evaluate
from tests.conftest import DATA, read_lines

WMT99 = DATA / "wmt99"
SYSTEMS = ["sysA", "sysB", "sysC", "sysD"]


def scores_file(path) -> dict[str, list[float]]:
    """A ``SYSTEM<TAB>SCORE`` file as ``{system: [scores]}`` (None -> NaN), read here."""
    out: dict[str, list[float]] = {}
    for line in read_lines(path):
        system, score = line.split("\t")
        out.setdefault(system, []).append(np.nan if score == "None" else float(score))
    return out


def en_de(**choice):
    return load_mtme(open_layout(WMT99), LayoutChoice(lp="en-de", **choice))


def test_texts_references_and_human_outputs():
    evalset = en_de()
    assert evalset.systems == SYSTEMS  # refA and refB are outputs named after a reference: left out
    assert evalset.ref_names == ["refA", "refB"]
    assert evalset.name == "wmt99.en-de" and evalset.lang_pair == "en-de"
    assert evalset.src.tolist() == read_lines(WMT99 / "sources/en-de.txt")
    assert evalset.refs["refB"].tolist() == read_lines(WMT99 / "references/en-de.refB.txt")
    assert evalset.hyps.at[2, "sysD"] == ""  # "[No translation supplied]"
    assert any("refA, refB" in w and "left out" in w for w in evalset.warnings)
    assert any("sysD.txt: 1 line(s) say '[No translation supplied]'" in w for w in evalset.warnings)
    docs = [line.split() for line in read_lines(WMT99 / "documents/en-de.docs")]
    assert evalset.segments["domain"].tolist() == [d for d, _ in docs]
    assert evalset.segments["doc"].tolist() == [doc for _, doc in docs]


def test_human_outputs_included_leave_the_references():
    evalset = en_de(include=("refB",))
    assert evalset.systems == [*SYSTEMS, "refB"] and evalset.ref_names == ["refA"]
    assert [m.name for m in evalset.imported] == ["MetA-refA", "MetB-src", "MetD-refA"]
    assert any("MetC-refB" in w and "left out" in w for w in evalset.warnings)
    with pytest.raises(InputError, match="both a reference and an included output"):
        en_de(include=("refB",), references=("refA", "refB"))
    with pytest.raises(InputError, match='"sysA" is no human output to include; the human outputs are refA, refB'):
        en_de(include=("sysA",))


def test_human_scores_of_the_chosen_type():
    mqm = scores_file(WMT99 / "human-scores/en-de.mqm.seg.score")
    evalset = en_de()
    human = evalset.human.set_index(["system", "seg"])["score"]
    for system in [*SYSTEMS, "refA", "refB"]:  # human outputs' scores are kept (the ranking shows them)
        expected = pd.Series(mqm[system]).dropna()
        assert human[system].sort_index().tolist() == expected.tolist()
    published = evalset.human_systems.set_index(["system", "domain"])["score"]
    assert published[("sysD", "")] == pytest.approx(-43 / 7)  # the .sys.score as published
    assert published[("sysC", "news")] == pytest.approx(-12.75)  # the .domain.score
    da = en_de(human="da-sqm")
    assert da.human.set_index(["system", "seg"])["score"][("sysA", 0)] == 92
    da_published = da.human_systems.set_index(["system", "domain"])["score"]
    assert da_published[("sysA", "")] == 0.41  # a z-score, not the mean of the segments (88.43)
    with pytest.raises(InputError, match='has no human score "esa" for en-de; it has mqm, da-sqm'):
        en_de(human="esa")


def test_ratings_become_human_error_spans():
    evalset = weighed(en_de())  # the rows as read, weighed by the default scheme (wmt)
    spans, rated = evalset.annotations, evalset.rated
    assert len(rated) == 4 * 8 - 1  # every rated output of the four systems (sysD's 5th is None)
    raw = [line.split("\t") for line in read_lines(WMT99 / "human-scores/en-de.mqm.merged.seg.rating")]
    expected = sum(1 for parts in raw if parts[0] in SYSTEMS and len(parts) == 3
                   for error in json.loads(parts[1])["errors"])
    assert len(spans) == expected == 41
    non_translation = spans[(spans["system"] == "sysD") & (spans["seg"] == 2)].iloc[0]
    assert (non_translation["side"], non_translation["weight"]) == ("source", 25.0)  # wmt scheme's Non-translation
    punctuation = spans[(spans["system"] == "sysA") & (spans["seg"] == 4)].iloc[0]
    assert punctuation["weight"] == pytest.approx(0.1)
    output = evalset.hyps.at[6, "sysA"]
    words = spans[(spans["system"] == "sysA") & (spans["seg"] == 6)]
    assert [output[s:e] for s, e in zip(words["start"], words["end"])] == ["Habe", "Wackelpudding"]
    weights = spans.groupby(["system", "seg"])["weight"].sum()
    human = evalset.human.set_index(["system", "seg"])["score"]
    assert np.allclose(-weights.to_numpy(), human.reindex(weights.index).to_numpy())  # the fixture's spans add up


def test_metrics_are_imported_as_named_with_their_published_system_scores():
    evalset = en_de()
    report = evaluate(evalset, Options(metrics=tuple(m.name for m in evalset.imported)))
    met_a = scores_file(WMT99 / "metric-scores/en-de/MetA-refA.seg.score")
    published = dict(line.split("\t") for line in read_lines(WMT99 / "metric-scores/en-de/MetA-refA.sys.score"))
    assert report.corpus.at["sysA", "MetA-refA"] == float(published["sysA"]) == 0.95  # not the mean, 0.89225
    assert np.mean(met_a["sysA"]) == pytest.approx(0.89225)
    segments = report.segments["MetA-refA"]
    assert np.isnan(segments[("sysB", 6)])  # None kept as missing
    assert segments.loc["sysC"].tolist() == met_a["sysC"]
    assert report.corpus.at["sysB", "MetA-refA"] == 0.81
    assert np.isnan(report.segments["MetD-refA"]).all() and report.corpus.at["sysC", "MetD-refA"] == 0.9  # sys only
    from mtdiag.slices import slice_report

    news = slice_report(report, np.arange(8) < 4)  # a published score describes the whole set: a slice's is the mean
    assert news.corpus.at["sysA", "MetA-refA"] == pytest.approx(np.mean(met_a["sysA"][:4]))


def test_one_pair_of_several_is_chosen():
    with pytest.raises(InputError, match=r"holds 2 language pairs \(de-en, en-de\): choose one \(--lp\)"):
        load_mtme(open_layout(WMT99))
    with pytest.raises(InputError, match='has no language pair "fr-de"; it has de-en, en-de'):
        load_mtme(open_layout(WMT99), LayoutChoice(lp="fr-de"))
    de_en = load_testset(WMT99, layout=LayoutChoice(lp="de-en"))
    assert de_en.systems == SYSTEMS and "doc" not in de_en.segments.columns and de_en.annotations is None
    with pytest.raises(InputError, match="no folder or archive of WMT's mt-metrics-eval layout"):
        load_testset(DATA / "dev" / "wmt21" / "en-de", layout=LayoutChoice(lp="en-de"))


def test_a_bad_score_file_names_the_file_and_the_line(tmp_path):
    copy = tmp_path / "wmt99"
    shutil.copytree(WMT99, copy)
    path = copy / "metric-scores/en-de/MetB-src.seg.score"
    lines = read_lines(path)
    path.write_text("\n".join([*lines[:5], "sysA\tzero", *lines[6:]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r'MetB-src.seg.score: line 6: score "zero" is not a number \(or None\)'):
        en_de_from(copy)
    path.write_text("\n".join([*lines[:5], *lines[6:]]) + "\n", encoding="utf-8")
    with pytest.raises(InputError, match=r'MetB-src.seg.score: system "sysA" has 7 scores; expected 8 \(one per'):
        en_de_from(copy)


def en_de_from(folder):
    return load_mtme(open_layout(folder), LayoutChoice(lp="en-de"))


def packed(kind: str) -> tuple[str, bytes]:
    """The fixture as an upload: ``wmt99/...`` inside a zip or a tar.gz."""
    buffer = io.BytesIO()
    files = sorted(p for p in WMT99.rglob("*") if p.is_file())
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for path in files:
                archive.write(path, f"wmt99/{path.relative_to(WMT99).as_posix()}")
        return "release.zip", buffer.getvalue()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        for path in files:
            archive.add(path, f"wmt99/{path.relative_to(WMT99).as_posix()}")
    return "release.tar.gz", buffer.getvalue()


@pytest.mark.parametrize("kind", ["zip", "tar.gz"])
def test_an_archive_is_the_folder(kind):
    folder = en_de()
    upload = load_testset(packed(kind), layout=LayoutChoice(lp="en-de"))
    for frame in ("segments", "refs", "hyps", "human", "rated", "scores", "human_systems"):
        pd.testing.assert_frame_equal(getattr(upload, frame), getattr(folder, frame))
    pd.testing.assert_frame_equal(upload.error_rows.drop(columns="file"), folder.error_rows.drop(columns="file"))
    assert [(m.name, m.system_scores) for m in upload.imported] == [(m.name, m.system_scores) for m in folder.imported]
    assert upload.imported[0].source == "release.zip:wmt99/metric-scores/en-de/MetA-refA.seg.score" if kind == "zip" \
        else upload.imported[0].source.endswith("wmt99/metric-scores/en-de/MetA-refA.seg.score")


def zip_of(members: dict[str, bytes]) -> tuple[str, bytes]:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return "upload.zip", buffer.getvalue()


def test_hostile_archives_are_refused_before_the_work():
    with pytest.raises(InputError, match=r"upload.zip: holds a member named '../evil.txt', outside"):
        archives.open_tree(zip_of({"wmt99/sources/en-de.txt": b"a\n", "../evil.txt": b"x"}))
    bomb = zip_of({"wmt99/sources/en-de.txt": b"\n" * 5_000_000})  # 5 MB of line breaks in ~5 KB
    assert len(bomb[1]) < 20_000
    tree = archives.open_tree(bomb, limits=Limits(max_file_bytes=1_000_000))
    with pytest.raises(InputError, match="upload.zip:wmt99/sources/en-de.txt: inflates to more bytes than one file"):
        tree.source("wmt99/sources/en-de.txt")
    many = zip_of({f"wmt99/f{i}.txt": b"" for i in range(30)})
    bounds = archives.TreeBounds(members=20, total_bytes=10**6, limits=Limits())
    with pytest.raises(InputError, match="has 30 members; an archive may have at most 20"):
        archives.ZipTree(*many, bounds)


def test_a_zip_of_millions_of_entries_is_refused_from_its_directory_record():
    """The entry count is read from the end record before any entry is parsed: a forged count of 3,000,000 (the
    directory itself need not be there) is enough to refuse."""
    name, data = zip_of({"a.txt": b"a"})
    end = data.rfind(b"PK\x05\x06")
    forged = data[:end + 8] + (0xFFFE).to_bytes(2, "little") + (0xFFFE).to_bytes(2, "little") + data[end + 12:]
    with pytest.raises(InputError, match="has 65,534 members; an archive may have at most 20,000"):
        archives.open_tree((name, forged))


def test_tar_links_are_skipped_and_its_bytes_bounded():
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:gz") as archive:
        link = tarfile.TarInfo("wmt99/sources/link.txt")
        link.type, link.linkname = tarfile.SYMTYPE, "/etc/passwd"
        archive.addfile(link)
        data = b"x" * 3000
        info = tarfile.TarInfo("wmt99/sources/en-de.txt")
        info.size = len(data)
        archive.addfile(info, io.BytesIO(data))
    tree = archives.open_tree(("up.tar.gz", buffer.getvalue()))
    assert tree.paths() == ("wmt99/sources/en-de.txt",)
    with pytest.raises(InputError, match="up.tar.gz:wmt99/sources/en-de.txt: has 3,000 bytes"):
        archives.open_tree(("up.tar.gz", buffer.getvalue()), limits=Limits(max_file_bytes=2000))


def test_the_bytes_of_an_archive_are_counted_per_reading():
    """A zip opened once (the dashboard keeps it) is read again for each pair or choice: the bound is on the bytes
    one reading inflates, not on every reading since it was opened."""
    name, data = packed("zip")
    en_de_bytes = sum(len(p.read_bytes()) for p in WMT99.rglob("*") if p.is_file() and "en-de" in p.as_posix())
    tree = archives.ZipTree(name, data, archives.TreeBounds(members=100, total_bytes=int(1.5 * en_de_bytes),
                                                            limits=Limits()))
    layout = open_layout(WMT99)
    layout = type(layout)(tree, "wmt99/", "wmt99")
    for human in ("mqm", "da-sqm", "mqm"):
        assert load_mtme(layout, LayoutChoice(lp="en-de", human=human)).systems == SYSTEMS
    small = archives.ZipTree(name, data, archives.TreeBounds(members=100, total_bytes=en_de_bytes // 2,
                                                             limits=Limits()))
    with pytest.raises(InputError, match="release.zip: inflates to more than"):
        load_mtme(type(layout)(small, "wmt99/", "wmt99"), LayoutChoice(lp="en-de"))


@pytest.mark.parametrize("extra", [["--testset", str(DATA / "dev" / "ted" / "zh-en")],
                                   ["--ref", str(WMT99 / "references" / "en-de.refA.txt"),
                                    "--hyp", f"a={WMT99 / 'references' / 'en-de.refA.txt'}"]])
def test_layout_flags_off_a_release_are_one_line_naming_them(capsys, extra):
    """--lp and the other layout flags given with a test set that is no release (or none) were refused without naming
    the flag, or ignored (benchmarks/fuzz_options.py: 1,047 of 4,186 refusals did not name their option)."""
    from mtdiag.cli import main

    assert main(["score", *extra, "--lp", "en-de", "--human-type", "mqm"]) == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("mtdiag: error: --lp, --human-type: apply to a WMT release's") and "\n" not in err
