"""Reports of test-set folders kept on disk (mtdiag.scoring.report_cache, issue 37): read back they are the report scoring
gives; a changed text, option or file is never mistaken for another; a damaged file is scored again; the dashboard
opens a folder from disk without scoring and never writes an upload there."""

from __future__ import annotations

import os
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from mtdiag.scoring import report_cache
from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.io import load_folder
from tests.conftest import SAMPLE


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("MTDIAG_CACHE_DIR", str(tmp_path / "reports"))
    return tmp_path / "reports"


@pytest.fixture(scope="module")
def tico():
    return load_folder(SAMPLE / "tico19.en-fr")


def refuse(*args, **kwargs):
    raise AssertionError("scored again")


def assert_same(read, scored):
    assert read.metrics == scored.metrics
    pd.testing.assert_frame_equal(read.corpus, scored.corpus)
    pd.testing.assert_frame_equal(read.segments, scored.segments)
    assert read.signatures() == scored.signatures()


def test_a_report_read_back_is_the_report_scoring_gives(cache, tico, monkeypatch):
    scored = evaluate(tico, Options(metric_options={"chrf": {"word_order": 2}}))
    first = report_cache.evaluate_stored(tico, Options(metric_options={"chrf": {"word_order": 2}}))
    assert len(list(cache.glob("*.npz"))) == 1
    monkeypatch.setattr(report_cache, "evaluate", refuse)
    again = report_cache.evaluate_stored(tico, Options(metric_options={"chrf": {"word_order": 2}}))
    assert_same(first, scored)
    assert_same(again, scored)
    assert again.evalset is tico  # the set given (its name, tags), with the stored statistics


def test_another_text_option_or_code_is_another_file(cache, tico, monkeypatch):
    report_cache.evaluate_stored(tico, Options(metrics=("bleu",)))
    keys = {report_cache.key(tico, Options(metrics=("bleu",)))}
    keys.add(report_cache.key(tico, Options(metrics=("bleu",), lowercase=False)))
    keys.add(report_cache.key(tico, Options(metrics=("chrf",))))
    hyps = tico.hyps.copy()
    hyps.iloc[0, 0] = hyps.iloc[0, 0] + " x"
    keys.add(report_cache.key(replace(tico, hyps=hyps), Options(metrics=("bleu",))))
    monkeypatch.setattr(report_cache, "code_digest", lambda: "another version of the code")
    keys.add(report_cache.key(tico, Options(metrics=("bleu",))))
    assert len(keys) == 5
    assert report_cache.key(tico, Options(metrics=("bleu",), tgt_lang="fr")) == report_cache.key(
        tico, Options(metrics=("bleu",)))  # the same options once made explicit for the set: the same report


def test_a_damaged_file_is_removed_and_the_set_scored_again(cache, tico):
    report_cache.evaluate_stored(tico, Options(metrics=("bleu", "ter")))
    (path,) = cache.glob("*.npz")
    path.write_bytes(path.read_bytes()[:100])
    assert report_cache.load(tico, Options(metrics=("bleu", "ter"))) is None and not path.exists()
    report = report_cache.evaluate_stored(tico, Options(metrics=("bleu", "ter")))
    assert_same(report, evaluate(tico, Options(metrics=("bleu", "ter"))))
    assert path.exists()


def test_the_most_recently_used_files_are_kept(cache, tico, monkeypatch):
    monkeypatch.setattr(report_cache, "MAX_FILES", 2)
    for order in (1, 2, 3):
        report_cache.evaluate_stored(tico, Options(metrics=("otem",), metric_options={"otem": {"order": order}}))
        os.utime(cache / f"{report_cache.key(tico, Options(metrics=('otem',), metric_options={'otem': {'order': order}}))}.npz",
                 (order, order))
    report_cache.evaluate_stored(tico, Options(metrics=("bleu",)))
    kept = {p.stem for p in cache.glob("*.npz")}
    assert kept == {report_cache.key(tico, Options(metrics=("bleu",))),
                    report_cache.key(tico, Options(metrics=("otem",), metric_options={"otem": {"order": 3}}))}


def test_a_folder_that_cannot_be_written_is_no_cache(tmp_path, tico, monkeypatch):
    blocker = tmp_path / "a file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("MTDIAG_CACHE_DIR", str(blocker / "reports"))
    report = report_cache.evaluate_stored(tico, Options(metrics=("bleu",)))
    assert_same(report, evaluate(tico, Options(metrics=("bleu",))))


