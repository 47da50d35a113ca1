"""WMT's releases in google-research/mt-metrics-eval's layout ("MTME"), one language pair at a time
(:func:`load_mtme`): a year's folder (``wmt23/``), or a ``.zip``/``.tar.gz`` of one (:mod:`mtdiag.io.archives`),
holding

- ``sources/LP.txt``, ``references/LP.REF.txt`` (``refA``, ``refB``, …), ``system-outputs/LP/NAME.txt`` (a line
  ``[No translation supplied]`` is a missing output, read as an empty one with a warning; the ``.jsonl`` texts of
  later releases, WMT24++, are not read), ``documents/LP.docs`` (``DOMAIN DOC`` per segment);
- ``human-scores/LP.TYPE.{seg,sys,domain}.score`` for every TYPE of human score (``mqm``, ``da-sqm``, ``esa``, …) and
  ``human-scores/LP.NAME.seg.rating`` (error spans);
- ``metric-scores/LP/METRIC-REFS.{seg,sys,domain}.score`` — REFS the references the metric used (``refA``,
  ``refA.refB``, ``all``), ``src`` for none.

What becomes of them (``docs/inputs.md``, "WMT's mt-metrics-eval layout"):

- **References and "human" outputs.** Every ``references/`` file is a reference; a system output named after a
  reference (``refA``, ``synthetic_ref``) is that reference, or another translator's, in the outputs — a *human
  output*, not an MT system: left out of the systems unless the user includes it (``include``), as WMT leaves it out
  unless ``include_human`` (``data.GetCorrelations``). An included output is no reference of the set (a text scored
  against itself). The set's references (``references``) default to every reference that is not included as an
  output, except ``synthetic_ref`` (WMT23's machine-made reference, an outlier there).
- **Human scores.** The user chooses which type is "human" (``human``; default MQM when present, then the other
  types by name): its ``seg`` scores become the set's human scores (``None``: not rated, left out), its ``sys``
  and ``domain`` scores are kept as published (``EvalSet.human_systems``), and its ratings (``TYPE.merged``, else
  every ``TYPE.*`` rater file) become the human error rows (``EvalSet.error_rows``, weighed by the scheme the
  analysis chooses like every human error row: :func:`mtdiag.io.error_weights.weighed`).
- **Metrics.** Every ``METRIC-REFS`` with a ``seg`` or ``sys`` file becomes an imported metric named as the file
  names it (``XCOMET-XL-refA``): its segment scores (``None`` kept as missing) and its ``sys`` scores as its
  corpus scores (``ImportedMetricInfo.published``). All are higher-is-better, as MTME requires of its metric
  files. A metric that used a reference the set does not keep (one included as an output, or not chosen) is left
  out, with a warning — WMT's rule that a metric is scored only with the main references.
- **Documents and domains** become the slice fields ``doc`` and ``domain``.

Every problem is an :class:`~mtdiag.core.errors.InputError` naming the file (and the line).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property

import numpy as np
import pandas as pd

from mtdiag.core.errors import InputError
from mtdiag.core.evalset import EvalSet, ImportedMetricInfo
from mtdiag.io.archives import FileTree
from mtdiag.io.files import TextFile, assemble, read_text_file
from mtdiag.io.mtme_files import per_system, read_documents, read_ratings, read_scores
from mtdiag.io.text import DEFAULT_LIMITS, Limits, quote, quote_names

TEXTS = (".txt",)

LEVELS = ("seg", "sys", "domain")
SYNTHETIC = "synthetic_ref"
NO_TRANSLATION = "[No translation supplied]"
PREFERRED_HUMAN = "mqm"


@dataclass(frozen=True)
class LayoutChoice:
    """What to open of a layout: a language pair, a human score type, references and human outputs as systems.

    The language pair ``lp`` (None: the only one), the ``human`` score type (None: MQM, else the first by name), the
    set's ``references`` (None: the default of the module docstring) and the human outputs to ``include`` as systems."""

    lp: str | None = None
    human: str | None = None
    references: tuple[str, ...] | None = None
    include: tuple[str, ...] = ()


