"""mtdiag.io: every input problem gives one clear sentence naming the file and the line (exact messages here)."""

from __future__ import annotations

import codecs
import io
from pathlib import Path

import pandas as pd
import pytest

from mtdiag.io import (
    InputError,
    Limits,
    decode_text,
    lang_pair_from_name,
    load_files,
    load_folder,
    load_path,
    load_table,
    read_human_scores,
    read_lines,
    read_table,
    split_lines,
    system_name_from_stem,
)

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "sample_data"
DEV = ROOT / "tests" / "data" / "dev" / "wmt21"
ACCEPTED = "accepted encodings are UTF-8 and UTF-16 with a byte-order mark"


def error_of(call, *args, **kwargs) -> InputError:
    with pytest.raises(InputError) as caught:
        call(*args, **kwargs)
    return caught.value


def write(folder: Path, files: dict[str, bytes | str]) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        (folder / name).write_bytes(content.encode() if isinstance(content, str) else content)
    return folder


# ------------------------------------------------------------------------------------------------ InputError


def test_input_error_carries_file_line_and_one_line_message():
    error = InputError("hyp.txt", "contains a NUL byte (binary file?)", 3)
    assert (error.file, error.line, str(error)) == ("hyp.txt", 3, "hyp.txt: line 3: contains a NUL byte (binary file?)")
    assert isinstance(error, ValueError)
    assert str(InputError("a.txt", "the file is empty")) == "a.txt: the file is empty"
    assert str(InputError("a\nb.txt", "two\nlines")) == "a b.txt: two lines"


# ------------------------------------------------------------------------------------------------ decoding


def test_utf8_plain_and_with_bom():
    assert decode_text("Grüße\n".encode(), "a.txt") == "Grüße\n"
    assert decode_text(codecs.BOM_UTF8 + "Grüße\nb\n".encode(), "a.txt") == "Grüße\nb\n"


@pytest.mark.parametrize("codec, bom", [("utf-16-le", codecs.BOM_UTF16_LE), ("utf-16-be", codecs.BOM_UTF16_BE)])
def test_utf16_with_bom(codec, bom):
    data = bom + "日本語\r\nGrüße\r\n".encode(codec)
    assert read_lines(data, "ja.txt") == ["日本語", "Grüße"]


def test_latin1_byte_in_utf8_file_names_file_line_column_and_offset():
    data = "first line\nCafé au lait\n".encode("latin-1")
    error = error_of(decode_text, data, "hyp.txt")
    assert str(error) == (
        f"hyp.txt: line 2: byte 0xE9 is not valid UTF-8 at column 4 (byte offset 14); {ACCEPTED}"
    )
    assert (error.file, error.line) == ("hyp.txt", 2)


def test_undecodable_byte_after_cr_line_ends_counts_lines():
    error = error_of(decode_text, b"a\r\nb\rc\xff", "old.txt")
    assert str(error) == f"old.txt: line 3: byte 0xFF is not valid UTF-8 at column 2 (byte offset 6); {ACCEPTED}"


def test_utf16_without_bom_is_refused_with_a_hint():
    error = error_of(decode_text, "hello\nworld\n".encode("utf-16-le"), "u16.txt")
    assert str(error) == "u16.txt: line 1: contains a NUL byte (UTF-16 without a byte-order mark? save it as UTF-8)"


def test_broken_utf16_names_line_and_offset():
    data = codecs.BOM_UTF16_LE + "ab\ncd".encode("utf-16-le") + b"\x00\xd8"
    error = error_of(decode_text, data, "u16.txt")
    assert str(error) == (
        f"u16.txt: line 2: bytes 0x00 0xD8 are not valid UTF-16-LE at column 3 (byte offset 12); {ACCEPTED}"
    )


def test_utf32_is_refused():
    error = error_of(decode_text, codecs.BOM_UTF32_LE + "a".encode("utf-32-le"), "u32.txt")
    assert str(error) == f"u32.txt: line 1: the file is UTF-32 (byte-order mark); {ACCEPTED}"


def test_crlf_and_cr_line_ends_become_lf():
    assert read_lines(b"a\r\nb\r\nc\r\n", "crlf.txt") == ["a", "b", "c"]
    assert read_lines(b"a\rb\rc", "cr.txt") == ["a", "b", "c"]
    assert read_lines(b"a\r\nb\nc\r", "mixed.txt") == ["a", "b", "c"]


def test_unicode_line_separators_stay_inside_a_segment():
    # Python's universal newlines (and so sacrebleu) split only on LF, CR and CRLF
    assert read_lines("a\u2028b\x85c\x0cd\n".encode(), "u.txt") == ["a\u2028b\x85c\x0cd"]


@pytest.mark.parametrize("data", [b"", b"\n", b"  \n\n\t\n", codecs.BOM_UTF8, codecs.BOM_UTF8 + b"\r\n"])
def test_empty_file(data):
    error = error_of(read_lines, data, "ref.txt")
    assert str(error) == "ref.txt: the file is empty"
    assert error.line is None


def test_nul_bytes_mean_a_binary_file():
    error = error_of(read_lines, b"one\ntwo\nthr\x00ee\n", "hyp.txt")
    assert str(error) == "hyp.txt: line 3: contains a NUL byte (binary file?)"
    assert error.line == 3


def test_binary_file_is_reported_as_binary_not_as_bad_utf8():
    gzip_header = b"\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\x03"
    error = error_of(read_lines, gzip_header, "out.txt.gz")
    assert str(error) == "out.txt.gz: line 1: contains a NUL byte (binary file?)"


# ------------------------------------------------------------------------------------------------ lines


