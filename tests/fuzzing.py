"""Mutation fuzzing of every input kind through the loaders the dashboard calls (``docs/inputs.md``, "Fuzzing"):
``tests/test_fuzz_inputs.py`` runs a few hundred inputs per kind, ``benchmarks/fuzz_inputs.py`` ten thousand.

Each kind is one row of :data:`KINDS`: a name, the file name it is uploaded as, its seed (real lines cut from
``tests/data``: the first segments of WMT21 zh-en, TED zh-en with its MQM errors and TICO-19 en-fr with its terms)
and the call the dashboard makes with it (``mtdiag/ui/uploads.py``: :func:`~mtdiag.io.load_files`,
:func:`~mtdiag.io.load_testset`, :func:`~mtdiag.io.with_error_annotations` (MQM, ESA, Pearmut logs),
:func:`~mtdiag.io.with_metric_spans`,
:func:`~mtdiag.io.with_metric_scores`), under the dashboard's limits for a server with a small memory budget
(:func:`mtdiag.ui.state.session_limits`). A new loader is one more row. A weights file (:func:`~mtdiag.io.read_error_weights`)
is fuzzed at real size: read under the default session budget's limits and applied to the whole TED zh-en error file
(9,915 rows of 13 systems, :func:`~mtdiag.io.weighed`), as the dashboard applies a scheme to the set it has loaded.

Input ``i`` of a kind is its seed with one to three mutations drawn by ``random.Random(f"{seed}:{kind}:{i}")`` —
so any input is rebuilt from its kind and number (:func:`fuzz_input`): byte flips, truncation, junk bytes,
re-encodings, byte-order marks, NUL bytes, giant lines, lines dropped or repeated, deep nesting, unicode tricks
(lone surrogate escapes, direction marks, line separators, non-ASCII digits), huge numbers, gzip and gzip bombs —
and structural mutations that multiply the work rather than the bytes (:data:`STRUCTURAL`, issue 39): many gzip
members, valid deep nesting, thousands of distinct system or metric names, very long single fields.
Every input must load or raise :class:`~mtdiag.core.errors.InputError` with a one-line message naming a file
(:func:`run_input`), and take at most :data:`MAX_SECONDS` of CPU (:func:`timed_input`).
"""

from __future__ import annotations

import csv
import gzip
import io
import json
import random
import re
import tempfile
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Callable

from mtdiag import io as mio
from mtdiag.core.errors import InputError
from mtdiag.ui import state
from tests import testset_formats

DATA = Path(__file__).resolve().parent / "data" / "dev"
N_SEGMENTS = 6
BUDGET_MB = 64  # the dashboard's limits for a 64 MB session budget: about 5 MB per file, 56,000 lines or cells
LIMITS = state.session_limits(BUDGET_MB)


# ------------------------------------------------------------------------------------------------------ seeds


@cache
def _head(path: Path, n: int = N_SEGMENTS) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:n])