@dataclass
class _Pair:
    """One language pair's files: path by name."""

    source: str | None = None
    documents: str | None = None
    references: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    human: dict[str, dict[str, str]] = field(default_factory=dict)  # type -> level -> path
    ratings: dict[str, str] = field(default_factory=dict)  # rating name -> path
    metrics: dict[str, dict[str, str]] = field(default_factory=dict)  # metric -> level -> path


def _stem(name: str) -> str | None:
    """A text file's name without ``.txt``/``.jsonl``, None for another file."""
    return next((name[: -len(s)] for s in TEXTS if name.endswith(s)), None)


def _file(pairs: dict[str, _Pair], folder: str, rest: list[str], path: str) -> None:
    """File ``path`` (``folder/rest…`` of a year's folder) in its pair's entry, when it is a layout file."""
    name = rest[-1]
    if folder == "sources" and len(rest) == 1 and _stem(name):
        pairs.setdefault(_stem(name), _Pair()).source = path
    elif folder == "documents" and len(rest) == 1 and name.endswith(".docs"):
        pairs.setdefault(name[:-5], _Pair()).documents = path
    elif folder == "references" and len(rest) == 1 and _stem(name) and "." in _stem(name):
        lp, ref = _stem(name).rsplit(".", 1)
        pairs.setdefault(lp, _Pair()).references[ref] = path
    elif folder == "system-outputs" and len(rest) == 2 and _stem(name):
        pairs.setdefault(rest[0], _Pair()).outputs[_stem(name)] = path
    elif folder == "human-scores" and len(rest) == 1:
        parts = name.split(".")
        if len(parts) >= 4 and parts[-1] == "score" and parts[-2] in LEVELS:
            pairs.setdefault(parts[0], _Pair()).human.setdefault(".".join(parts[1:-2]), {})[parts[-2]] = path
        elif len(parts) >= 4 and parts[-2:] == ["seg", "rating"]:
            pairs.setdefault(parts[0], _Pair()).ratings[".".join(parts[1:-2])] = path
    elif folder == "metric-scores" and len(rest) == 2 and name.endswith(".score"):
        stem, _, level = name[:-6].rpartition(".")
        if stem and level in LEVELS:
            pairs.setdefault(rest[0], _Pair()).metrics.setdefault(stem, {})[level] = path


@dataclass(frozen=True)
class Layout:
    """A year's folder of the layout in a file tree.

    ``prefix``: its path in the tree (``""`` or ``"wmt23/"``); ``name``: the year's name (``wmt23``)."""

    tree: FileTree
    prefix: str
    name: str

    @cached_property
    def pairs(self) -> dict[str, _Pair]:
        """The files of each language pair in the year's folder, by pair (sorted; pairs without a source left out)."""
        found: dict[str, _Pair] = {}
        for path in self.tree.paths():
            if path.startswith(self.prefix):
                parts = path[len(self.prefix):].split("/")
                if len(parts) >= 2:
                    _file(found, parts[0], parts[1:], path)
        return {lp: pair for lp, pair in sorted(found.items()) if pair.source is not None}

    def language_pairs(self) -> list[str]:
        """The names of the year's language pairs, sorted."""
        return list(self.pairs)

    def pair(self, lp: str | None) -> tuple[str, _Pair]:
        """(the language pair, its files): ``lp``, or the only one; an :class:`InputError` naming the choices."""
        pairs = self.language_pairs()
        if lp is None:
            if len(pairs) != 1:
                raise InputError(self.tree.display(self.prefix.rstrip("/") or "."),
                                 f"holds {len(pairs)} language pairs ({quote_names(pairs)}): choose one (--lp)")
            lp = pairs[0]
        if lp not in self.pairs:
            raise InputError(self.tree.display(self.prefix + "sources"),
                             f"has no language pair {quote(lp)}; it has {quote_names(pairs)}")
        return lp, self.pairs[lp]

    def human_types(self, lp: str) -> list[str]:
        """The human score types of ``lp`` with segment or system scores: MQM first, then the others by name."""
        types = [t for t, levels in self.pairs[lp].human.items() if {"seg", "sys"} & set(levels)]
        return sorted(types, key=lambda t: (t != PREFERRED_HUMAN, t))

    def human_outputs(self, lp: str) -> list[str]:
        """The outputs of ``lp`` that are no MT system: named after a reference, or ``synthetic_ref``."""
        pair = self.pairs[lp]
        return [o for o in pair.outputs if o in pair.references or o == SYNTHETIC]

    def default_references(self, lp: str, include=()) -> list[str]:
        """The references of ``lp`` a set holds by default: all but those in ``include`` and ``synthetic_ref``."""
        return [r for r in self.pairs[lp].references if r not in include and r != SYNTHETIC]

    def counted(self) -> "Layout":
        """This layout on its tree for one reading (:meth:`mtdiag.io.archives.FileTree.counted`).

        Its files are already indexed."""
        fresh = Layout(self.tree.counted(), self.prefix, self.name)
        fresh.__dict__["pairs"] = self.pairs
        return fresh