def test_single_trailing_newline_makes_no_segment():
    assert split_lines("a\nb\n") == ["a", "b"]
    assert split_lines("a\nb") == ["a", "b"]
    assert split_lines("a\nb\n\n") == ["a", "b", ""]


def test_inner_empty_lines_are_segments_with_a_warning():
    warnings: list[str] = []
    assert read_lines(b"a\n\nb\n \nc\n", "hyp.txt", warnings=warnings) == ["a", "", "b", " ", "c"]
    assert warnings == ["hyp.txt: 2 empty lines (lines 2 and 4) kept as empty segments"]


def test_empty_line_warning_lists_the_first_few_and_the_count():
    warnings: list[str] = []
    read_lines(b"x\n" + b"\n" * 9 + b"y\n", "hyp.txt", warnings=warnings)
    assert warnings == ["hyp.txt: 9 empty lines (lines 2, 3, 4, 5, 6, …) kept as empty segments"]
    warnings.clear()
    read_lines(b"x\n\ny\n", "hyp.txt", warnings=warnings)
    assert warnings == ["hyp.txt: 1 empty line (line 2) kept as an empty segment"]


def test_html_is_plain_text_never_unescaped():
    lines = read_lines("a &amp; b <b>bold</b> &lt;\n".encode(), "h.txt")
    assert lines == ["a &amp; b <b>bold</b> &lt;"]


def test_file_over_the_byte_limit_is_refused_before_decoding(tmp_path):
    limits = Limits(max_file_bytes=10)
    error = error_of(read_lines, b"\xff" * 11, "big.txt", limits=limits)  # not decoded: no UTF-8 error
    how = "raise it with --max-file-mb N on the command line, or MTDIAG_MAX_FILE_MB for the dashboard"
    assert str(error) == f"big.txt: the file is too large: 11 bytes (the limit is 10 bytes per file; {how})"
    path = write(tmp_path, {"big.txt": "0123456789\n" * 100})
    error = error_of(read_lines, path / "big.txt", limits=Limits(max_file_bytes=1000))
    assert str(error) == (f"{path / 'big.txt'}: the file is too large: 1,100 bytes (the limit is 1,000 bytes per file; "
                          f"{how})")


def test_ten_thousand_word_segment_is_kept_with_a_warning():
    long_line = " ".join(["word"] * 10_001)
    warnings: list[str] = []
    lines = read_lines(f"short\n{long_line}\n".encode(), "hyp.txt", warnings=warnings)
    assert lines[1] == long_line
    assert warnings == [
        "hyp.txt: 1 segment over 10,000 words or 100,000 characters (line 2) kept whole; "
        "the dashboard shortens long segments on display"
    ]
    warnings.clear()
    read_lines(" ".join(["word"] * 10_000).encode(), "ok.txt", warnings=warnings)
    assert warnings == []


def test_long_unspaced_segment_warns_by_characters():
    warnings: list[str] = []
    read_lines(("語" * 12).encode(), "ja.txt", limits=Limits(long_segment_chars=10), warnings=warnings)
    assert warnings == [
        "ja.txt: 1 segment over 10,000 words or 10 characters (line 1) kept whole; "
        "the dashboard shortens long segments on display"
    ]


def test_read_lines_sources_path_file_object_and_pair(tmp_path):
    write(tmp_path, {"h.txt": "a\nb\n"})
    assert read_lines(tmp_path / "h.txt") == ["a", "b"]
    assert read_lines(str(tmp_path / "h.txt")) == ["a", "b"]
    upload = io.BytesIO(b"a\nb\n")
    upload.name = "upload.txt"
    assert read_lines(upload) == ["a", "b"]
    assert read_lines(upload) == ["a", "b"]  # read again from the start
    assert str(error_of(read_lines, ("shown.txt", b"\x00"))) == "shown.txt: line 1: contains a NUL byte (binary file?)"
    big = io.BytesIO(b"x" * 20)
    big.name = "big.txt"
    error = error_of(read_lines, big, limits=Limits(max_file_bytes=10))
    assert str(error).startswith("big.txt: the file is too large (the limit is 10 bytes per file; raise it with")


def test_missing_file_and_folder_instead_of_file(tmp_path):
    assert str(error_of(read_lines, tmp_path / "nope.txt")) == f"{tmp_path / 'nope.txt'}: no such file"
    assert str(error_of(read_lines, tmp_path)) == f"{tmp_path}: is a folder, not a file"


# ------------------------------------------------------------------------------------------------ load_files


REF = ("ref.A.txt", b"one\ntwo\nthree\n")


def test_load_files_builds_an_evalset():
    data = load_files(
        src=("src.txt", b"eins\nzwei\ndrei\n"),
        refs={"A": REF, "B": ("ref.B.txt", b"1\n2\n3\n")},
        hyps={"sys1": ("hyp1.txt", b"one\n\n3\n"), "sys2": ("hyp2.txt", b"one\ntwo\nthree")},
        name="upload",
        lang_pair="de-en",
    )
    assert data.n_segments == 3
    assert data.ref_names == ["A", "B"] and data.systems == ["sys1", "sys2"]
    assert data.src.tolist() == ["eins", "zwei", "drei"]
    assert data.hyps["sys1"].tolist() == ["one", "", "3"]
    assert data.refs.index.name == "seg" and data.name == "upload" and data.tgt_lang == "en"
    assert data.warnings == ("hyp1.txt: 1 empty line (line 2) kept as an empty segment",)


def test_load_files_from_paths(tmp_path):
    write(tmp_path, {"ref.txt": "a\nb\n", "h.txt": "a\nc\n"})
    data = load_files(refs={"ref": tmp_path / "ref.txt"}, hyps=[("h", str(tmp_path / "h.txt"))])
    assert "src" not in data.segments.columns and data.src.tolist() == ["", ""]
    assert data.hyps["h"].tolist() == ["a", "c"]