def _rows(path: Path, keep: Callable[[list[str]], bool]) -> bytes:
    """The header of a TSV and its rows that ``keep`` accepts."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return ("\n".join([lines[0]] + [line for line in lines[1:] if keep(line.split("\t"))]) + "\n").encode()


@dataclass(frozen=True)
class Folder:
    """The first segments of a test folder of ``tests/data``: its files as bytes and the set they load to."""

    path: Path
    systems: tuple[str, ...]
    lang_pair: str

    def file(self, name: str) -> bytes:
        return _head(self.path / name)

    def hyp_name(self, system: str) -> str:
        return next(p.name for p in self.path.glob(f"*.{system}.txt"))

    def files(self, **extra) -> dict:
        """The arguments of :func:`mtdiag.io.load_files` for this folder, as the upload page gives them."""
        return dict(src=("src.txt", self.file("src.txt")), refs=[("A", ("ref.A.txt", self.file("ref.A.txt")))],
                    hyps=[(s, (self.hyp_name(s), self.file(self.hyp_name(s)))) for s in self.systems],
                    lang_pair=self.lang_pair, limits=LIMITS, **extra)


WMT = Folder(DATA / "wmt21" / "zh-en", ("Online-W", "NiuTrans", "SMU"), "zh-en")
TED = Folder(DATA / "ted" / "zh-en", ("Borderline", "DIDI-NLP", "Facebook-AI"), "zh-en")
TICO = Folder(DATA / "terminology" / "tico19-en-fr", ("Fairseq",), "en-fr")


@cache
def base_set(folder: Folder):
    return mio.load_files(**folder.files())


@cache
def testset_files() -> dict[str, bytes]:
    """The WMT seed as a whole test set in each format (written by :mod:`tests.testset_formats`)."""
    evalset = base_set(WMT)
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        files = {"xml": testset_formats.write_wmt_xml(evalset, out / "set.xml", "zh", "en").read_bytes(),
                 "tsv": testset_formats.write_tsv(evalset, out / "set.tsv").read_bytes(),
                 "jsonl": testset_formats.write_jsonl(evalset, out / "set.jsonl").read_bytes(),
                 "sgm": b"".join(p.read_bytes() for p in testset_formats.write_sgml(evalset, out / "sgml", "zh", "en"))}
    table = io.StringIO()
    csv.writer(table, lineterminator="\n").writerows(line.split("\t") for line in files["tsv"].decode().splitlines())
    files["csv"] = table.getvalue().encode()
    return files


def _scores() -> bytes:
    """Segment scores of the WMT seed's systems (the output's length in characters, scaled: a stand-in metric)."""
    evalset = base_set(WMT)
    rows = [f"{s}\t{i + 1}\t{len(evalset.hyps[s].iat[i]) / 1000:.4f}"
            for s in evalset.systems for i in range(evalset.n_segments)]
    return ("system\tseg_id\tcomet\n" + "\n".join(rows) + "\n").encode()


def _metric_spans() -> bytes:
    """One span per output of the WMT seed over its first word, as a JSON list of records (one per line)."""
    evalset = base_set(WMT)
    records = []
    for system in evalset.systems:
        for i, output in enumerate(evalset.hyps[system]):
            end = len(output.split(" ")[0])
            records.append(json.dumps({"system": system, "seg_id": i + 1, "error_spans": [
                {"start": 0, "end": end, "severity": "minor", "text": output[:end], "confidence": 0.25}]},
                ensure_ascii=False))
    return ("[\n" + ",\n".join(records) + "\n]\n").encode()


def _esa() -> bytes:
    evalset = base_set(WMT)
    lines = [json.dumps({"system": s, "seg_id": i + 1, "score": 50 + i, "error_spans": [
        {"start": 0, "end": 1, "severity": "major"}]}) for s in evalset.systems for i in range(evalset.n_segments)]
    return ("\n".join(lines) + "\n").encode()


def _pearmut_log() -> bytes:
    """Pearmut's annotation log of a campaign of the WMT seed (:func:`mtdiag.report.campaign.pearmut_campaign`): an
    annotator answering every page (its pre-filled spans kept, ``[missing]`` marked once, a page answered twice),
    another's reset."""
    from mtdiag.scoring.evaluate import Options, evaluate
    from mtdiag.report.campaign import pearmut_campaign

    campaign = pearmut_campaign(evaluate(base_set(WMT), Options()), top=100)
    lines = [{"user_id": "calm-heron-002", "annotation": "__RESET__"}]
    for i, page in enumerate(campaign.data["data"][0] + campaign.data["data"][0][:1]):
        item = page[0]
        answers = {key: {"score": 40 + i, "error_spans": list(item["error_spans"][key])} for key in item["tgt"]}
        first = next(iter(answers))
        end = len(item["tgt"][first].encode("utf-16-le")) // 2
        answers[first]["error_spans"].append({"start_i": end, "end_i": end, "severity": "major", "category": None})
        lines.append({"annotation": [answers], "actions": [{"time": 1.0 + i, "action": "submit"}], "item": [item],
                      "user_id": "brave-otter-001", "item_i": i % len(campaign.data["data"][0])})
    return "".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines).encode()


