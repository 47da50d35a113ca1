"""Hostile inputs never crash a loader: every input either loads or raises :class:`~mtdiag.core.errors.InputError`, one
line naming a file (``docs/inputs.md``, "Fuzzing"); any other exception fails the test.

Two fuzzers, seeded and bounded (the file runs in about a minute):

- **mutation**: for every input kind of :data:`tests.fuzzing.KINDS` (plain text, TSV, CSV, JSONL, WMT XML, SGML,
  term files, MQM and ESA error files, score files, metric-span JSON, human scores; a new loader is one row
  there), its seed from ``tests/data`` loads, and :data:`INPUTS_PER_KIND` mutated copies (byte flips, truncation,
  junk, re-encodings, BOMs, NULs, giant lines, line-count changes, deep nesting, unicode tricks, huge numbers, gzip
  and gzip bombs; and the structural ones that multiply work: many gzip members, valid deep nesting, thousands of
  names, very long fields) go through the call the dashboard makes with that upload, under its limits, each in at
  most ``tests.fuzzing.MAX_SECONDS`` (2 s) of CPU.
  ``benchmarks/fuzz_inputs.py`` runs 10,000 per kind with the same generator.
- **grammar** (Hypothesis): 300 examples per reader of random bytes, documents built from hostile fragments in
  several encodings, and tables shaped like the real inputs, through every public reader of :mod:`mtdiag.io` and
  ``mtdiag.scoring.evaluate.evaluate`` on the sets they load.

The four crashes of an earlier probe are explicit regression cases at the end, as in ``tests/test_io.py``
(``test_terms_seg_id_must_be_ascii_digits``, ``test_jsonl_number_over_the_digit_limit``,
``test_jsonl_nested_100000_deep``, ``test_human_scores_20_digit_seg_id_without_a_segment_count``).
"""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mtdiag.scoring.evaluate import Options, evaluate
from mtdiag.io import (
    InputError,
    load_files,
    load_table,
    read_human_scores,
    read_metric_scores,
    read_lines,
    read_table,
    read_term_file,
)
from tests.fuzzing import KINDS, MAX_SECONDS, STRUCTURAL, fuzz_input, run_input, timed_input

INPUTS_PER_KIND = 300


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_every_seed_loads(kind):
    assert run_input(kind, (kind.file_name, kind.seed())) == "loaded"


@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_every_mutated_input_loads_or_is_refused(kind):
    outcomes = {"loaded": 0, "refused": 0}
    slowest = (0.0, -1)
    for number in range(INPUTS_PER_KIND):
        upload, applied = fuzz_input(kind, number)
        try:
            outcome, seconds = timed_input(kind, upload)
        except Exception as error:  # noqa: BLE001  (the reproducer is the kind and the input's number)
            raise AssertionError(f"{kind.name} input {number} ({applied}, {upload[0]}): "
                                 f"{type(error).__name__}: {str(error)[:300]}") from error
        outcomes[outcome] += 1
        slowest = max(slowest, (seconds, number))
    assert outcomes["loaded"] >= INPUTS_PER_KIND // 20 and outcomes["refused"] >= INPUTS_PER_KIND // 2, outcomes
    assert slowest[0] <= MAX_SECONDS, f"{kind.name} input {slowest[1]} took {slowest[0]:.2f} s of CPU"


@pytest.mark.parametrize("mutation", STRUCTURAL, ids=[m.__name__ for m in STRUCTURAL])
@pytest.mark.parametrize("kind", KINDS, ids=[k.name for k in KINDS])
def test_structural_mutations_load_or_are_refused_in_bounded_time(kind, mutation):
    """Issue 39: inputs that multiply the work rather than the bytes — many gzip members, valid deep nesting,
    thousands of system or metric names, very long single fields — each of the mutation's sizes, alone."""
    import random

    for number in range(12):
        rng = random.Random(f"structural:{kind.name}:{mutation.__name__}:{number}")
        upload = mutation(rng, kind.file_name, kind.seed())
        try:
            _, seconds = timed_input(kind, upload)
        except Exception as error:  # noqa: BLE001
            raise AssertionError(f"{kind.name}, {mutation.__name__} {number} ({upload[0]}): "
                                 f"{type(error).__name__}: {str(error)[:300]}") from error
        assert seconds <= MAX_SECONDS, f"{kind.name}, {mutation.__name__} {number}: {seconds:.2f} s of CPU"