def find_layouts(tree: FileTree) -> list[Layout]:
    """The year folders of the layout in ``tree``.

    The tree itself, or folders within three levels, that hold ``sources/`` and ``system-outputs/``."""
    seen: dict[str, set[str]] = {}
    for path in tree.paths():
        parts = path.split("/")
        for depth, part in enumerate(parts[:4]):
            if part in ("sources", "system-outputs") and depth < len(parts) - 1:
                seen.setdefault("/".join(parts[:depth]), set()).add(part)
    found = []
    for prefix in sorted(p for p, kinds in seen.items() if len(kinds) == 2):
        name = prefix.rsplit("/", 1)[-1] if prefix else tree.name.rstrip("/").rsplit("/", 1)[-1]
        layout = Layout(tree, f"{prefix}/" if prefix else "", name.split(".")[0] if not prefix else name)
        if layout.pairs:
            found.append(layout)
    return found


def metric_references(metric: str, references: list[str]) -> set[str] | None:
    """The references metric ``BASE-REFS`` used, as MTME parses its name (``ParseMetricName``).

    ``src``: none, ``all``: every one, else REFS split at ``.``; None for a name without ``-``."""
    if "-" not in metric:
        return None
    refs = metric.rsplit("-", 1)[1]
    if refs == "src":
        return set()
    return set(references) if refs == "all" else set(refs.split("."))


# ------------------------------------------------------------------------------------------------ loading


def _roles(layout: Layout, lp: str, choice: LayoutChoice) -> tuple[list[str], list[str]]:
    """(the human outputs included as systems, the set's references), checked against the layout."""
    pair, human = layout.pairs[lp], layout.human_outputs(lp)
    where = layout.tree.display(f"{layout.prefix}system-outputs/{lp}")
    unknown = [o for o in choice.include if o not in human]
    if unknown:
        raise InputError(where, f"{quote(unknown[0])} is no human output to include; the human outputs are "
                                f"{quote_names(human) if human else 'none'}")
    include = [o for o in human if o in choice.include]
    if choice.references is None:
        return include, layout.default_references(lp, include)
    for ref in choice.references:
        if ref not in pair.references:
            raise InputError(layout.tree.display(f"{layout.prefix}references"),
                             f"has no reference {quote(ref)} for {lp}; it has {quote_names(pair.references)}")
        if ref in include:
            raise InputError(where, f"{quote(ref)} is both a reference and an included output: an output cannot be "
                                    "scored against itself; leave it out of one of them")
    return include, [r for r in pair.references if r in choice.references]