def test_the_dashboard_opens_a_folder_from_disk_and_never_writes_an_upload(cache, monkeypatch):
    """The first server scores the sample set and keeps it; a new server (every cache forgotten) opens it from disk
    without scoring. Uploads are scored, never written to disk."""
    import streamlit as st

    import mtdiag.ui.reports as ui_reports
    from tests.test_app import de_lines, lines_file, start

    st.cache_data.clear()
    st.cache_resource.clear()
    start()
    assert len(list(cache.glob("*.npz"))) == 1
    st.cache_data.clear()
    st.cache_resource.clear()
    monkeypatch.setattr(ui_reports, "evaluate", refuse)
    at = start()  # a new server: its report store is empty, the file is read
    assert at.title[0].value == "Overview" and len(at.dataframe) > 0
    monkeypatch.undo()
    monkeypatch.setenv("MTDIAG_CACHE_DIR", str(cache))
    at.file_uploader(key="up_extra").set_value([lines_file("mine.txt", de_lines("newstest2021.en-de.UEdin.txt"))]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "+ 1 uploaded" in "\n".join(c.value for c in at.sidebar.caption)  # a folder with an uploaded system
    at.radio(key="data_mode").set_value("Upload files").run()
    at.file_uploader(key="up_refs").set_value([lines_file("ref.A.txt", de_lines("ref.A.txt"))]).run()
    at.file_uploader(key="up_hyps").set_value([lines_file("mine.txt", de_lines("newstest2021.en-de.UEdin.txt"))]).run()
    assert not at.exception, [e.value for e in at.exception]
    assert "uploaded files" in "\n".join(c.value for c in at.sidebar.caption)
    assert len(list(cache.glob("*.npz"))) == 1
    st.cache_data.clear()
    st.cache_resource.clear()


# ------------------------------------------------------------------------- the cache trusts nothing it reads


BLEU_TER = Options(metrics=("bleu", "ter"))


def stored_arrays(path) -> dict:
    import numpy as np

    with np.load(path, allow_pickle=False) as stored:
        return {name: stored[name] for name in stored.files}


def rewrite(path, arrays: dict) -> None:
    """The file with ``arrays`` (as a writer that knows the format would leave it)."""
    import numpy as np

    with open(path, "wb") as handle:
        np.savez(handle, **arrays)


def tampered(cache, tico, change, *, resign: bool = False):
    """The stored report of ``tico`` under BLEU_TER after ``change(arrays)``; with ``resign`` its checksum made
    again (a writer that knows the format): what ``load`` makes of it."""
    report_cache.evaluate_stored(tico, BLEU_TER)
    (path,) = cache.glob("*.npz")
    arrays = stored_arrays(path)
    change(arrays)
    if resign:
        arrays["digest"] = report_cache.digest(path.stem, {k: v for k, v in arrays.items() if k != "digest"})
    rewrite(path, arrays)
    return path, report_cache.load(tico, BLEU_TER)


def test_altered_values_fail_the_checksum_and_the_set_is_scored_again(cache, tico):
    # the first system's BLEU statistics with every match count raised: read as valid before (BLEU 55.57 -> 65.33)
    def more_matches(arrays):
        arrays["m0_s0"] = arrays["m0_s0"].copy()
        arrays["m0_s0"][:, 2:6] = arrays["m0_s0"][:, 2:6] + 1

    path, report = tampered(cache, tico, more_matches)
    assert report is None and not path.exists()
    assert_same(report_cache.evaluate_stored(tico, BLEU_TER), evaluate(tico, BLEU_TER))


@pytest.mark.parametrize(("what", "change"), [
    ("rows", lambda arrays: arrays.update(m0_s0=arrays["m0_s0"][:-1])),  # "cannot be computed" forever before
    ("columns", lambda arrays: arrays.update(m1_s0=arrays["m1_s0"][:, :-1])),
    ("dtype", lambda arrays: arrays.update(m0_s0=arrays["m0_s0"].astype(str))),  # crashed every session before
    ("not finite", lambda arrays: arrays.update(m0_s0=arrays["m0_s0"] * float("nan"))),
    ("metric list", lambda arrays: arrays.update(metrics=arrays["metrics"][::-1])),
    ("systems", lambda arrays: arrays.update(systems=np.char.add(arrays["systems"], "x"))),
    ("three dimensions", lambda arrays: arrays.update(m0_s0=arrays["m0_s0"][..., None])),
])
def test_a_file_of_the_wrong_schema_is_removed_and_the_set_scored_again(cache, tico, what, change):
    path, report = tampered(cache, tico, change, resign=True)  # its checksum right: the schema is checked too
    assert report is None and not path.exists(), what
    assert_same(report_cache.evaluate_stored(tico, BLEU_TER), evaluate(tico, BLEU_TER))


def test_a_file_without_a_checksum_or_copied_under_another_name_is_refused(cache, tico):
    path, report = tampered(cache, tico, lambda arrays: arrays.pop("digest"))
    assert report is None and not path.exists()
    report_cache.evaluate_stored(tico, Options(metrics=("bleu", "chrf")))
    (source,) = cache.glob("*.npz")
    target = cache / f"{report_cache.key(tico, BLEU_TER)}.npz"
    source.rename(target)  # a BLEU + chrF report where BLEU + TER's is looked for: its checksum names its key
    assert report_cache.load(tico, BLEU_TER) is None and not target.exists()


def test_left_over_part_files_and_files_past_the_byte_cap_are_pruned(cache, tico, monkeypatch):
    import time

    report_cache.evaluate_stored(tico, Options(metrics=("bleu",)))
    old, fresh = cache / "tmpold.part", cache / "tmpfresh.part"
    for part in (old, fresh):
        part.write_bytes(b"x" * 1000)  # a write killed half-way
    hour_ago = time.time() - 3600
    os.utime(old, (hour_ago, hour_ago))
    (bleu,) = cache.glob("*.npz")
    os.utime(bleu, (hour_ago, hour_ago))
    monkeypatch.setattr(report_cache, "max_bytes", lambda: bleu.stat().st_size + 10)  # room for one report
    cased = Options(metrics=("bleu",), lowercase=False)  # a report of the same size
    report_cache.evaluate_stored(tico, cased)
    assert not old.exists() and fresh.exists()  # a write that may be under way is left alone
    assert [p.stem for p in cache.glob("*.npz")] == [report_cache.key(tico, cased)]


def test_the_folder_is_made_private(cache, tico):
    report_cache.evaluate_stored(tico, Options(metrics=("bleu",)))
    assert cache.stat().st_mode & 0o777 == 0o700


@pytest.mark.parametrize("unsafe", ["writable by others", "owned by another user"])
def test_a_folder_others_can_write_is_not_used(cache, tico, monkeypatch, capsys, unsafe):
    cache.mkdir(mode=0o700)
    if unsafe == "writable by others":
        cache.chmod(0o777)
    else:
        monkeypatch.setattr(report_cache.os, "geteuid", lambda: os.stat(cache).st_uid + 1)
    report = report_cache.evaluate_stored(tico, Options(metrics=("bleu",)))
    assert_same(report, evaluate(tico, Options(metrics=("bleu",))))
    assert not list(cache.iterdir())  # nothing written, nothing read
    message = capsys.readouterr().err.strip()
    assert message.startswith(f"mtdiag: the report cache {cache} is {unsafe}") and "\n" not in message

# ----------------------------------------------------------------- the registered metrics are part of the key


def test_a_metric_registered_at_run_time_never_reaches_a_process_without_it(cache, tico):
    """The poisoned cache: a report of "every metric" scored while a plug-in was registered was read back by a later
    process without it, which could not rebuild the plug-in's scores (``KeyError: unknown metric``). The registered
    set is part of the key: the later process scores anew, and the report with the plug-in stays the plug-in's."""
    from mtdiag.metrics import registered
    from tests.test_registry_surfaces import LongWords

    with registered(LongWords):
        with_plugin = report_cache.evaluate_stored(tico, Options())
        key_with = report_cache.key(tico, Options())
    without = report_cache.evaluate_stored(tico, Options())
    assert "long_words" in with_plugin.metrics and "long_words" not in without.metrics
    assert report_cache.key(tico, Options()) != key_with
    assert len(list(cache.glob("*.npz"))) == 2
    with registered(LongWords):
        assert report_cache.load(tico, Options()).metrics == with_plugin.metrics  # the plug-in's report is kept


def test_a_file_naming_a_metric_this_process_does_not_know_is_scored_again(cache, tico, monkeypatch):
    """Belt and braces: whatever wrote it, a file whose metrics this process cannot rebuild is removed, not a
    traceback."""
    from mtdiag.metrics import registered
    from tests.test_registry_surfaces import LongWords

    monkeypatch.setattr(report_cache, "registered_digest", lambda: "one key for every registered set")
    with registered(LongWords):
        report_cache.evaluate_stored(tico, Options(metrics=("bleu", "long_words")))
    (path,) = cache.glob("*.npz")
    assert report_cache.load(tico, Options(metrics=("bleu", "long_words"))) is None and not path.exists()


def test_a_metric_whose_source_cannot_be_read_is_never_kept(cache, tico):
    from mtdiag.metrics import registered
    from tests.test_registry_surfaces import LongWords

    made_here = type("Interactive", (LongWords,), {"__module__": "a_notebook_cell"})  # no module file to read
    with registered(made_here):
        assert report_cache.key(tico, Options()) is None
        report = report_cache.evaluate_stored(tico, Options(metrics=("bleu",)))
    assert report.metrics == ("bleu",) and not list(cache.glob("*.npz"))


def test_the_code_digest_reads_every_module_of_the_package():
    """The key's code is the whole package's (the metrics', the tokenisers'), not the scoring folder's alone."""
    assert report_cache.PACKAGE.name == "mtdiag" and (report_cache.PACKAGE / "metrics" / "standard.py").is_file()