FUZZ = settings(max_examples=300, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

FRAGMENTS = [
    "", "a", "b c", " ", "\t", ",", ";", '"', "'", "\\", "\n", "\r", "\r\n", "\x00", "\ufeff", "\u2028", "\x85", "\x0c",
    "<term>", "</term>", "<TERM>", '<term id="1" src="a" tgt="b">a</term>', '<term src="x">', "<b>bold</b>",
    "<script>alert(1)</script>", "![x](http://127.0.0.1:1/x.png)", "[x](javascript:alert(1))", "=1+1", "@SUM(A1)",
    "+1", "-0", "0", "1", "2", "10", "1e400", "NaN", "nan", "inf", "-inf", "9" * 5000, "[" * 3000, "{", "}", "[", "]",
    ":", "{}", "[]", "null", "true", '{"a": 1}', "\u00b2", "\u0661", "1_0", "\uff11", "12345678901234567890",
    "seg_id", "system", "score", "mqm_score", "src", "source", "ref", "ref.A", "refB", "target", "src_term",
    "tgt_term", "doc", "id", "x" * 3000, "日本語のテキスト", "中文", "\U0001f600", "é", "\u0301", "\u200b",
]
ENCODINGS = ["utf-8", "utf-8-sig", "utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252", "shift_jis"]
SUFFIXES = [".txt", ".tsv", ".tab", ".csv", ".jsonl", ".ndjson", ".TSV", ""]

texts = st.one_of(
    st.lists(st.sampled_from(FRAGMENTS), max_size=12).map("".join),
    st.text(max_size=60),
)


@st.composite
def encoded(draw, text_strategy=texts) -> bytes:
    """Text in one of several encodings (unencodable characters replaced), sometimes cut mid-character."""
    text = draw(text_strategy)
    data = text.encode(draw(st.sampled_from(ENCODINGS)), errors="replace")
    if draw(st.booleans()) and data:
        data = data[: draw(st.integers(0, len(data)))]
    return data


def _rows(cells, delimiter: str, width_range=(1, 4), rows=(0, 5)):
    return st.lists(st.lists(cells, min_size=width_range[0], max_size=width_range[1]).map(delimiter.join),
                    min_size=rows[0], max_size=rows[1]).map("\n".join)


cells = st.one_of(st.sampled_from(FRAGMENTS), st.text(max_size=8)).map(lambda c: c.replace("\n", " "))
header_names = st.sampled_from(["src", "source", "ref", "ref.A", "ref_B", "refC", "seg_id", "doc", "id", "sys", "Sys 2",
                                "score", "system", "", "ref", "x" * 50, "<b>h</b>"])


@st.composite
def delimited(draw) -> str:
    """A TSV or CSV document: a header of role names, then rows of hostile cells (often the header's width)."""
    delimiter = draw(st.sampled_from(["\t", ","]))
    header = draw(st.lists(header_names, min_size=1, max_size=4))
    width = len(header)
    body = draw(_rows(cells, delimiter, (width, width) if draw(st.booleans()) else (0, 5)))
    return delimiter.join(header) + "\n" + body + draw(st.sampled_from(["", "\n", "\n\n", "\r\n"]))


json_values = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=10), st.sampled_from(FRAGMENTS)),
    lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(st.text(max_size=5), children, max_size=3)),
    max_leaves=8,
)


@st.composite
def jsonl(draw) -> str:
    """JSON lines: objects with role keys and hostile values, raw fragments, deep nesting and huge numbers."""
    keys = draw(st.lists(header_names, min_size=1, max_size=3, unique=True))
    line = st.one_of(
        st.fixed_dictionaries({k: st.one_of(st.text(max_size=12), st.sampled_from(FRAGMENTS), json_values) for k in keys})
        .map(lambda o: json.dumps(o, ensure_ascii=False)),
        st.sampled_from(FRAGMENTS),
        st.integers(1, 3000).map(lambda d: '{"ref": ' + "[" * d + "]" * d + "}"),
        st.integers(4000, 6000).map(lambda d: '{"ref": ' + "7" * d + "}"),
    )
    return "\n".join(draw(st.lists(line, max_size=5)))