def _text(layout: Layout, role: str, kind: str, path: str, limits: Limits, warnings: list[str]) -> TextFile:
    """A source, reference or output file; ``[No translation supplied]`` lines read as empty (a warning)."""
    tree = layout.tree
    file = read_text_file(role, kind, tree.source(path), tree.display(path), limits, warnings)
    lines = pd.Series(file.lines, dtype="str")
    missing = lines == NO_TRANSLATION
    if missing.any():
        warnings.append(f"{file.display}: {int(missing.sum()):,} line(s) say {NO_TRANSLATION!r}: read as empty")
        return replace(file, lines=lines.where(~missing, "").array)
    return file


def _human_type(layout: Layout, lp: str, wanted: str | None) -> str | None:
    types = layout.human_types(lp)
    if wanted is None:
        return types[0] if types else None
    if wanted not in types:
        raise InputError(layout.tree.display(f"{layout.prefix}human-scores"),
                         f"has no human score {quote(wanted)} for {lp}; it has {quote_names(types) or 'none'}")
    return wanted


def _scores_of(layout: Layout, path: str, limits: Limits, expected: int, what: str) -> dict[str, np.ndarray]:
    return per_system(read_scores(layout.tree.source(path), layout.tree.display(path), limits),
                      layout.tree.display(path), expected, what)


def _human(layout: Layout, lp: str, human_type: str | None, n: int, limits: Limits,
           warnings: list[str]) -> tuple[pd.DataFrame | None, pd.DataFrame | None]:
    """(segment scores ``seg, system, score`` of the chosen type, its published ``system, domain, score``)."""
    files = layout.pairs[lp].human.get(human_type, {})
    outputs = set(layout.pairs[lp].outputs)
    seg = published = None
    if "seg" in files:
        scores = _scores_of(layout, files["seg"], limits, n, "one per segment")
        _warn_unknown(layout, files["seg"], scores, outputs, warnings)
        rows = [(np.flatnonzero(np.isfinite(v)), s, v[np.isfinite(v)]) for s, v in scores.items() if s in outputs]
        seg = pd.DataFrame({"seg": np.concatenate([r[0] for r in rows]) if rows else np.zeros(0, np.int64),
                            "system": np.concatenate([[r[1]] * len(r[0]) for r in rows]) if rows else [],
                            "score": np.concatenate([r[2] for r in rows]) if rows else np.zeros(0)})
        seg = seg.astype({"seg": "int64", "system": object, "score": "float64"})
    parts = []
    if "sys" in files:
        scores = _scores_of(layout, files["sys"], limits, 1, "one system score")
        parts.append(pd.DataFrame({"system": list(scores), "domain": "", "score": [v[0] for v in scores.values()]}))
    if "domain" in files:
        frame = read_scores(layout.tree.source(files["domain"]), layout.tree.display(files["domain"]), limits,
                            domains=True)
        parts.append(frame[["system", "domain", "score"]])
    if parts:
        published = pd.concat(parts, ignore_index=True).dropna(subset=["score"])
        published = published[published["system"].isin(outputs)].reset_index(drop=True)
    return (seg if seg is not None and len(seg) else None), published


def _warn_unknown(layout: Layout, path: str, scores: dict, outputs: set[str], warnings: list[str]) -> None:
    unknown = sorted(set(scores) - outputs)
    if unknown:
        warnings.append(f"{layout.tree.display(path)}: scores for {quote_names(unknown)}, which are no output of "
                        "the layout, are ignored")


def _rating_names(layout: Layout, lp: str, human_type: str | None) -> list[str]:
    """The rating files of a human score type: ``TYPE`` or ``TYPE.merged`` (every rater in one file), else every
    ``TYPE.*`` file (one per rater)."""
    ratings = layout.pairs[lp].ratings
    if human_type is None:
        return []
    merged = [n for n in (human_type, f"{human_type}.merged") if n in ratings]
    return merged[:1] or sorted(n for n in ratings if n.startswith(f"{human_type}."))


