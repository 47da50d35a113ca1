"""Shared helpers of the development-data builders: reading fetched git snapshots, writing a test-set folder in the
format mtdiag reads (docs/inputs.md), and the checks every folder passes before it is written.

Standard library, pandas and numpy only; nothing here imports mtdiag (the package is read, never needed, to build).
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

MIRROR = Path("/work/.mirror")

# The public repositories the builders read, each as fetched by the search tool's `fetch` into
# /work/.mirror/OWNER+NAME/repo (a bare git directory; files of 4 MiB and more are missing from the snapshots).
REPOS = {
    "qe23": "WMT-QE-Task/wmt-qe-2023-data",
    "wmt21": "wmt-conference/wmt21-news-systems",
    "wmt23": "wmt-conference/wmt23-news-systems",
    "wmt24": "wmt-conference/wmt24-news-systems",
    "mqm": "google/wmt-mqm-human-evaluation",
}


class Missing(Exception):
    """A file the builder needs is not in the snapshot (e.g. one of 4 MiB or more)."""


@dataclass
class Repo:
    """A fetched bare git repository, read at one commit (its HEAD unless given)."""

    name: str
    git_dir: Path
    commit: str = ""

    def __post_init__(self):
        if not self.commit:
            self.commit = self._git("rev-parse", "HEAD").decode().strip()

    def _git(self, *args: str) -> bytes:
        return subprocess.run(["git", "--git-dir", str(self.git_dir), *args], check=True,
                              capture_output=True).stdout

    def has(self, path: str) -> bool:
        """Whether the file's content is in the snapshot (listed files can lack their blob)."""
        listed = self._git("ls-tree", self.commit, "--", path).decode().split()
        if len(listed) < 3:
            return False
        return subprocess.run(["git", "--git-dir", str(self.git_dir), "cat-file", "-e", listed[2]],
                              capture_output=True).returncode == 0

    def read_bytes(self, path: str) -> bytes:
        if not self.has(path):
            raise Missing(f"{self.name}: {path} is not in the snapshot at {self.commit[:12]} "
                          "(files of 4 MiB and more are left out of fetched snapshots)")
        return self._git("show", f"{self.commit}:{path}")

    def read_text(self, path: str) -> str:
        return self.read_bytes(path).decode("utf-8")

    def read_lines(self, path: str) -> list[str]:
        """Lines of a one-segment-per-line file (the final newline ends the last line; no empty line is added)."""
        text = self.read_text(path)
        if text.endswith("\n"):
            text = text[:-1]
        return text.split("\n")

    def ls(self, prefix: str) -> list[str]:
        out = self._git("ls-tree", "-r", "--name-only", self.commit, "--", prefix).decode()
        return [line for line in out.splitlines() if line]

    def cite(self) -> str:
        return f"github.com/{self.name} @ {self.commit}"


def find_repo(key: str, given: dict[str, str] | None = None, mirror: Path = MIRROR) -> Repo:
    """The snapshot of ``REPOS[key]``: the path given (``--repo key=PATH``), else ``mirror/OWNER+NAME/repo``."""
    name = REPOS[key]
    path = Path(given[key]) if given and key in given else mirror / name.replace("/", "+") / "repo"
    if not path.exists():
        raise Missing(f"no snapshot of {name} at {path}: fetch github:{name} with the search tool's fetch, "
                      f"or give --repo {key}=PATH")
    return Repo(name, path)


_SPACE = re.compile(r"\s+")


def norm_ws(text: str) -> str:
    """Text compared modulo whitespace: runs of whitespace become one space, ends stripped."""
    return _SPACE.sub(" ", text).strip()


_BREAKS = str.maketrans({c: " " for c in "\t\n\r\u2028\u2029\x0b\x0c\x1c\x1d\x1e\x85"})


def clean_line(text: str) -> str:
    """A segment as one line of a text file: each tab or line-breaking character inside it becomes one space
    (one character for one, so character offsets into it still hold)."""
    return text.translate(_BREAKS)