def _human(draw_rows):
    return "system\tseg_id\tscore\n" + draw_rows


human_docs = st.one_of(_rows(cells, "\t", (3, 3)).map(_human), delimited())
term_docs = st.one_of(
    _rows(cells, "\t", (3, 5)).map(lambda rows: "seg_id\tsrc_term\ttgt_term\n" + rows),
    _rows(cells, "\t", (2, 2)).map(lambda rows: "source\ttarget\n" + rows),
    delimited(),
)
any_bytes = st.one_of(st.binary(max_size=300), encoded(), encoded(st.one_of(delimited(), jsonl())))


def only_input_errors(call, *args, **kwargs):
    """The call's result, or None when it raised InputError; anything else propagates and fails the test."""
    try:
        return call(*args, **kwargs)
    except InputError as error:
        assert str(error) and "\n" not in str(error)  # one line
        return None


@FUZZ
@given(data=st.one_of(any_bytes, encoded(delimited()), encoded(jsonl()), encoded(human_docs), encoded(term_docs)),
       suffix=st.sampled_from(SUFFIXES), n_segments=st.one_of(st.none(), st.integers(1, 5)))
def test_readers(data, suffix, n_segments):
    """Each example goes to every reader: read_lines, read_table, load_table, read_human_scores, read_term_file,
    read_metric_scores."""
    lines = only_input_errors(read_lines, ("a.txt", data))
    assert lines is None or (lines and all("\n" not in line for line in lines))
    table = only_input_errors(read_table, (f"t{suffix}", data))
    assert table is None or len(table) >= 1
    evalset = only_input_errors(load_table, (f"t{suffix}", data))
    assert evalset is None or ((evalset.ref_names or evalset.src.astype(str).str.strip().ne("").any()) and evalset.systems)
    frame = only_input_errors(read_human_scores, ("h.tsv", data), n_segments=n_segments)
    if frame is not None:
        assert (frame["seg"] >= 0).all() and (n_segments is None or (frame["seg"] < n_segments).all())
    terms = only_input_errors(read_term_file, ("terms.tsv", data))
    assert terms is None or len(terms.rows) >= 1
    scores = only_input_errors(read_metric_scores, (f"s{suffix}", data), n_segments=n_segments)
    if scores is not None:
        frame, infos, _ = scores
        assert len(frame) and infos and (frame["seg"] >= 0).all()


line_texts = st.lists(st.sampled_from([f for f in FRAGMENTS if len(f) < 100] + ["the cat", "a dog", "x"]),
                      min_size=1, max_size=4).map("".join)


@st.composite
def text_file(draw, n_lines: int):
    """A one-segment-per-line file (mostly ``n_lines`` long) under a text or table file name."""
    n = n_lines if draw(st.integers(0, 9)) else draw(st.integers(0, n_lines + 2))
    lines = draw(st.lists(line_texts, min_size=n, max_size=n))
    suffix = draw(st.sampled_from([".txt"] * 6 + [".tsv", ".jsonl", ".csv"]))
    if suffix == ".jsonl":
        text = "\n".join(json.dumps({"text": line}) for line in lines)
    elif suffix in (".tsv", ".csv"):
        text = "text\n" + "\n".join(lines)
    else:
        text = "\n".join(lines) + draw(st.sampled_from(["", "\n", "\r\n"]))
    data = text.encode(draw(st.sampled_from(["utf-8"] * 8 + ["utf-16", "latin-1"])), errors="replace")
    return suffix, data