def _with_ratings(evalset: EvalSet, layout: Layout, lp: str, human_type: str | None, limits: Limits) -> EvalSet:
    spans, rated = [], []
    for name in _rating_names(layout, lp, human_type):
        path = layout.pairs[lp].ratings[name]
        found, outputs = read_ratings(layout.tree.source(path), layout.tree.display(path), limits,
                                      evalset.n_segments, set(evalset.systems))
        spans.append(found)
        rated.append(outputs)
    if not spans:
        return evalset
    return replace(evalset, error_rows=pd.concat(spans, ignore_index=True), rated=pd.concat(rated, ignore_index=True))


def _metric_scores(layout: Layout, files: dict[str, str], systems: list[str], n: int, limits: Limits,
                   unknown: set[str]) -> tuple[list[np.ndarray], tuple[tuple[str, float], ...]]:
    """(per loaded system its segment scores or None, the system scores of the loaded systems) of one metric;
    the systems it scores that are no output are added to ``unknown``."""
    segments: list[np.ndarray | None] = [None] * len(systems)
    if "seg" in files:
        scores = _scores_of(layout, files["seg"], limits, n, "one per segment")
        unknown.update(scores)
        segments = [scores.get(s) for s in systems]
    system_scores: tuple[tuple[str, float], ...] = ()
    if "sys" in files:
        scores = _scores_of(layout, files["sys"], limits, 1, "one system score")
        system_scores = tuple((s, float(scores[s][0])) for s in systems if s in scores and np.isfinite(scores[s][0]))
    return segments, system_scores


def _with_metrics(evalset: EvalSet, layout: Layout, lp: str, references: list[str], limits: Limits,
                  warnings: list[str]) -> EvalSet:
    """``evalset`` with every metric of ``lp`` that used only ``references`` as an imported metric (module
    docstring): its segment scores in ``EvalSet.scores`` (categorical system and metric columns: a release brings
    millions of scores) and its published system scores."""
    pair, systems, n = layout.pairs[lp], list(evalset.systems), evalset.n_segments
    kept, dropped = [], []
    for metric, files in pair.metrics.items():
        refs = metric_references(metric, list(pair.references))
        usable = refs is not None and refs <= set(references) and {"seg", "sys"} & set(files)
        (kept if usable else dropped).append(metric)
    if dropped:
        warnings.append(f"{layout.tree.display(f'{layout.prefix}metric-scores/{lp}')}: {len(dropped)} metric(s) used "
                        f"a reference the set does not keep ({quote_names(dropped)}), or have no seg/sys scores: left "
                        f"out (the set's references: {quote_names(references) if references else 'none'})")
    segs, system_codes, metric_codes, values, infos, scored = [], [], [], [], [], set()
    for code, metric in enumerate(kept):
        per, system_scores = _metric_scores(layout, pair.metrics[metric], systems, n, limits, scored)
        for s, scores in enumerate(per):
            if scores is not None:
                present = np.flatnonzero(np.isfinite(scores))
                segs.append(present)
                values.append(scores[present])
                system_codes.append(np.full(len(present), s, dtype=np.int32))
                metric_codes.append(np.full(len(present), code, dtype=np.int32))
        source = layout.tree.display(pair.metrics[metric].get("seg") or pair.metrics[metric]["sys"])
        infos.append(ImportedMetricInfo(metric, True, source, system_scores, published=bool(system_scores)))
    unknown = sorted(scored - set(pair.outputs))
    if unknown:
        warnings.append(f"{layout.tree.display(f'{layout.prefix}metric-scores/{lp}')}: scores for "
                        f"{quote_names(unknown)}, which are no output of the layout, are ignored")
    if not kept:
        return evalset
    join = lambda parts, dtype: np.concatenate(parts) if parts else np.zeros(0, dtype)  # noqa: E731
    scores = pd.DataFrame({
        "seg": join(segs, np.int64).astype(np.int64),
        "system": pd.Categorical.from_codes(join(system_codes, np.int32), categories=systems),
        "metric": pd.Categorical.from_codes(join(metric_codes, np.int32), categories=kept),
        "score": join(values, np.float64)})
    return replace(evalset, scores=scores, imported=tuple(infos))