_TYPO = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u00a0": " "})


def typographic(text: str) -> str:
    """Text with typographic quotes and no-break spaces made plain (the zh-en MQM release's texts have ' for ’)."""
    return text.translate(_TYPO)


def mark_span(text: str, start: int, end: int) -> str:
    """``text`` with ``<v>…</v>`` around characters ``start:end`` (MQM error-table convention)."""
    return f"{text[:start]}<v>{text[start:end]}</v>{text[end:]}"


def span_mapper(real: str, other: str):
    """For two strings equal modulo whitespace, a function taking a span ``(start, end)`` of ``other`` to the span
    of ``real`` over the same non-space characters (so spans annotated on a whitespace-normalised copy land on the
    real output); None when the strings differ otherwise."""
    if norm_ws(real) != norm_ws(other):
        return None
    if real == other:
        return lambda start, end: (start, end)
    real_at = [i for i, ch in enumerate(real) if not ch.isspace()]
    rank, k = [], 0  # rank[i]: how many non-space characters of ``other`` come before index i
    for ch in other:
        rank.append(k)
        k += not ch.isspace()
    rank.append(k)

    def mapped(start: int, end: int) -> tuple[int, int]:
        first, last = rank[start], rank[end]  # the non-space characters first .. last-1 are inside the span
        if last <= first:  # only whitespace: an empty span where it was
            at = real_at[first - 1] + 1 if first else 0
            return at, at
        return real_at[first], real_at[last - 1] + 1
    return mapped


@dataclass
class TestSet:
    """One folder to write: texts, human judgements, labels, provenance."""

    pair: str
    prefix: str  # file-name prefix of the systems, e.g. "newstest2021.en-ru"
    src: list[str]
    refs: dict[str, list[str]]  # "A" -> lines (written as ref.A.txt)
    systems: dict[str, list[str]]
    segments: list[dict] = field(default_factory=list)  # one dict per segment: seg_id first
    mqm_seg: list[tuple[str, int, float | None]] = field(default_factory=list)  # (system, seg_id, score or None)
    mqm_errors: list[dict] = field(default_factory=list)
    esa: list[dict] = field(default_factory=list)
    provenance: str = ""
    stats: dict = field(default_factory=dict)

    def check(self) -> None:
        """Every text file has the same number of lines, no line holds a line break or a tab, names are unique,
        seg_ids are 1-based and in range, spans lie inside the output they mark."""
        n = len(self.src)
        for name, lines in [("src", self.src), *[(f"ref.{k}", v) for k, v in self.refs.items()],
                            *self.systems.items()]:
            assert len(lines) == n, f"{name}: {len(lines)} lines, src has {n}"
            for i, line in enumerate(lines):
                assert line == clean_line(line), f"{name} line {i + 1}: a tab or line break inside"
        clash = set(self.systems) & ({f"ref.{k}" for k in self.refs} | set(self.refs))
        assert not clash, f"system names that are references: {clash}"
        texts = {**self.systems, **{f"ref.{k}": v for k, v in self.refs.items()}}
        for row in self.esa:
            assert 1 <= row["seg_id"] <= n
            out = texts[row["system"]][row["seg_id"] - 1]
            for span in row["error_spans"]:
                assert 0 <= span["start"] <= span["end"] <= len(out), (row["system"], row["seg_id"], span)
        for row in self.mqm_errors:
            assert 1 <= int(row["seg_id"]) <= n
            if "<v>" in row["target"]:
                plain = row["target"].replace("<v>", "").replace("</v>", "")
                assert plain == texts[row["system"]][int(row["seg_id"]) - 1], (row["system"], row["seg_id"])
        for system, seg, _ in self.mqm_seg:
            assert 1 <= seg <= n and (system in texts), (system, seg)

    def write(self, folder: Path) -> None:
        self.check()
        if folder.exists():
            shutil.rmtree(folder)
        folder.mkdir(parents=True)
        _write_lines(folder / "src.txt", self.src)
        for name, lines in self.refs.items():
            _write_lines(folder / f"ref.{name}.txt", lines)
        for name, lines in self.systems.items():
            _write_lines(folder / f"{self.prefix}.{name}.txt", lines)
        if self.segments:
            cols = list(self.segments[0])
            _write_tsv(folder / "segments.tsv", cols, [[row[c] for c in cols] for row in self.segments])
        if self.mqm_seg:
            _write_tsv(folder / "mqm.seg.tsv", ["system", "seg_id", "mqm_score"],
                       [[s, i, "" if v is None else f"{v:.6f}"] for s, i, v in self.mqm_seg])
        if self.mqm_errors:
            cols = ["system", "doc", "doc_id", "seg_id", "rater", "source", "target", "category", "severity"]
            _write_tsv(folder / "mqm.errors.tsv", cols, [[row[c] for c in cols] for row in self.mqm_errors])
        if self.esa:
            with open(folder / "esa.jsonl", "w", encoding="utf-8", newline="\n") as out:
                for row in self.esa:
                    out.write(json.dumps(row, ensure_ascii=False) + "\n")
        (folder / "PROVENANCE.md").write_text(self.provenance.rstrip() + "\n", encoding="utf-8")