def test_different_line_counts_name_both_files():
    hyps = {"s1": ("hyp1.txt", b"1\n2\n3\n"), "s2": ("hyp2.txt", b"1\n2\n")}
    error = error_of(load_files, refs={"A": REF}, hyps=hyps)
    assert str(error) == "hyp2.txt: has 2 lines but ref.A.txt has 3"
    assert error.file == "hyp2.txt"
    error = error_of(load_files, src=("src.txt", b"x\n"), refs={"A": REF}, hyps={"s": ("hyp.txt", b"1\n2\n3\n")})
    assert str(error) == "src.txt: has 1 line but ref.A.txt has 3"
    error = error_of(load_files, refs={"A": REF, "B": ("ref.B.txt", b"1\n2\n3\n4\n")}, hyps={"s": REF})
    assert str(error) == "ref.B.txt: has 4 lines but ref.A.txt has 3"


def test_extra_blank_last_line_gets_a_hint():
    error = error_of(load_files, refs={"A": REF}, hyps={"s": ("hyp.txt", b"1\n2\n3\n\n")})
    assert str(error) == (
        "hyp.txt: has 4 lines but ref.A.txt has 3 (the last line of hyp.txt is empty: an extra blank line at the end?)"
    )


def test_bare_bytes_are_named_by_role():
    error = error_of(load_files, refs={"A": b"1\n2\n"}, hyps={"s": b"1\n"})
    assert str(error) == "system s: has 1 line but reference A has 2"


def test_duplicate_system_names_name_both_files():
    hyps = [("s", ("hyp1.txt", b"1\n2\n3\n")), ("s", ("hyp2.txt", b"1\n2\n3\n"))]
    error = error_of(load_files, refs={"A": REF}, hyps=hyps)
    assert str(error) == 'hyp2.txt: system name "s" is already used by hyp1.txt'


def test_duplicate_reference_names():
    error = error_of(load_files, refs=[("A", REF), ("A", ("other.txt", b"1\n2\n3\n"))], hyps={"s": REF})
    assert str(error) == 'other.txt: reference name "A" is already used by ref.A.txt'


def test_system_named_like_a_reference():
    error = error_of(load_files, refs={"A": REF}, hyps={"A": ("A.txt", b"1\n2\n3\n")})
    assert str(error) == 'A.txt: system name "A" is also the name of reference ref.A.txt'


def test_no_reference_or_no_system_given():
    assert str(error_of(load_files, hyps={"s": REF})) == "no reference and no source given: give the source (for reference-free checks) or a reference, or both"
    assert str(error_of(load_files, refs={"A": REF})) == "no system output file given; at least one is needed"


def test_load_files_decoding_errors_name_the_upload():
    error = error_of(load_files, refs={"A": REF}, hyps={"s": ("hyp.txt", "1\n2\né\n".encode("latin-1"))})
    assert str(error) == f"hyp.txt: line 3: byte 0xE9 is not valid UTF-8 at column 1 (byte offset 4); {ACCEPTED}"


def test_load_files_with_human_scores():
    human = ("scores.tsv", b"system\tseg_id\tscore\ns\t2\t-1.5\ns\t3\t\n")
    data = load_files(refs={"A": REF}, hyps={"s": REF}, human=human)
    assert data.human.to_dict("records") == [{"seg": 1, "system": "s", "score": -1.5}]


# ------------------------------------------------------------------------------------------------ tables


def test_tsv_table_roles():
    tsv = (
        "seg_id\tdoc\tsrc\tref.A\tref_B\tsys1\tsys2\n"
        "1\td1\tHallo\tHello\tHi\thello\t\n"
        '2\td1\t"Ja"\t"Yes"\tYes\tyes\tyes\n'
    )
    data = load_table(("wmt.en-de.tsv", tsv.encode()))
    assert data.ref_names == ["A", "B"] and data.systems == ["sys1", "sys2"]
    assert data.segments["doc"].tolist() == ["d1", "d1"]
    assert data.src.tolist() == ["Hallo", '"Ja"']  # TSV has no quoting: quotes are text
    assert data.refs["A"].tolist() == ["Hello", '"Yes"']
    assert data.name == "wmt.en-de" and data.lang_pair == "en-de"
    assert data.warnings == ('wmt.en-de.tsv: column "sys2": 1 empty value (line 2) kept as an empty segment',)


def test_csv_table_with_quotes_and_a_pandas_index_column():
    csv_text = ',src,ref,sysA,score\n0,"a, b","x ""y""",z,0.5\n1,c,d,e,0.7\n'
    data = load_table(("d.csv", csv_text.encode()))
    assert data.src.tolist() == ["a, b", "c"] and data.refs["ref"].tolist() == ['x "y"', "d"]
    assert data.systems == ["sysA"]
    assert data.warnings == (
        "d.csv: column 1 has no name and holds only numbers, so it is not read as a system",
        'd.csv: column "score" holds only numbers, so it is not read as a system',
    )


def test_jsonl_table():
    jsonl = (
        b'{"id": 1, "src": "a", "refA": "b", "refB": "c", "m1": "d"}\n'
        b"\n"  # blank lines are skipped
        b'{"id": 2, "src": "e", "refA": "f", "refB": "g", "m1": "h"}\n'
    )
    data = load_table(("d.jsonl", jsonl))
    assert data.ref_names == ["A", "B"] and data.systems == ["m1"] and data.hyps["m1"].tolist() == ["d", "h"]
    assert read_table(("d.jsonl", jsonl)).to_dict("list")["id"] == ["1", "2"]


