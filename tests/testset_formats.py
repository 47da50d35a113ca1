"""Write a test set (an :class:`~mtdiag.core.evalset.EvalSet`) in the field's formats: WMT XML, WMT SGML (one file per
set), TSV and JSONL — the converter behind ``tests/test_testsets.py`` (and usable by hand:
``python -m tests.testset_formats FOLDER OUTDIR``)."""

from __future__ import annotations

import gzip
import json
import sys
from pathlib import Path
from xml.sax.saxutils import escape, quoteattr

DOC_SIZE = 50  # segments per synthetic document


def _docs(n: int) -> list[tuple[str, range]]:
    return [(f"doc{start // DOC_SIZE + 1}", range(start, min(start + DOC_SIZE, n))) for start in range(0, n, DOC_SIZE)]


def write_wmt_xml(evalset, path: Path, src_lang: str, tgt_lang: str) -> Path:
    out = [f'<?xml version="1.0" encoding="utf-8"?>\n<dataset id="test">\n<collection id={quoteattr(evalset.name)}>']
    for doc_id, segs in _docs(evalset.n_segments):
        out.append(f'<doc id="{doc_id}" origlang="{src_lang}">')
        blocks = [("src", f'lang="{src_lang}"', evalset.src)]
        blocks += [("ref", f'lang="{tgt_lang}" translator={quoteattr(r)}', evalset.refs[r]) for r in evalset.ref_names]
        blocks += [("hyp", f'lang="{tgt_lang}" system={quoteattr(s)}', evalset.hyps[s]) for s in evalset.systems]
        for tag, attrs, column in blocks:
            out.append(f"<{tag} {attrs}><p>")
            out += [f'<seg id="{i + 1}">{escape(column.iat[i])}</seg>' for i in segs]
            out.append(f"</p></{tag}>")
        out.append("</doc>")
    out.append("</collection>\n</dataset>\n")
    path.write_text("\n".join(out), encoding="utf-8")
    return path


def write_sgml(evalset, folder: Path, src_lang: str, tgt_lang: str) -> list[Path]:
    """One file per set, as WMT released them: ``*-src.LANG.sgm``, ``*-ref.NAME.LANG.sgm``, ``*.SYSTEM.sgm``."""
    folder.mkdir(parents=True, exist_ok=True)

    def sgml(kind: str, sysid: str, column, extra: str) -> str:
        out = [f'<{kind} setid="test" srclang="{src_lang}"{extra}>']
        for doc_id, segs in _docs(evalset.n_segments):
            out.append(f'<doc sysid="{sysid}" docid="{doc_id}" genre="news" origlang="{src_lang}">\n<p>')
            out += [f'<seg id="{i - segs.start + 1}">{escape(column.iat[i])}</seg>' for i in segs]
            out.append("</p>\n</doc>")
        out.append(f"</{kind}>\n")
        return "\n".join(out)

    paths = [folder / f"test-src.{src_lang}.sgm"]
    paths[0].write_text(sgml("srcset", "ref", evalset.src, ""), encoding="utf-8")
    for ref in evalset.ref_names:
        path = folder / f"test-ref.{ref}.{tgt_lang}.sgm"
        path.write_text(sgml("refset", ref, evalset.refs[ref], f' trglang="{tgt_lang}"'), encoding="utf-8")
        paths.append(path)
    for system in evalset.systems:
        path = folder / f"test.{system}.{tgt_lang}.sgm"
        path.write_text(sgml("tstset", system, evalset.hyps[system], f' trglang="{tgt_lang}" sysid="{system}"'),
                        encoding="utf-8")
        paths.append(path)
    return paths


def _columns(evalset) -> dict[str, list[str]]:
    columns = {"seg_id": [str(i + 1) for i in range(evalset.n_segments)], "src": evalset.src.tolist()}
    columns |= {f"ref.{r}": evalset.refs[r].tolist() for r in evalset.ref_names}
    columns |= {s: evalset.hyps[s].tolist() for s in evalset.systems}
    return columns


def write_tsv(evalset, path: Path) -> Path:
    columns = _columns(evalset)
    rows = ["\t".join(columns)] + ["\t".join(values) for values in zip(*columns.values())]
    path.write_text("\n".join(rows) + "\n", encoding="utf-8")
    return path


def write_jsonl(evalset, path: Path) -> Path:
    columns = _columns(evalset)
    lines = [json.dumps(dict(zip(columns, values)), ensure_ascii=False) for values in zip(*columns.values())]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def gzipped(path: Path) -> Path:
    target = path.with_name(path.name + ".gz")
    target.write_bytes(gzip.compress(path.read_bytes()))
    return target


if __name__ == "__main__":
    from mtdiag.io import load_folder

    source, out = load_folder(sys.argv[1]), Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    src_lang, tgt_lang = (source.lang_pair or "xx-yy").split("-")
    write_wmt_xml(source, out / "test.xml", src_lang, tgt_lang)
    write_sgml(source, out / "sgml", src_lang, tgt_lang)
    write_tsv(source, out / "test.tsv")
    write_jsonl(source, out / "test.jsonl")