def _in_seed(row: list[str], folder: Folder) -> bool:
    return len(row) > 1 and row[0] in folder.systems and row[1].isdigit() and int(row[1]) <= N_SEGMENTS


REAL_LIMITS = state.session_limits()  # the default session budget's: a weights file is small, its work is not


@cache
def real_errors():
    """The whole TED zh-en set as the dashboard reads it: 13 systems, 529 segments, its 9,915 error rows unweighed."""
    return mio.load_folder(TED.path)


def _weights() -> bytes:
    """The WMT scheme's rules as a weights file (``severity, category, weight``)."""
    table = mio.DEFAULT_ERROR_WEIGHTS.table()
    return ("severity\tcategory\tweight\n" + "".join(f"{r.severity}\t{r.category}\t{r.weight:g}\n"
                                                   for r in table.itertuples())).encode()


def _weighed(upload: tuple[str, bytes]):
    """What choosing a weights file does: read it, weigh the loaded set's error rows by it."""
    return mio.weighed(real_errors(), mio.read_error_weights(upload, limits=REAL_LIMITS))


@dataclass(frozen=True)
class Kind:
    """An input kind: its name, the file name it is uploaded as, its seed bytes and the dashboard's call on one
    ``(file name, bytes)`` upload of it."""

    name: str
    file_name: str
    seed: Callable[[], bytes]
    load: Callable[[tuple[str, bytes]], object]


KINDS = [
    Kind("plain text", "sys.txt", lambda: WMT.file(WMT.hyp_name("Online-W")),
         lambda f: mio.load_files(**{**WMT.files(), "hyps": [("sys", f), ("SMU", ("smu.txt", WMT.file(WMT.hyp_name("SMU"))))]})),
    Kind("TSV", "set.tsv", lambda: testset_files()["tsv"], lambda f: mio.load_testset(f, limits=LIMITS)),
    Kind("CSV", "set.csv", lambda: testset_files()["csv"], lambda f: mio.load_testset(f, limits=LIMITS)),
    Kind("JSONL", "set.jsonl", lambda: testset_files()["jsonl"], lambda f: mio.load_testset(f, limits=LIMITS)),
    Kind("WMT XML", "set.xml", lambda: testset_files()["xml"], lambda f: mio.load_testset(f, limits=LIMITS)),
    Kind("SGML", "set.sgm", lambda: testset_files()["sgm"], lambda f: mio.load_testset(f, limits=LIMITS)),
    Kind("term file", "terms.tsv", lambda: _rows(TICO.path / "terms.tsv", lambda r: r[0].isdigit() and int(r[0]) <= N_SEGMENTS),
         lambda f: mio.load_files(**TICO.files(terms=f))),
    Kind("MQM errors", "mqm.errors.tsv", lambda: _rows(TED.path / "mqm.errors.tsv", lambda r: _in_seed(r, TED)),
         lambda f: mio.with_error_annotations(base_set(TED), f, limits=LIMITS)),
    Kind("ESA spans", "esa.jsonl", _esa, lambda f: mio.with_error_annotations(base_set(WMT), f, limits=LIMITS)),
    Kind("Pearmut log", "campaign.jsonl", _pearmut_log,
         lambda f: mio.with_error_annotations(base_set(WMT), f, limits=LIMITS)),
    Kind("scores", "scores.tsv", _scores, lambda f: mio.with_metric_scores(base_set(WMT), f, limits=LIMITS)),
    Kind("metric spans", "spans.json", _metric_spans, lambda f: mio.with_metric_spans(base_set(WMT), f, limits=LIMITS)),
    Kind("human scores", "mqm.seg.tsv", lambda: _rows(WMT.path / "mqm.seg.tsv", lambda r: _in_seed(r, WMT)),
         lambda f: mio.load_files(**WMT.files(human=f))),
    Kind("error weights", "weights.tsv", _weights, _weighed),
]


@cache
def seed_of(name: str) -> bytes:
    """The seed bytes of the kind called ``name`` (made once)."""
    return next(k for k in KINDS if k.name == name).seed()


# -------------------------------------------------------------------------------------------------- mutations