def test_ref_like_names_that_are_systems():
    data = load_table(("d.tsv", b"ref\treformer\treference-free\n a\tb\tc\n"))
    assert data.ref_names == ["ref", "free"] and data.systems == ["reformer"]


def test_table_ragged_row():
    error = error_of(load_table, ("d.tsv", b"src\tref\tsysA\na\tb\tc\nd\te\n"))
    assert str(error) == "d.tsv: line 3: has 2 fields but the header has 3 columns (src, ref, sysA)"
    error = error_of(load_table, ("d.tsv", b"src\tref\tsysA\na\tb\tc\td\n"))
    assert str(error) == "d.tsv: line 2: has 4 fields but the header has 3 columns (src, ref, sysA)"
    error = error_of(load_table, ("d.tsv", b"src\tref\tsysA\n\na\tb\tc\n"))
    assert str(error) == "d.tsv: line 2: is blank but the header has 3 columns (src, ref, sysA)"


def test_table_trailing_blank_lines_are_ignored():
    assert load_table(("d.tsv", b"ref\tsys\na\tb\n\n\n")).n_segments == 1


def test_csv_row_spanning_lines_reports_the_next_row_line():
    error = error_of(load_table, ("d.csv", b'ref,sys\n"a\nb",c\nd\n'))
    assert str(error) == "d.csv: line 4: has 1 field but the header has 2 columns (ref, sys)"


def test_csv_unclosed_quote():
    error = error_of(load_table, ("d.csv", b'ref,sys\na,b\n"c,d\n'))
    assert str(error) == "d.csv: line 3: cannot parse the CSV row (unexpected end of data; an unclosed quote?)"


def test_table_without_reference_column_is_reference_free():
    evalset = load_table(("d.tsv", b"src\tsysA\tsysB\na\tb\tc\n"))
    assert not evalset.has_references and evalset.systems == ["sysA", "sysB"]


def test_table_without_reference_or_source_column():
    error = error_of(load_table, ("d.tsv", b"id\tsysA\tsysB\n1\tb\tc\n"))
    assert str(error) == (
        "d.tsv: line 1: no reference or source column; found columns id, sysA, sysB; "
        "expected a column named ref (or ref.NAME, ref_NAME, refNAME for several), or src for reference-free checks"
    )


def test_table_without_system_column():
    error = error_of(load_table, ("d.csv", b"seg_id,src,ref\n1,a,b\n"))
    assert str(error) == (
        "d.csv: line 1: no system column; found columns seg_id, src, ref; "
        "expected one text column per system besides src, ref* and seg_id/doc/doc_id/id"
    )


def test_table_duplicate_and_clashing_columns():
    error = error_of(load_table, ("d.tsv", b"ref\tsys\tsys\na\tb\tc\n"))
    assert str(error) == 'd.tsv: line 1: column "sys" appears more than once (columns 2 and 3)'
    error = error_of(load_table, ("d.tsv", b"ref.A\tref_A\tsys\na\tb\tc\n"))
    assert str(error) == 'd.tsv: line 1: columns "ref.A" and "ref_A" both name reference "A"'
    error = error_of(load_table, ("d.tsv", b"ref.A\tA\na\tb\n"))
    assert str(error) == 'd.tsv: line 1: system column "A" has the same name as reference column "ref.A"'
    error = error_of(load_table, ("d.tsv", b"ref\t\tsys\na\tb\tc\n"))
    assert str(error) == "d.tsv: line 1: column 2 has no name; name it src, ref or a system"


def test_table_header_only_and_unknown_format():
    assert str(error_of(load_table, ("d.tsv", b"ref\tsys\n"))) == "d.tsv: the file has a header (ref, sys) but no rows"
    error = error_of(load_table, ("d.xlsx", b"x"))
    assert str(error) == "d.xlsx: unknown table format; expected a .tsv, .csv or .jsonl file"
    assert load_table(("upload", b"ref,sys\na,b\n"), fmt="csv").systems == ["sys"]


def test_jsonl_bad_line():
    error = error_of(load_table, ("d.jsonl", b'{"ref": "a", "s": "b"}\n{"ref": "a", "s": "b"\n'))
    assert str(error) == "d.jsonl: line 2: not valid JSON (Expecting ',' delimiter at column 22)"
    assert error.line == 2


def test_jsonl_wrong_keys_and_values():
    first = b'{"ref": "a", "s": "b"}\n'
    error = error_of(load_table, ("d.jsonl", first + b'{"ref": "a", "t": "b"}\n'))
    assert str(error) == 'd.jsonl: line 2: missing key "s" (line 1 has keys ref, s; this line has ref, t)'
    error = error_of(load_table, ("d.jsonl", first + b'{"ref": "a", "s": "b", "t": "c"}\n'))
    assert str(error) == 'd.jsonl: line 2: unexpected key "t" (line 1 has keys ref, s; this line has ref, s, t)'
    error = error_of(load_table, ("d.jsonl", first + b'{"ref": "a", "s": null}\n'))
    assert str(error) == 'd.jsonl: line 2: "s" is null (a missing value); expected text'
    error = error_of(load_table, ("d.jsonl", first + b'{"ref": "a", "s": ["b"]}\n'))
    assert str(error) == 'd.jsonl: line 2: "s" is a list; expected text'
    error = error_of(load_table, ("d.jsonl", b'["ref", "s"]\n'))
    assert str(error) == "d.jsonl: line 1: expected a JSON object, found a list"


# ------------------------------------------------------------------------------------------------ human scores


