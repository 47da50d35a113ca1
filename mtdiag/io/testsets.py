"""Whole test sets in the field's formats: one path for ``--testset`` and for uploads (:func:`load_testset`).

- a **folder** of text files (:func:`mtdiag.io.load_folder`), or of WMT ``.sgm`` files (below);
- a year's folder of **WMT's mt-metrics-eval layout** (``wmt23/``: ``sources/``, ``system-outputs/``,
  ``human-scores/``, ``metric-scores/`` …), or a ``.zip``/``.tar.gz`` of one: one language pair of it with its human
  and metric scores (:mod:`mtdiag.io.mtme`);

- **WMT XML** (``.xml``, the WMT21+ format, as sacrebleu's ``WMTXMLDataset`` reads it): ``<dataset>`` /
  ``<collection>`` / ``<doc id=… origlang=… [domain=…]>`` holding ``<src lang=…>``, one ``<ref lang=…
  translator=…>`` per translator and one ``<hyp system=…>`` per system, each with ``<p>``/``<seg id=N>``. Documents
  in file order, segments by id; ``doc``, ``origlang`` and ``domain`` become label columns. Decisions as sacrebleu:
  a ``testsuite`` document is skipped, a segment with no reference from any translator is skipped (one warning);
  unlike sacrebleu, a system that misses a segment is an error naming the document, system and segment (an
  output can't be scored against a reference it lacks). References are named by ``translator`` (``ref`` without
  one). Parsed with ``defusedxml`` (no entity expansion, no external entities: uploads may be hostile).
- **SGML** (``.sgm``/``.sgml``, WMT up to 2020): ``<srcset>``, ``<refset>`` and ``<tstset>`` sets of ``<doc
  docid=… sysid=…>`` with one ``<seg id=N>…</seg>`` per line; one set per file (the WMT releases) or several in one
  file (mteval's combined format). A folder of ``.sgm`` files is one test set. The text of a segment is taken as
  written with the five XML entities (``&amp; &lt; &gt; &quot; &apos;``) decoded — WMT's wrap scripts escape
  them. Segments are matched to the source by (document, segment id); names come from ``sysid`` (``ref`` →
  ``ref``; ``ref-A``/``A`` → ``A``).
- **TSV/CSV/JSONL** with named columns (:func:`mtdiag.io.load_table`).
- **Without references**: an XML file with no ``<ref>``, SGML with a ``<srcset>`` and no
  ``<refset>``, a table with ``src`` and system columns and no ``ref*`` column give a reference-free set (the
  source, the outputs; the reference-free checks and metrics): every segment is kept (the "no reference, skipped"
  rule applies only where some references exist), and the target language comes from ``<hyp lang=…>`` (XML) or the
  ``<tstset trglang=…>`` (SGML). Without a source either, there is nothing to check the outputs against: an error.
- Any of these **gzip**-compressed (``.gz``): decompressed with the same size limit as any file (a small
  compressed upload cannot expand past it).

Every problem is an :class:`~mtdiag.core.errors.InputError` naming the file and the line or XML element.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from mtdiag.core.errors import InputError
from mtdiag.core.evalset import EvalSet
from mtdiag.io.files import TextFile, assemble
from mtdiag.io.archives import is_archive_name
from mtdiag.io.folders import load_folder
from mtdiag.io.mtme import LayoutChoice, is_layout_folder, load_mtme, open_layout

from mtdiag.io.naming import clean_name, lang_pair_from_name, ref_name_from_column
from mtdiag.io.parsing import DELIMITERS, MAX_SEG_ID, TABLE_FORMATS, check_columns
from mtdiag.io.tables import load_table
from mtdiag.io.text import DEFAULT_LIMITS, Limits, Source, decode_text, quote, read_counted, unpack

XML_SUFFIXES = (".xml",)
SGML_SUFFIXES = (".sgm", ".sgml")
TESTSET_SUFFIXES = (*XML_SUFFIXES, *SGML_SUFFIXES, *TABLE_FORMATS)


def _inner_name(display: str) -> str:
    """The file name without a trailing ``.gz``."""
    return display[:-3] if display.lower().endswith(".gz") else display


def read_maybe_gzip(source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS,
                    markup: bool = False, delimiter: bytes | None = None) -> tuple[bytes, str]:
    """The bytes of a file, inflated when its name ends in ``.gz``, and its display name.

    The bytes are counted while they are read or inflated (:func:`mtdiag.io.text.read_counted`: bytes, lines, for
    ``markup`` tags, for a table's ``delimiter`` its header cells), so a small compressed file that would expand past a
    limit is refused as soon as it does."""
    display = name or unpack(source, "input")[1]
    data, display, _ = read_counted(source, display, limits, markup=markup, delimiter=delimiter,
                                    inflate=display.lower().endswith(".gz"))
    return data, display


def load_testset(path: str | os.PathLike[str] | tuple[str, bytes], *, limits: Limits = DEFAULT_LIMITS,
                 layout: LayoutChoice | None = None) -> EvalSet:
    """A whole test set from a folder, a WMT XML file, an SGML file, or a TSV/CSV/JSONL table (any ``.gz``).

    A year's folder of WMT's mt-metrics-eval layout, or a ``.zip``/``.tar.gz`` of one, is one language pair of it
    (:func:`mtdiag.io.mtme.load_mtme`; ``layout`` chooses the pair, the human score, the references and the human
    outputs included)."""
    name = path[0] if isinstance(path, tuple) else str(path)
    if is_archive_name(name) or (not isinstance(path, tuple) and is_layout_folder(path)):
        return load_mtme(open_layout(path, limits=limits), layout or LayoutChoice(), limits=limits)
    if layout is not None and layout != LayoutChoice():
        raise InputError(name, "is no folder or archive of WMT's mt-metrics-eval layout (sources/, system-outputs/, "
                               "…): a language pair, human score type, references or outputs to include apply to one")
    if not isinstance(path, tuple):
        folder = Path(path)
        if folder.is_dir():
            sgml = sorted(p for p in folder.iterdir() if p.is_file() and _inner_name(p.name).lower().endswith(SGML_SUFFIXES))
            if sgml and not any(p.name.lower().startswith("ref") and p.suffix.lower() == ".txt" for p in folder.iterdir()):
                return load_sgml([(p.name, p) for p in sgml], name=folder.resolve().name, limits=limits)
            return load_folder(folder, limits=limits)
        if not folder.exists():
            raise InputError(str(path), "no such file or folder")
        source: Source = folder
        display = str(path)
    else:
        display, source = path[0], path
    kind = _inner_name(Path(display).name).lower()
    if kind.endswith(XML_SUFFIXES):
        return load_wmt_xml(source, display, limits=limits)
    if kind.endswith(SGML_SUFFIXES):
        return load_sgml([(display, source)], limits=limits)
    if kind.endswith(tuple(TABLE_FORMATS)):
        fmt = TABLE_FORMATS[Path(kind).suffix]
        delimiter = DELIMITERS.get(fmt)
        data, shown = read_maybe_gzip(source, display, limits=limits, delimiter=delimiter and delimiter.encode())
        stem = Path(_inner_name(shown)).stem  # messages name the file as given (x.tsv.gz), the set is x
        evalset = load_table((shown, data), fmt=fmt, lang_pair=lang_pair_from_name(stem), limits=limits)
        return replace(evalset, name=stem)
    raise InputError(display, "unknown test-set format; expected a folder, .xml (WMT), .sgm, .tsv, .csv or .jsonl "
                              "(optionally .gz)")


_NAMED = {"xml": re.compile(rb"<hyp\b[^>]*?\bsystem\s*=\s*[\"']([^\"']*)"),
          "sgml": re.compile(rb"<(?:tstset|refset|srcset)\b[^>]*?\bsysid\s*=\s*[\"']?([^\"'\s>]*)", re.IGNORECASE)}


def testset_shape(display: str, data: bytes) -> tuple[int, int]:
    """Upper bounds of (segments, systems) of the test set in ``data``, read from its bytes without parsing it.

    ``data`` is a test-set file named ``display``, inflated. Counting is C (``bytes.count``, one regular-expression
    scan): a table's lines and header columns, or an XML/SGML file's ``<seg`` elements and distinct system names. What
    the dashboard judges an upload's memory by before it is parsed (:func:`mtdiag.ui.state.testset_over_budget`)."""
    kind = _inner_name(Path(display).name).lower()
    if kind.endswith(XML_SUFFIXES + SGML_SUFFIXES):
        systems = len(set(_NAMED["xml" if kind.endswith(XML_SUFFIXES) else "sgml"].findall(data))) or 1
        return data.count(b"<seg"), systems
    lines = data.count(b"\n") + (not data.endswith(b"\n"))
    first = data.split(b"\n", 1)[0]
    delimiter = DELIMITERS.get(TABLE_FORMATS.get(Path(kind).suffix, ""))
    columns = first.count(delimiter.encode()) + 1 if delimiter else max(first.count(b'":'), 1)
    return max(lines - (delimiter is not None), 0), max(columns - 1, 1)  # a header; one column the source


# ------------------------------------------------------------------------------------------------- WMT XML


def _seg_number(raw: str) -> int | None:
    """A segment id written in ASCII digits, of no more digits than :data:`~mtdiag.io.parsing.MAX_SEG_ID` (so never
    past Python's limit on converting digits), as a number; else None."""
    if not raw.isascii() or not raw.isdigit() or len(raw.lstrip("0")) > len(str(MAX_SEG_ID)):
        return None
    return int(raw)


_SEG_ID_NEEDED = f"needs a whole-number id (at most {MAX_SEG_ID:,})"


def _seg_id(seg, where: str, display: str) -> int:
    raw = seg.get("id")
    number = None if raw is None else _seg_number(raw.strip())
    if number is None:
        raise InputError(display, f"{where}: <seg id={quote(str(raw))}> {_SEG_ID_NEEDED}")
    return number


def _segments(element, where: str, display: str, limits: Limits) -> dict[int, str]:
    out: dict[int, str] = {}
    for seg in element.iter("seg"):
        seg_id = _seg_id(seg, where, display)
        if seg_id in out:
            raise InputError(display, f"{where}: <seg id=\"{seg_id}\"> appears twice")
        out[seg_id] = "".join(seg.itertext())
        if len(out[seg_id]) > limits.max_segment_chars:
            raise limits.exceeded(display, "max_segment_chars",
                                  f"{where} <seg id=\"{seg_id}\"> has {len(out[seg_id]):,} characters")
    return out


def _check_width(display: str, systems: int, references: int, limits: Limits) -> None:
    """Refuse a set of more systems and references than a table may have columns (``limits.max_columns``): each is a
    column of its own, scored, tested and drawn — counted from the parsed tree (XML) or the sets (SGML), before any
    segment is read into a frame."""
    if references:
        check_columns(display, systems + references, limits, what="systems and references",
                      detail=f" ({systems:,} system{'s' * (systems != 1)} and {references:,} "
                             f"reference{'s' * (references != 1)})")
    else:
        check_columns(display, systems, limits, what="systems")


def load_wmt_xml(source: Source, name: str | None = None, *, limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """An :class:`EvalSet` from a WMT21+ XML test set (see the module docstring)."""
    data, display = read_maybe_gzip(source, name, limits=limits, markup=True)
    root = _xml_root(data, display)
    src_langs = {e.get("lang") for e in root.iter("src")}
    ref_langs = {e.get("lang") for e in root.iter("ref")}
    if len(src_langs) != 1:
        raise InputError(display, f"expected one source language in <src lang=…>, found {len(src_langs)}")
    if len(ref_langs) > 1:
        raise InputError(display, f"expected one reference language in <ref lang=…>, found {sorted(map(str, ref_langs))}")
    translators = list(dict.fromkeys(e.get("translator") or "" for e in root.iter("ref")))
    systems = list(dict.fromkeys(e.get("system") or "" for e in root.iter("hyp")))
    if not systems:
        raise InputError(display, "has no <hyp system=…> element: there is no system output to score")
    if "" in systems:
        raise InputError(display, "a <hyp> element has no system attribute")
    _check_width(display, len(systems), len(translators), limits)
    rows, skipped = [], 0
    for doc in root.iter("doc"):
        if "testsuite" not in doc.attrib:
            skipped += _doc_rows(doc, systems, translators, display, limits, rows)
    if not rows:
        raise InputError(display, "has no segment with a reference" if translators else "has no segment")
    warnings = [f"{display}: {skipped} source segment(s) without any reference were skipped (as sacrebleu)"] if skipped else []
    ref_names = [clean_name(t) or "ref" for t in translators]
    hyp_langs = {e.get("lang") or e.get("language") for e in root.iter("hyp")} - {None, ""}
    src_lang = next(iter(src_langs))
    ref_lang = next(iter(ref_langs)) if ref_langs else (next(iter(hyp_langs)) if len(hyp_langs) == 1 else None)
    collection = next(iter(root.iter("collection")), None)
    set_name = (collection.get("id") if collection is not None else None) or root.get("id") or Path(_inner_name(display)).stem
    evalset = assemble(
        TextFile("src", display, [r[3] for r in rows]),
        [TextFile(ref, display, [r[4][k] for r in rows]) for k, ref in enumerate(ref_names)],
        [TextFile(clean_name(s), display, [r[5][k] for r in rows]) for k, s in enumerate(systems)],
        name=set_name, lang_pair=f"{src_lang}-{ref_lang}" if src_lang and ref_lang else None, human=None,
        warnings=warnings)
    labels = {"doc": [r[0] for r in rows], "origlang": [r[1] for r in rows]}
    if any(r[2] is not None for r in rows):
        labels["domain"] = [r[2] or "" for r in rows]
    return replace(evalset, segments=evalset.segments.assign(**labels))


def _xml_root(data: bytes, display: str):
    """The root element of a WMT XML file, parsed without entities, DTDs or external references; every parse
    failure is an :class:`InputError` naming the file (and the line where expat gives one)."""
    from defusedxml import ElementTree as SafeTree
    from defusedxml.common import DefusedXmlException

    try:
        return SafeTree.fromstring(data, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise InputError(display, f"uses XML entities or DTDs, which are not accepted ({type(exc).__name__})") from None
    except SafeTree.ParseError as exc:
        line = getattr(exc, "position", (None, None))[0]
        raise InputError(display, f"is not well-formed XML: {str(exc).split(':')[0]}", line) from None
    except (LookupError, ValueError) as exc:  # expat: an unknown or a multi-byte declared encoding
        declared = re.search(rb"""encoding\s*=\s*["']([^"']{0,40})""", data[:200])
        shown = quote(declared.group(1).decode("latin-1")) if declared else "its"
        raise InputError(display, f"the XML declaration names encoding {shown}, which cannot be read ({exc}); "
                                  "save the file as UTF-8", 1) from None


def _doc_rows(doc, systems: list[str], translators: list[str], display: str, limits: Limits, rows: list) -> int:
    """Append to ``rows`` one ``(doc, origlang, domain, source, references, outputs)`` per segment of a ``<doc>``
    with a reference (every segment when the set has no reference); return how many were skipped for having none
    (as sacrebleu). Every document needs every system's output of every segment."""
    doc_id = doc.get("id", "")
    where = f"<doc id={quote(doc_id)}>"
    src_elements = doc.findall("src")
    if len(src_elements) != 1:
        raise InputError(display, f"{where}: expected one <src>, found {len(src_elements)}")
    src = _segments(src_elements[0], f"{where} <src>", display, limits)
    refs = {ref.get("translator") or "": _segments(
                ref, f"{where} <ref translator={quote(ref.get('translator') or '')}>", display, limits)
            for ref in doc.findall("ref")}
    hyps = {hyp.get("system"): _segments(hyp, f"{where} <hyp system={quote(hyp.get('system'))}>", display, limits)
            for hyp in doc.findall("hyp")}
    for system in systems:
        if system not in hyps:
            raise InputError(display, f"{where}: no <hyp system={quote(system)}> (every document needs every system)")
    skipped = 0
    for seg_id in sorted(src):
        if translators and not any(refs.get(t, {}).get(seg_id, "") for t in translators):
            skipped += 1
            continue
        for system in systems:
            if seg_id not in hyps[system]:
                raise InputError(display, f"{where} <hyp system={quote(system)}>: no <seg id=\"{seg_id}\"> for "
                                          "the source segment of that id")
        rows.append((doc_id, doc.get("origlang"), doc.get("domain"), src[seg_id],
                     [refs.get(t, {}).get(seg_id, "") for t in translators],
                     [hyps[s][seg_id] for s in systems]))
    return skipped


# ---------------------------------------------------------------------------------------------------- SGML

_TAG = re.compile(r"<(/?)(srcset|refset|tstset|doc|seg)\b([^<>]*+)>", re.IGNORECASE)
"""One SGML tag that matters here. Linear on any line: a tag is tried only at a ``<``, and its
attributes (possessive, never given back) stop at the next ``<`` or ``>``; a segment's text is then the slice
between its ``<seg …>`` and the next ``</seg>``, never a lazy ``.*?`` tried again from every unclosed tag."""
_ATTR = re.compile(r"""(?<![\w:-])([\w:-]++)\s*+=\s*+(?:"([^"]*+)"|'([^']*+)'|([^\s>]++))""")
"""One attribute; a name is tried only where a word starts, and no quantifier gives back, so a long run of word
characters without ``=`` is read once."""
_ENTITIES = {"&amp;": "&", "&lt;": "<", "&gt;": ">", "&quot;": '"', "&apos;": "'"}
_ENTITY = re.compile("|".join(map(re.escape, _ENTITIES)))
SET_KINDS = ("srcset", "refset", "tstset")


def _attrs(text: str) -> dict[str, str]:
    return {m.group(1).lower(): next(g for g in m.groups()[1:] if g is not None) for m in _ATTR.finditer(text)}


@dataclass
class _SgmlSet:
    kind: str  # srcset / refset / tstset
    name: str  # sysid
    lang: str | None
    src_lang: str | None
    display: str
    line: int
    segs: dict[tuple[str, int], tuple[str, int]] = field(default_factory=dict)  # (doc, seg id) -> (text, line)
    order: list[tuple[str, int]] = field(default_factory=list)
    genre: dict[str, str] = field(default_factory=dict)


def _parse_sgml(text: str, display: str, limits: Limits) -> list[_SgmlSet]:
    """The sets of an SGML file, reading each line's tags in order (:data:`_TAG`): a set opens with ``<srcset>``,
    ``<refset>`` or ``<tstset>`` and closes with its end tag; a ``<doc>`` names the segments that follow; a
    segment is the text from ``<seg …>`` to the next ``</seg>`` on the same line (a ``<seg>`` inside it is text, as
    mteval reads it). An unclosed ``<seg>`` is an error naming the line."""
    sets: list[_SgmlSet] = []
    current: _SgmlSet | None = None
    doc = None
    for number, line in enumerate(text.split("\n"), start=1):
        opened_seg: re.Match | None = None
        for tag in _TAG.finditer(line):
            closing, kind = tag.group(1) == "/", tag.group(2).lower()
            if kind == "seg":
                if not closing:
                    opened_seg = opened_seg or tag
                elif opened_seg is not None:
                    _add_segment(current, doc, opened_seg, line[opened_seg.end():tag.start()], display, number, limits)
                    opened_seg = None
            elif opened_seg is not None:
                continue  # inside a segment's text
            elif kind in SET_KINDS:
                if closing:
                    current, doc = None, None
                    continue
                attrs = _attrs(tag.group(3))
                current = _SgmlSet(kind, attrs.get("sysid", ""), attrs.get("trglang") or attrs.get("srclang"),
                                   attrs.get("srclang"), display, number)
                sets.append(current)
                doc = None
            elif not closing:  # <doc …>
                if current is None:
                    raise InputError(display, "<doc> outside a <srcset>, <refset> or <tstset>", number)
                attrs = _attrs(tag.group(3))
                doc, doc_sysid = attrs.get("docid", ""), attrs.get("sysid")
                if doc_sysid and not current.name:
                    current.name = doc_sysid
                current.genre[doc] = attrs.get("genre", "")
        if opened_seg is not None:
            raise InputError(display, "a <seg> is not closed by </seg> on its line", number)
    return sets


def _add_segment(current: _SgmlSet | None, doc: str | None, opened: re.Match, raw: str, display: str, number: int,
                 limits: Limits) -> None:
    """Record one segment (its entities decoded) in the current set, checking its id, that it is new, and its
    length."""
    if current is None or doc is None:
        raise InputError(display, "<seg> outside a <doc>", number)
    raw_id = _attrs(opened.group(3)).get("id", "")
    seg_id = _seg_number(raw_id)
    if seg_id is None:
        raise InputError(display, f"<seg id={quote(raw_id)}> {_SEG_ID_NEEDED}", number)
    key = (doc, seg_id)
    if key in current.segs:
        raise InputError(display, f"<doc docid={quote(doc)}> has <seg id=\"{raw_id}\"> twice (also on line "
                                  f"{current.segs[key][1]})", number)
    segment = _ENTITY.sub(lambda m: _ENTITIES[m.group(0)], raw)
    if len(segment) > limits.max_segment_chars:
        raise limits.exceeded(display, "max_segment_chars", f"a segment of {len(segment):,} characters", number)
    current.segs[key] = (segment, number)
    current.order.append(key)


def load_sgml(files: list[tuple[str, Source]], *, name: str | None = None, limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """An :class:`EvalSet` from WMT SGML files (see the module docstring)."""
    sets: list[_SgmlSet] = []
    for display, source in files:
        data, shown = read_maybe_gzip(source, display, limits=limits, markup=True)
        found = _parse_sgml(decode_text(data, shown), shown, limits)
        if not found:
            raise InputError(shown, "has no <srcset>, <refset> or <tstset>: not a WMT SGML file")
        sets += found
    srcs = [s for s in sets if s.kind == "srcset"]
    refs = [s for s in sets if s.kind == "refset"]
    tsts = sorted((s for s in sets if s.kind == "tstset"), key=lambda s: (s.name.casefold(), s.name))  # as a folder
    if len(srcs) > 1:
        raise InputError(srcs[1].display, f"a second <srcset> (the first is in {srcs[0].display})", srcs[1].line)
    if not refs and not srcs:
        raise InputError(files[0][0], "no <srcset> and no <refset>: the outputs need a source (reference-free "
                                      "checks) or a reference")
    if not tsts:
        raise InputError(files[0][0], "no <tstset>: there is no system output to score")
    _check_width(name or files[0][0], len(tsts), len(refs), limits)
    anchor = srcs[0] if srcs else refs[0]
    order = anchor.order

    def lines(s: _SgmlSet) -> list[str]:
        missing = [key for key in order if key not in s.segs]
        if missing:
            doc, seg = missing[0]
            raise InputError(s.display, f"{s.kind} {quote(s.name)} has no <seg id=\"{seg}\"> in <doc docid="
                                        f"{quote(doc)}> ({len(missing)} missing), which {anchor.display} has", s.line)
        extra = len(s.segs) - len(order)
        if extra:
            doc, seg = next(key for key in s.order if key not in anchor.segs)
            raise InputError(s.display, f"<doc docid={quote(doc)}> <seg id=\"{seg}\"> is not in {anchor.display}",
                             s.segs[(doc, seg)][1])
        return [s.segs[key][0] for key in order]

    def ref_name(s: _SgmlSet) -> str:
        if not s.name:
            return ""
        return ref_name_from_column(s.name) or clean_name(s.name)

    src_lang = (srcs[0].src_lang if srcs else None) or (refs[0].src_lang if refs else tsts[0].src_lang)
    ref_lang = refs[0].lang if refs else tsts[0].lang  # without references: the outputs' language (trglang)
    set_name = name or Path(_inner_name(files[0][0])).name.split(".")[0]
    evalset = assemble(
        TextFile("src", srcs[0].display, lines(srcs[0])) if srcs else None,
        [TextFile(ref_name(s) or f"ref{i + 1}", s.display, lines(s)) for i, s in enumerate(refs)],
        [TextFile(clean_name(s.name) or Path(_inner_name(s.display)).stem, s.display, lines(s)) for s in tsts],
        name=set_name, lang_pair=f"{src_lang}-{ref_lang}" if src_lang and ref_lang else lang_pair_from_name(set_name),
        human=None, warnings=[])
    labels = {"doc": [doc for doc, _ in order]}
    if any(anchor.genre.values()):
        labels["genre"] = [anchor.genre.get(doc, "") for doc, _ in order]
    return replace(evalset, segments=evalset.segments.assign(**labels))