def _write_lines(path: Path, lines: list[str]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for line in lines:
            out.write(line + "\n")


def _write_tsv(path: Path, header: list[str], rows: list[list]) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write("\t".join(header) + "\n")
        for row in rows:
            cells = [str(c) for c in row]
            for c in cells:
                assert "\t" not in c and "\n" not in c and "\r" not in c, (path.name, row[:4])
            out.write("\t".join(cells) + "\n")


def mean_table(rows: list[tuple[str, float]], header: tuple[str, str] = ("system", "mean")) -> str:
    """A markdown table of (name, value) rows, best first is the caller's order."""
    lines = [f"| {header[0]} | {header[1]} |", "|---|---|"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    return "\n".join(lines)


def csv_quote(text: str) -> str:
    """``text`` as a CSV writer quotes a field: in double quotes, each quote doubled."""
    return '"' + text.replace('"', '""') + '"'


def csv_unquote(text: str) -> tuple[str, bool]:
    """(``text`` without CSV quoting, whether it was quoted): a cell in double quotes whose every inner quote is
    doubled (``"US ""failures"" are …"``) is unquoted; anything else is kept as it is."""
    if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
        inner = text[1:-1]
        if '"' not in inner.replace('""', ""):
            return inner.replace('""', '"'), True
    return text, False


def quoted_offsets(text: str) -> list[int]:
    """For ``csv_quote(text)``, the index in ``text`` of every index of the quoted string (and of its end): the
    opening quote maps to 0, both quotes of a doubled pair to the one quote, the closing quote to ``len(text)``."""
    mapping = [0]
    for i, ch in enumerate(text):
        mapping.append(i)
        if ch == '"':
            mapping.append(i)
    mapping.append(len(text))  # the closing quote
    mapping.append(len(text))  # the end
    return mapping


def char_aligner(real: str, other: str):
    """A function taking a span ``(start, end)`` of ``other`` to the span of ``real`` over the same characters, by
    a character alignment (difflib); for texts that differ by a few characters (whitespace, quotes, a comma in a
    number), so that spans annotated on one land on the same words of the other."""
    import difflib

    at = [0] * (len(other) + 1)
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(None, other, real, autojunk=False).get_opcodes():
        for k in range(i1, i2):
            at[k] = j1 + (k - i1) if tag == "equal" else j1
    at[len(other)] = len(real)

    def mapped(start: int, end: int) -> tuple[int, int]:
        a = at[start] if start < len(other) else len(real)
        b = at[end - 1] + 1 if end > start else a
        return a, max(a, min(b, len(real)))
    return mapped


def skeleton(text: str) -> str:
    """The letters and digits of a text, in order (texts equal but for spacing, punctuation and quotes share it)."""
    return "".join(ch for ch in text if ch.isalnum())