def test_human_scores_long_tsv():
    tsv = (
        b"system\tseg_id\torig_seg_id\tmqm_score\n"
        b"sysA\t1\t7\t-0.000000\nsysA\t2\t8\t\nref.A\t2\t8\t-1.5\nref-C\t3\t9\t-25\n"
    )
    scores = read_human_scores(tsv, "mqm.seg.tsv", 3)
    assert scores.to_dict("records") == [
        {"seg": 0, "system": "sysA", "score": 0.0},
        {"seg": 1, "system": "ref.A", "score": -1.5},
        {"seg": 2, "system": "ref-C", "score": -25.0},
    ]
    assert str(scores["seg"].dtype) == "int64" and str(scores["score"].dtype) == "float64"


def test_human_scores_single_numeric_column_is_the_score():
    scores = read_human_scores(b"system\tseg_id\tqual\nA\t1\t80\n", "h.tsv", 1)
    assert scores["score"].tolist() == [80.0]


def test_human_scores_errors():
    head = b"system\tseg_id\tscore\n"
    in_range = "(seg_id is 1-based; the set has 2 segments, numbered 1 to 2)"
    cases = [
        (head + b"A\t1\t-1\nA\t2\tbad\n", 'h.tsv: line 3: score "bad" is not a number'),
        (head + b"A\t3\t-1\n", f"h.tsv: line 2: seg_id 3 is out of range {in_range}"),
        (head + b"A\t0\t-1\n", f"h.tsv: line 2: seg_id 0 is out of range {in_range}"),
        (head + b"A\tx\t-1\n", 'h.tsv: line 2: seg_id "x" is not a whole number'),
        (head + b"A\t1\t-1\nA\t1\t-2\n", "h.tsv: line 3: a second row for system A, seg_id 1 (the first is on line 2)"),
        (head + b"\t1\t-1\n", "h.tsv: line 2: the system name is empty"),
        (head + b"A\t1\n", "h.tsv: line 2: has 2 fields but the header has 3 columns (system, seg_id, score)"),
        (
            b"system\tseg\tscore\nA\t1\t-1\n",
            "h.tsv: line 1: missing column seg_id; found columns system, seg, score; "
            "expected system, seg_id and a score column",
        ),
        (
            b"system\tseg_id\tnote\nA\t1\tok\n",
            "h.tsv: line 1: no score column; found columns system, seg_id, note; "
            "expected score, mqm_score or one numeric column",
        ),
        (
            b"system\tseg_id\ta\tb\nA\t1\t1\t2\n",
            "h.tsv: line 1: several numeric columns (a, b) could be the score; name one score",
        ),
    ]
    for data, message in cases:
        assert str(error_of(read_human_scores, data, "h.tsv", 2)) == message


# ------------------------------------------------------------------------------------------------ folders


def test_folder_names():
    assert lang_pair_from_name("wmt21.en-de") == "en-de"
    assert lang_pair_from_name("en-de") == "en-de"
    assert lang_pair_from_name("tico19-en-fr") == "en-fr"
    assert lang_pair_from_name("/x/y/ZH-EN") == "zh-en"
    assert lang_pair_from_name("my_data") is None and lang_pair_from_name("sample") is None
    assert system_name_from_stem("newstest2021.en-de.Facebook-AI") == "Facebook-AI"
    assert system_name_from_stem("tico19dev.en-fr.Fairseq") == "Fairseq"
    assert system_name_from_stem("my-system") == "my-system"


@pytest.mark.parametrize(
    "folder, n, systems, refs, lang_pair, human_rows, term_rows",
    [
        ("wmt21.en-de", 117, 6, ["A", "C", "D"], "en-de", 9 * 117, 13),  # TICO-19 glossaries: 13 hits
        ("wmt21.en-ja", 150, 6, ["A"], "en-ja", None, 38),  # terms.tsv: 38 automatic glossary hits
        ("tico19.en-fr", 200, 1, ["A"], "en-fr", None, 159),  # terms.tsv: 159 human-annotated occurrences
    ],
)
def test_load_folder_on_the_sample_data(folder, n, systems, refs, lang_pair, human_rows, term_rows):
    data = load_folder(SAMPLE / folder)
    assert data.n_segments == n and len(data.systems) == systems and data.ref_names == refs
    assert data.lang_pair == lang_pair and data.name == folder
    assert data.src.str.len().gt(0).all()
    assert not any(s.startswith(("newstest", "tico19", "ref", "src")) for s in data.systems)
    assert (None if data.human is None else len(data.human)) == human_rows
    assert (None if data.terms is None else len(data.terms)) == term_rows and data.warnings == ()


def test_sample_systems_are_named_without_the_prefix():
    assert load_folder(SAMPLE / "tico19.en-fr").systems == ["Fairseq"]  # annotated files and terms.tsv skipped
    assert "Facebook-AI" in load_folder(SAMPLE / "wmt21.en-de").systems


def test_load_folder_on_dev_wmt21_en_de():
    data = load_folder(DEV / "en-de")
    assert (data.n_segments, len(data.systems), data.ref_names, data.lang_pair) == (1002, 12, ["A", "C", "D"], "en-de")
    human = data.human
    assert list(human.columns) == ["seg", "system", "score"]
    assert human["system"].nunique() == 11 and len(human) == 5797  # 8 systems + ref.A/C/D, blank = not rated
    assert human["seg"].between(0, 1001).all()
    assert set(human["system"]) - set(data.systems) == {"ref.A", "ref.C", "ref.D"}
    # WMT21 MQM table: Facebook-AI 1.05 (as -mean), see tests/data/README.md
    assert round(-human.loc[human.system == "Facebook-AI", "score"].mean(), 2) == 1.05