def _with_documents(evalset: EvalSet, layout: Layout, lp: str, limits: Limits) -> EvalSet:
    path = layout.pairs[lp].documents
    if path is None:
        return evalset
    domains, docs = read_documents(layout.tree.source(path), layout.tree.display(path), limits, evalset.n_segments)
    return replace(evalset, segments=evalset.segments.assign(doc=docs, domain=domains))


def load_mtme(layout: Layout, choice: LayoutChoice = LayoutChoice(), *, limits: Limits = DEFAULT_LIMITS) -> EvalSet:
    """One language pair of a layout as an :class:`~mtdiag.core.evalset.EvalSet`.

    The module docstring says what becomes of each file; ``choice``: :class:`LayoutChoice`."""
    layout = layout.counted()
    lp, pair = layout.pair(choice.lp)

    include, references = _roles(layout, lp, choice)
    human_outputs = layout.human_outputs(lp)
    systems = [o for o in pair.outputs if o not in human_outputs] + include  # MT systems, then human outputs

    if not systems:
        raise InputError(layout.tree.display(f"{layout.prefix}system-outputs/{lp}"), "has no MT system output")
    warnings: list[str] = []
    left_out = [o for o in human_outputs if o not in include]
    if left_out:
        warnings.append(f"{layout.tree.display(f'{layout.prefix}system-outputs/{lp}')}: human output"
                        f"{'s' * (len(left_out) > 1)} {quote_names(left_out)} (named after a reference) left out of "
                        "the systems; include them to score them as systems")

    human_type = _human_type(layout, lp, choice.human)
    src = _text(layout, "src", "src", pair.source, limits, warnings)
    refs = [_text(layout, r, "ref", pair.references[r], limits, warnings) for r in references]
    hyps = [_text(layout, s, "system", pair.outputs[s], limits, warnings) for s in systems]
    human, published = _human(layout, lp, human_type, len(src.lines), limits, warnings)
    evalset = assemble(src, refs, hyps, name=f"{layout.name}.{lp}", lang_pair=lp, human=human, warnings=warnings)
    evalset = _with_documents(evalset, layout, lp, limits)
    evalset = _with_ratings(evalset, layout, lp, human_type, limits)
    evalset = _with_metrics(evalset, layout, lp, references, limits, warnings)
    return replace(evalset, human_systems=published, warnings=tuple(warnings))


def open_layout(source, *, limits: Limits = DEFAULT_LIMITS) -> Layout:
    """The one year folder of the layout in a folder or archive (:func:`mtdiag.io.archives.open_tree`).

    An :class:`InputError` when it holds none, or several (naming them)."""
    from mtdiag.io.archives import open_tree

    tree = open_tree(source, limits=limits)
    layouts = find_layouts(tree)
    if len(layouts) != 1:
        found = f"several ({quote_names(layout.prefix.rstrip('/') for layout in layouts)}): give one" if layouts else \
            "none: expected a folder with sources/ and system-outputs/ (WMT's mt-metrics-eval layout)"
        raise InputError(tree.name, f"holds {found}")
    return layouts[0]


def is_layout_folder(path) -> bool:
    """Whether a folder on disk is a year's folder of the layout, or holds one directly."""
    from pathlib import Path

    folder = Path(path)
    if not folder.is_dir():
        return False
    candidates = [folder, *(p for p in folder.iterdir() if p.is_dir())]
    return any((c / "sources").is_dir() and (c / "system-outputs").is_dir() for c in candidates)