def _at(rng: random.Random, data: bytes) -> int:
    return rng.randrange(len(data) + 1)


def _insert(rng: random.Random, data: bytes, piece: bytes) -> bytes:
    at = _at(rng, data)
    return data[:at] + piece + data[at:]


def flip(rng, name, data):
    data = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if data:
            data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
    return name, bytes(data)


def truncate(rng, name, data):
    return name, data[:_at(rng, data)]


def junk(rng, name, data):
    return name, _insert(rng, data, rng.randbytes(rng.randint(1, 64)))


ENCODINGS = ["utf-16", "utf-16-le", "utf-16-be", "utf-32", "latin-1", "cp1252", "shift_jis", "gb18030", "utf-8-sig",
             "utf-7"]


def reencode(rng, name, data):
    return name, data.decode("utf-8", errors="replace").encode(rng.choice(ENCODINGS), errors="replace")


BOMS = [b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff", b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff", b"\xef\xbb\xbf" * 2]


def bom(rng, name, data):
    return name, rng.choice(BOMS) + data


def nul(rng, name, data):
    return name, _insert(rng, data, b"\x00" * rng.randint(1, 3))


GIANT_LINES = [1_000, 100_000, 1_000_001]  # characters; the last is over the segment limit


def giant_line(rng, name, data):
    size = rng.choice(GIANT_LINES)
    line = rng.choice([b"x" * size, b"a " * (size // 2), "中".encode() * size, b"\t" * size, b"," * size])
    lines = data.split(b"\n")
    lines.insert(rng.randrange(len(lines) + 1), line)
    return name, b"\n".join(lines)


def line_count(rng, name, data):
    lines = data.split(b"\n")
    at = rng.randrange(len(lines))
    what = rng.randrange(4)
    if what == 0:
        del lines[at]
    elif what == 1:
        lines.insert(at, lines[at])
    elif what == 2:
        lines.append(b"")
    else:
        lines.insert(at, b"\r")
    return name, b"\n".join(lines)


NESTING = [b"[", b'{"a":', b"<x>", b'<seg id="1">', b"<doc>", b"<term>", b"<v>", b'"']


def deep_nesting(rng, name, data):
    return name, _insert(rng, data, rng.choice(NESTING) * rng.choice([10, 1_000, 100_000]))


TRICKS = ["\\ud800", "\\udfff", "\\ud83d\\ude00", "\\u0000", "\u202e", "\u200b", "\u2028", "\u2029", "\ufeff", "\u0301",
          "\U0001f600", "\uff11", "\u0661", "\u00b2", "\xa0", "\r", "\r\n", "\x85", "\x0c", "\x1e", "\ufffd",
          "&amp;", "&#0;", "&#xD800;", "&bogus;", "]]>", "<!--", "<![CDATA[", "\\", '"', "'", "\t", ","]


def unicode_trick(rng, name, data):
    return name, _insert(rng, data, rng.choice(TRICKS).encode("utf-8"))


HUGE_NUMBERS = ["9" * 20, "9" * 400, "1" * 4301, "7" * 5000, "1e400", "-1e400", "1e-400", "NaN", "Infinity", "-0",
                "0x10", "1_000", "0", "-1", "2147483648", "9223372036854775808", "1.5", "١٢", "²"]
_NUMBER = re.compile(rb"\d+(?:\.\d+)?")


def huge_number(rng, name, data):
    numbers = list(_NUMBER.finditer(data))
    if not numbers:
        return name, data
    match = rng.choice(numbers)
    return name, data[:match.start()] + rng.choice(HUGE_NUMBERS).encode() + data[match.end():]


def gzipped(rng, name, data):
    return name + ".gz", gzip.compress(data, compresslevel=rng.choice([1, 9]))


BOMB_BLOCKS = [b"a\tb\n" * 250_000, b"x" * 1_000_000, b"\x00" * 1_000_000, b"a\t" * 500_000]  # 1 MB each


@cache
def _compressed_block(index: int) -> bytes:
    return gzip.compress(BOMB_BLOCKS[index], 9)


def gzip_bomb(rng, name, data):
    """A small gzip file that inflates past a limit: the seed's first line then repeated blocks of tiny rows, of
    one endless line, of NULs or of one endless header line (one compressed block repeated: gzip allows several
    members)."""
    index = rng.randrange(len(BOMB_BLOCKS))
    repeats = LIMITS.max_file_bytes // len(BOMB_BLOCKS[index]) + 2
    return name + ".gz", gzip.compress(data.split(b"\n")[0] + b"\n") + _compressed_block(index) * repeats


# ------------------------------------------------------------- structural mutations: they multiply work, not bytes


EMPTY_MEMBER = gzip.compress(b"")  # 20 bytes


def gzip_members(rng, name, data):
    """A gzip file of many members (issue 39: each member cost the inflater a copy of the rest of the file): the
    seed then thousands of empty members, the seed cut into members of a few bytes, or members between runs of
    zero padding."""
    what = rng.randrange(3)
    if what == 0:
        members = gzip.compress(data) + EMPTY_MEMBER * rng.choice([3_000, 50_000, 200_000])
    elif what == 1:  # at most 50,000 members (a mutation before may have made the data large)
        size = max(rng.choice([1, 4, 16]), -(-len(data) // 50_000))
        members = b"".join(gzip.compress(data[i:i + size]) for i in range(0, len(data), size))
    else:  # at most 8 MB of padding in all
        parts = data.split(b"\n")
        pad = b"\x00" * min(rng.choice([1, 1_000, 1_000_000]), 8_000_000 // len(parts))
        members = pad.join(gzip.compress(part) for part in parts)
    return name + ".gz", members


def deep_json(rng, name, data):
    """Nesting that is valid: a JSON string value replaced by lists nested ``depth`` deep (JSON files), or elements
    nested ``depth`` deep inside a segment (markup), or ``[`` runs in a cell (tables)."""
    depth = rng.choice([100, 1_000, 10_000, 100_000])
    if name.endswith((".json", ".jsonl")):
        strings = list(re.finditer(rb'"[^"\\]*"', data))
        if strings:
            match = rng.choice(strings)
            return name, data[:match.start()] + b"[" * depth + b"]" * depth + data[match.end():]
    if name.endswith((".xml", ".sgm")):
        return name, data.replace(b"</seg>", b"<x>" * depth + b"</x>" * depth + b"</seg>", 1)
    return name, _insert(rng, data, b"[" * depth)


NAME_COUNTS = [1_001, 5_000, 20_000]  # past the column limit (1,000), and far past it


GENERATED_BYTES = 25_000_000  # what one structural mutation may make, at most: an input, not a memory test


def _varied(block: bytes, pattern: bytes, count: int) -> bytes:
    """``block`` repeated ``count`` times (fewer when that would pass :data:`GENERATED_BYTES`), the first match of
    ``pattern`` (a regular expression with one group: a name) numbered in each copy."""
    count = max(1, min(count, GENERATED_BYTES // max(len(block), 1)))
    return b"".join(re.sub(pattern, lambda m: m.group(0).replace(m.group(1), m.group(1) + b"%d" % i), block, count=1)
                    for i in range(count))


def many_names(rng, name, data):
    """Thousands of distinct systems, metrics or columns — each a column of its own, with work of its own (issue 39:
    5,000 XML systems kept a server busy for 600 s; 16,000 span metrics slowed a report 3.4 times): the header
    widened (tables), records repeated with a name numbered (``system``, ``metric``), ``<hyp system>`` or
    ``<tstset sysid>`` elements repeated."""
    count = rng.choice(NAME_COUNTS)
    if name.endswith(".xml"):
        found = re.search(rb"<hyp [^>]*>.*?</hyp>", data, re.S)
        if found:
            return name, data[:found.end()] + _varied(found.group(0), rb'system="([^"]*)"', count) + data[found.end():]
    if name.endswith(".sgm"):
        found = re.search(rb"<tstset [^>]*>.*?</tstset>\n?", data, re.S)
        if found:
            return name, data + _varied(found.group(0), rb'sysid="([^"]*)"', count)
    lines = data.split(b"\n")
    if name.endswith((".json", ".jsonl")):
        key = rng.choice([b"system", b"metric"])
        records = [line for line in lines if line.startswith(b"{")]
        if records:
            record = records[0].rstrip(b",")
            if b'"metric"' not in record:
                record = record.replace(b"{", b'{"metric": "m", ', 1)
            copies = _varied(record + b"\n", b'"' + key + b'": "([^"]*)"', count).split(b"\n")[:-1]
            joiner = b",\n" if name.endswith(".json") else b"\n"
            return name, data.replace(records[0], joiner.join(copies) + (b"," if records[0].endswith(b",") else b""), 1)
    if name.endswith((".tsv", ".csv")) and len(lines) > 1:
        delimiter = b"," if name.endswith(".csv") else b"\t"
        if rng.random() < 0.5:  # the header widened: one more column per name, a cell for it in every row
            count = max(1, min(count, GENERATED_BYTES // (2 * len(lines))))
            extra = delimiter.join(b"c%d" % i for i in range(count))
            filler = delimiter.join([b"x"] * count)
            return name, b"\n".join([lines[0] + delimiter + extra]
                                    + [line + delimiter + filler if line else line for line in lines[1:]])
        return name, b"\n".join([lines[0], _varied(lines[1] + b"\n", rb"^([^\t,]*)", count).rstrip(b"\n"),
                                 *lines[2:]])
    return name, b"\n".join(lines + [b"line %d" % i for i in range(min(count, GENERATED_BYTES // 16))])


LONG_FIELDS = [10_000, 100_000, 1_000_001]  # characters; the last is over the segment limit


def long_field(rng, name, data):
    """One name, key, tag or value made very long (a system name, a metric, a JSON key, an XML attribute …): a
    word of the file repeated to tens of thousands or a million characters, in place."""
    words = list(re.finditer(rb"[A-Za-z_][A-Za-z0-9_.-]*", data))
    if not words:
        return name, data
    match = rng.choice(words)
    size = rng.choice(LONG_FIELDS)
    word = match.group(0)
    return name, data[:match.start()] + (word * (size // len(word) + 1))[:size] + data[match.end():]


MUTATIONS = [flip, truncate, junk, reencode, bom, nul, giant_line, line_count, deep_nesting, unicode_trick,
             huge_number, gzipped, gzip_bomb, gzip_members, deep_json, many_names, long_field]
STRUCTURAL = [gzip_members, deep_json, many_names, long_field]


def fuzz_input(kind: Kind, number: int, seed: int = 0) -> tuple[tuple[str, bytes], str]:
    """Input ``number`` of ``kind``: ((file name, bytes), the mutations applied, for a reproducer)."""
    rng = random.Random(f"{seed}:{kind.name}:{number}")
    name, data = kind.file_name, seed_of(kind.name)
    applied = []
    for mutation in rng.sample(MUTATIONS, rng.choice([1, 1, 2, 3])):
        if mutation in (gzipped, gzip_bomb, gzip_members) and name.endswith(".gz"):
            continue
        name, data = mutation(rng, name, data)
        applied.append(mutation.__name__)
    return (name, data), " + ".join(applied)


MAX_SECONDS = 2.0  # of CPU, per input (issue 39)


def timed_input(kind: Kind, upload: tuple[str, bytes]) -> tuple[str, float]:
    """:func:`run_input` and the CPU seconds it took (this process's: the machine may be shared)."""
    start = time.process_time()
    outcome = run_input(kind, upload)
    return outcome, time.process_time() - start


def run_input(kind: Kind, upload: tuple[str, bytes]) -> str:
    """``"loaded"`` or ``"refused"`` (an :class:`InputError`, one line naming a file); any other exception, or an
    InputError that names no file or spans lines, propagates."""
    try:
        kind.load(upload)
    except InputError as error:
        if not error.file or "\n" in str(error):
            raise AssertionError(f"an InputError must be one line naming a file: {str(error)[:300]!r}") from error
        return "refused"
    return "loaded"