def test_real_empty_output_lines_warn():
    data = load_folder(DEV / "zh-en")
    assert data.warnings == (
        "newstest2021.zh-en.Online-W.txt: 2 empty lines (lines 515 and 1488) kept as empty segments",
    )
    assert data.hyps["Online-W"].iloc[514] == ""


def test_folder_layout_and_names(tmp_path):
    folder = write(tmp_path / "set.de-en", {
        "src.txt": "a\nb\n", "ref.txt": "x\ny\n", "ref.B.txt": "x\ny\n", "test.de-en.sys1.txt": "x\ny\n",
        "sys2.txt": "x\n\n", "src.annotated.txt": '<term id="1" src="a" tgt="x">a</term>\nb\n', "README.txt": "hi",
    })
    data = load_folder(folder)
    assert data.ref_names == ["B", "ref"]  # sorted by name
    assert data.systems == ["sys1", "sys2"] and data.lang_pair == "de-en"
    assert data.human is None and data.warnings == ("sys2.txt: 1 empty line (line 2) kept as an empty segment",)
    assert load_path(folder).systems == ["sys1", "sys2"]
    # tags only in src.annotated.txt: read from there, stripped from the source every metric sees
    assert data.src.tolist() == ["a", "b"]
    assert data.terms[["seg", "src_term", "tgt_terms"]].values.tolist() == [[0, "a", "x"]]


def test_folder_errors(tmp_path):
    assert str(error_of(load_folder, tmp_path / "gone")) == f"{tmp_path / 'gone'}: no such folder"
    write(tmp_path, {"file.txt": "a\n"})
    assert str(error_of(load_folder, tmp_path / "file.txt")) == f"{tmp_path / 'file.txt'}: is not a folder"
    empty = write(tmp_path / "empty", {})
    expected_ref = "no reference and no source file; expected ref.txt or ref.NAME.txt, or src.txt for reference-free checks"
    assert str(error_of(load_folder, empty)) == f"{empty}: {expected_ref}, found no .txt files"
    no_ref = write(tmp_path / "no_ref", {"src.txt": "a\n", "sys.txt": "b\n"})
    assert not load_folder(no_ref).has_references  # a source and outputs: reference-free
    no_src = write(tmp_path / "no_src", {"sys.txt": "b\n"})
    assert str(error_of(load_folder, no_src)) == f"{no_src}: {expected_ref}, found sys.txt"
    no_sys = write(tmp_path / "no_sys", {"src.txt": "a\n", "ref.A.txt": "b\n"})
    assert str(error_of(load_folder, no_sys)) == (
        f"{no_sys}: no system output file; expected a NAME.txt besides src.txt and ref*.txt, found ref.A.txt, src.txt"
    )


def test_folder_file_errors_name_the_file(tmp_path):
    folder = write(tmp_path / "f", {"ref.A.txt": "a\nb\n", "x.en-de.sys.txt": "a\n", "src.txt": "a\nb\n"})
    assert str(error_of(load_folder, folder)) == "x.en-de.sys.txt: has 1 line but ref.A.txt has 2"
    dup = write(tmp_path / "dup", {"ref.txt": "a\n", "sys.txt": "a\n", "wmt.en-de.sys.txt": "a\n"})
    assert str(error_of(load_folder, dup)) == 'wmt.en-de.sys.txt: system name "sys" is already used by sys.txt'
    clash = write(tmp_path / "clash", {"ref.A.txt": "a\n", "A.txt": "a\n"})
    assert str(error_of(load_folder, clash)) == 'A.txt: system name "A" is also the name of reference ref.A.txt'
    binary = write(tmp_path / "bin", {"ref.txt": "a\n", "sys.txt": b"\x00\x01"})
    assert str(error_of(load_folder, binary)) == "sys.txt: line 1: contains a NUL byte (binary file?)"


def test_folder_human_scores(tmp_path):
    folder = write(tmp_path / "h", {
        "ref.A.txt": "a\nb\n", "sys.txt": "a\nb\n",
        "mqm.seg.tsv": "system\tseg_id\tmqm_score\nsys\t1\t-1\nref.A\t2\t0\nother\t1\t-5\n",
    })
    data = load_folder(folder)
    assert data.human.to_dict("list") == {
        "seg": [0, 1, 0], "system": ["sys", "ref.A", "other"], "score": [-1.0, 0.0, -5.0]
    }
    assert data.warnings == ("mqm.seg.tsv: scores for systems not in the folder (other) are kept but match no output",)
    one = {"ref.A.txt": "a\n", "sys.txt": "a\n"}
    bad = write(tmp_path / "bad", {**one, "mqm.seg.tsv": "system\tseg_id\tscore\nsys\t2\t1\n"})
    assert str(error_of(load_folder, bad)) == (
        "mqm.seg.tsv: line 2: seg_id 2 is out of range (seg_id is 1-based; the set has 1 segment)"
    )
    unrated = write(tmp_path / "unrated", {**one, "mqm.seg.tsv": "system\tseg_id\tscore\nsys\t1\t\n"})
    data = load_folder(unrated)
    assert data.human is None and data.warnings == ("mqm.seg.tsv: no segment is rated, so there are no human scores",)


def test_load_path_table_and_missing(tmp_path):
    write(tmp_path, {"t.csv": "ref,sys\na,b\n"})
    assert load_path(tmp_path / "t.csv").systems == ["sys"]
    assert str(error_of(load_path, tmp_path / "none.tsv")) == f"{tmp_path / 'none.tsv'}: no such file or folder"


def test_io_does_not_import_streamlit():
    sources = sorted((ROOT / "mtdiag" / "io").glob("*.py"))
    assert len(sources) >= 8  # the package: __init__, text, tables, human, terms, naming, files, folders
    for path in sources:
        assert "streamlit" not in path.read_text(), path.name
    assert isinstance(read_table(("t.tsv", b"a\tb\n1\t2\n")), pd.DataFrame)