@st.composite
def file_sets(draw):
    """Arguments for load_files: a source (sometimes), 1-2 references, 1-3 systems with hostile names, optional
    human scores and terms, and a language pair."""
    n = draw(st.integers(1, 4))
    names = st.sampled_from(["A", "a", "a ", " ", "", "ref", "sys", "<b>x</b>", "![x](http://127.0.0.1:1/x)", "日本"])

    def entry(prefix, i):
        suffix, data = draw(text_file(n))
        return draw(names), (f"{prefix}{i}{suffix}", data)

    return dict(
        src=draw(st.one_of(st.none(), text_file(n).map(lambda s: (f"src{s[0]}", s[1])))),
        refs=[entry("ref", i) for i in range(draw(st.integers(1, 2)))],
        hyps=[entry("sys", i) for i in range(draw(st.integers(1, 3)))],
        human=draw(st.one_of(st.none(), encoded(human_docs).map(lambda d: ("h.tsv", d)))),
        terms=draw(st.one_of(st.none(), encoded(term_docs).map(lambda d: ("terms.tsv", d)))),
        lang_pair=draw(st.sampled_from([None, "en-de", "en-ja", "en-zh", "xx-ko", "en-"])),
    )


@FUZZ
@given(args=file_sets())
def test_load_files(args):
    only_input_errors(load_files, **args)


segment_texts = st.lists(st.sampled_from([f for f in FRAGMENTS if len(f) < 100 and not set(f) & set("\n\r\x00")
                                          and "term" not in f.lower()]
                                         + ["the cat", "a dog", "x", " "]), min_size=1, max_size=4).map("".join)


@st.composite
def loadable_sets(draw):
    """Sets that load: distinct names, equal line counts, hostile segment text (HTML, Markdown, formulas,
    term tags, huge numbers, scripts in several alphabets, empty and whitespace segments); a language pair that
    picks 13a, ja-mecab, zh or none."""
    n = draw(st.integers(1, 4))

    def files(name: str, first: str = "w ") -> tuple[str, bytes]:
        """``n`` segments, one per line, ending in a newline (so a last empty segment stays); sources and
        references start with a word (a file of only whitespace is empty), systems may output nothing."""
        lines = draw(st.lists(segment_texts, min_size=n, max_size=n))
        return name, ("\n".join([first + lines[0], *lines[1:]]) + "\n").encode()

    n_refs, n_hyps = draw(st.integers(1, 2)), draw(st.integers(1, 3))
    return dict(
        src=files("src.txt") if draw(st.booleans()) else None,
        refs=[(f"R{i}", files(f"ref.{i}.txt")) for i in range(n_refs)],
        hyps=[(f"S{i}", files(f"sys{i}.txt", first="")) for i in range(n_hyps)],
        lang_pair=draw(st.sampled_from([None, "en-de", "en-ja", "en-zh"])),
    )


@FUZZ
@given(args=loadable_sets(), lowercase=st.booleans())
def test_evaluate_on_loaded_sets(args, lowercase):
    evalset = only_input_errors(load_files, **args)
    if evalset is None:
        return
    report = evaluate(evalset, Options(lowercase=lowercase))
    assert list(report.corpus.index) == evalset.systems
    assert report.segments.shape[0] == len(evalset.systems) * evalset.n_segments


# ------------------------------------------------------------------------------ the crashes issue 11 reported


@pytest.mark.parametrize("call, file, line", [
    (lambda: read_term_file(("terms.tsv", "seg_id\tsrc_term\ttgt_term\n\u00b2\tx\ty\n".encode())), "terms.tsv", 2),
    (lambda: read_table(("t.jsonl", b'{"a": 1}\n{"a": ' + b"9" * 5000 + b"}\n")), "t.jsonl", 2),
    (lambda: read_table(("t.jsonl", b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n")), "t.jsonl", 1),
    (lambda: read_human_scores(("h.tsv", b"system\tseg_id\tscore\ns\t12345678901234567890\t1\n")), "h.tsv", 2),
], ids=["terms-superscript-seg-id", "jsonl-5000-digits", "jsonl-100000-deep", "human-20-digit-seg-id"])
def test_reported_crashes_are_input_errors(call, file, line):
    with pytest.raises(InputError) as caught:
        call()
    assert (caught.value.file, caught.value.line) == (file, line)