# ------------------------------------------------------------------------------------------------ one naming rule


@pytest.mark.parametrize("file_name, role", [
    ("ref.A.txt", ("ref", "A")),
    ("ref.txt", ("ref", "ref")),
    ("newstest2021.en-de.ref.B.txt", ("ref", "B")),
    ("ref-C.txt", ("ref", "C")),
    ("newstest2021.en-de.Facebook-AI.txt", ("system", "Facebook-AI")),
    ("generaltest2022.en-ja.X.txt", ("system", "X")),
    ("HW-TSC.txt", ("system", "HW-TSC")),
    ("src.txt", ("src", "src")),
    ("README.txt", None),
    ("LICENSE.txt", None),
    ("notes.txt", None),
    ("ref.A.annotated.txt", None),
    ("src.annotated.txt", None),
])
def test_file_roles(file_name, role):
    from mtdiag.io import file_role

    assert file_role(file_name) == role


def test_reference_and_system_names_from_files():
    from mtdiag.io import ref_name_from_file, system_name_from_file

    assert [ref_name_from_file(n) for n in ("ref.A.txt", "ref.txt", "newstest2021.en-de.ref.B.txt", "my.txt")] == [
        "A", "ref", "B", "my"]
    assert system_name_from_file("newstest2021.en-de.Facebook-AI.txt") == "Facebook-AI"
    assert system_name_from_file(" a .txt") == "a"


def test_language_pair_from_option_folder_or_file_names():
    from mtdiag.io import resolve_lang_pair

    assert resolve_lang_pair(folders=["wmt22.en-ja"]) == "en-ja"
    assert resolve_lang_pair(folders=["en-ja"]) == "en-ja"
    assert resolve_lang_pair(folders=["tmp"], file_names=["generaltest2022.en-ja.X.txt"]) == "en-ja"
    assert resolve_lang_pair(folders=["tmp"], file_names=["HW-TSC.txt", "Online-B.txt"]) is None
    assert resolve_lang_pair("ja") == "xx-ja"
    assert resolve_lang_pair("JA", folders=["wmt22.en-de"]) == "en-ja"


def test_folder_scan_skips_readme_and_names_prefixed_references(tmp_path):
    from mtdiag.io import folder_inputs

    folder = write(tmp_path / "wmt.en-de", {"ref.txt": "a\n", "newstest2021.en-de.ref.B.txt": "b\n",
                                            "README.txt": "about\n", "LICENSE.txt": "x\n", "notes.txt": "n\n",
                                            "newstest2021.en-de.Sys.txt": "a\n", "src.txt": "s\n"})
    inputs = folder_inputs(folder)
    assert inputs.src == folder / "src.txt"
    assert [name for name, _ in inputs.refs] == ["B", "ref"]
    assert [name for name, _ in inputs.systems] == ["Sys"]
    data = load_folder(folder)
    assert data.ref_names == ["B", "ref"] and data.systems == ["Sys"] and data.lang_pair == "en-de"


def test_folder_language_pair_from_system_file_names(tmp_path):
    folder = write(tmp_path / "data", {"ref.txt": "a\n", "generaltest2022.en-ja.X.txt": "a\n"})
    assert load_folder(folder).lang_pair == "en-ja"


# ------------------------------------------------------------------------------------------------ loader crashes


REF2 = ("ref.txt", b"a b c\nd e f\n")


@pytest.mark.parametrize("seg_id", ["\u00b2", "\u0661"])
def test_terms_seg_id_must_be_ascii_digits(seg_id):
    terms = ("terms.tsv", f"seg_id\tsrc_term\ttgt_term\n1\tx\ta\n{seg_id}\tz\td\n".encode())
    error = error_of(load_files, src=("src.txt", b"x y\nz w\n"), refs={"ref": REF2}, hyps={"s": REF2}, terms=terms)
    assert str(error) == f'terms.tsv: line 3: seg_id "{seg_id}" is not a segment number (write it in the digits 0-9)'


def test_terms_seg_id_with_underscore_is_refused():
    terms = ("terms.tsv", b"seg_id\tsrc_term\ttgt_term\n1_0\tx\ta\n")
    error = error_of(load_files, src=("src.txt", b"x y\nz w\n"), refs={"ref": REF2}, hyps={"s": REF2}, terms=terms)
    assert (error.file, error.line) == ("terms.tsv", 2)
    assert "seg_id '1_0' is not a segment number" in str(error)


def test_jsonl_number_over_the_digit_limit():
    error = error_of(read_table, ("t.jsonl", b'{"a": 1}\n{"a": ' + b"9" * 5000 + b"}\n"))
    assert str(error) == "t.jsonl: line 2: not readable JSON (a number has more than 4,300 digits)"


def test_jsonl_nested_100000_deep():
    error = error_of(read_table, ("t.jsonl", b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"))
    assert str(error) == "t.jsonl: line 1: not readable JSON (nested too deeply)"


def test_human_scores_20_digit_seg_id_without_a_segment_count():
    error = error_of(read_human_scores, ("h.tsv", b"system\tseg_id\tscore\ns\t12345678901234567890\t1\n"))
    assert str(error) == ('h.tsv: line 2: seg_id "12345678901234567890" is out of range (seg_id is 1-based; '
                          "at most 1,000,000,000,000)")
    assert read_human_scores(("h.tsv", b"system\tseg_id\tscore\ns\t1000000000000\t1\n"))["seg"].tolist() == [
        999_999_999_999]


@pytest.mark.parametrize("seg_id", ["\u0661", "1_0", "+1", "\u00b2"])
def test_human_scores_seg_id_is_ascii_digits_only(seg_id):
    error = error_of(read_human_scores, ("h.tsv", f"system\tseg_id\tscore\ns\t{seg_id}\t1\n".encode()), n_segments=20)
    assert str(error) == f'h.tsv: line 2: seg_id "{seg_id}" is not a whole number'


# ------------------------------------------------------------------------------------------------ small ones


def test_a_system_of_only_newlines_outputs_nothing():
    data = load_files(refs={"ref": REF2}, hyps={"s": ("s.txt", b"\n\n"), "t": REF2})
    assert data.hyps["s"].tolist() == ["", ""]
    assert data.warnings == ("s.txt: every line is empty: the system outputs nothing (kept, scored as empty output)",)
    assert str(error_of(load_files, refs={"ref": REF2}, hyps={"s": ("s.txt", b"\n\n\n")})) == "s.txt: the file is empty"
    assert str(error_of(load_files, refs={"ref": ("r.txt", b"\n\n")}, hyps={"s": REF2})) == "r.txt: the file is empty"


def test_a_system_of_only_newlines_in_a_folder(tmp_path):
    folder = write(tmp_path / "set", {"ref.txt": "a\nb\n", "empty.txt": "\n\n", "full.txt": "a\nb\n"})
    data = load_folder(folder)
    assert data.systems == ["empty", "full"]
    assert data.warnings == ("empty.txt: every line is empty: the system outputs nothing (kept, scored as empty output)",)


def test_names_differing_by_surrounding_space_are_one_name():
    error = error_of(load_files, refs={"ref": REF2}, hyps=[("a", ("a.txt", REF2[1])), ("a ", ("b.txt", REF2[1]))])
    assert str(error) == 'b.txt: system name "a" is already used by a.txt'
    assert load_files(refs={" ref ": REF2}, hyps={" s": REF2}).systems == ["s"]


def test_human_scores_for_systems_that_are_not_loaded_warn():
    human = ("h.tsv", b"system\tseg_id\tscore\na\t1\t1\nzz\t1\t2\nref.ref\t2\t0\n")
    data = load_files(refs={"ref": REF2}, hyps={"a": REF2}, human=human)
    assert data.warnings == ("h.tsv: scores for systems that are not loaded (zz) are kept but match no output",)
    assert len(data.human) == 3


# ------------------------------------------------------------------------------------------------ tables as text files


def test_load_files_reads_a_table_entry_as_its_one_text_column():
    ref = ("ref.jsonl", b'{"id": 1, "text": "a b c"}\n{"id": 2, "text": "d e f"}\n')
    hyp = ("a.tsv", b"seg_id\tscore\tMySys\n1\t0.5\ta b\n2\t0.1\t\n")
    data = load_files(refs={"ref": ref}, hyps={"a": hyp})
    assert data.refs["ref"].tolist() == ["a b c", "d e f"]
    assert data.hyps["a"].tolist() == ["a b", ""]
    assert data.warnings == ('a.tsv: column "MySys": 1 empty value (line 3) kept as an empty segment',)


def test_a_table_picks_the_column_of_its_role_among_several():
    table = ("t.csv", b"src,ref,MySys\nx,a b,a\ny,c d,c\n")
    data = load_files(src=table, refs={"ref": table}, hyps={"s": table})
    assert (data.src.tolist(), data.refs["ref"].tolist(), data.hyps["s"].tolist()) == (
        ["x", "y"], ["a b", "c d"], ["a", "c"])


def test_an_ambiguous_table_says_which_column_to_keep():
    ref = ("ref.jsonl", b'{"src": "x", "text": "a", "other": "b"}\n')
    error = error_of(load_files, refs={"ref": ref}, hyps={"s": ("s.txt", b"a\n")})
    assert str(error) == ("ref.jsonl: line 1: is read as a table with one text column for the reference, but it has "
                          "text columns src, text, other; keep only that column, or give it one ref or ref.NAME column")


def _zip(members: dict[str, bytes]) -> bytes:
    import io
    import zipfile

    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for member, data in members.items():
            archive.writestr(member, data)
    return buffer.getvalue()


DOCX = _zip({"[Content_Types].xml": b"<Types/>", "_rels/.rels": b"<Relationships/>",
             "word/document.xml": b"<w:document><w:body><w:p>Die Katze</w:p></w:body></w:document>"})


@pytest.mark.parametrize("data, said", [
    (DOCX, "looks like a Word document (.docx, a ZIP archive), not plain text: save it as plain text (UTF-8, one "
           "segment per line) and give that file"),
    (_zip({"[Content_Types].xml": b"<Types/>", "xl/workbook.xml": b"<workbook/>"}),
     "looks like an Excel workbook (.xlsx, a ZIP archive), not plain text: save it as plain text"),
    (_zip({"hyp.txt": b"a\nb\n"}), "looks like a ZIP archive, not plain text: unpack it and give the text files inside"),
    (b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", "looks like a PDF document, not plain text: save it as plain text"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + bytes(8), "looks like a Word or Excel file (.doc, .xls), not plain text"),
])
def test_a_document_renamed_txt_is_named_for_what_it_is(data, said):
    """A .docx renamed .txt said "contains a NUL byte (binary file?)": its first bytes say what it is, and what to
    do. A PDF holds invalid UTF-8 before any NUL byte: the same message, not a bad byte."""
    for reader in (read_lines, lambda source, name: decode_text(source, name)):
        error = error_of(reader, data, "hyp.txt")
        assert str(error).startswith(f"hyp.txt: {said}") and error.line is None, str(error)
