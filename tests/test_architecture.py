"""Layering rules from shared/DESIGN.md ("Package layout"), checked on the source itself.

- Only ``mtdiag/ui/`` may import Streamlit; the core never does.
- Nothing in the core imports ``mtdiag.ui`` (layers point one way).
- ``import mtdiag`` stays light: no Streamlit, numba or MeCab (heavy imports are lazy).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]
PKG = REPO_ROOT / "mtdiag"
UI = PKG / "ui"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(REPO_ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imported_modules(path: Path) -> set[str]:
    """Absolute names of every module a file imports (relative imports resolved), at any depth in the file."""
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    except SyntaxError as exc:
        pytest.fail(f"{path.relative_to(REPO_ROOT)} does not parse: {exc}")
    mod = _module_name(path)
    package = mod if path.name == "__init__.py" else mod.rpartition(".")[0]
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base_parts = package.split(".")
                base_parts = base_parts[: len(base_parts) - (node.level - 1)]
                base = ".".join(base_parts)
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            names.add(target)
            # `from mtdiag import ui` / `from . import ui` import a submodule by name
            names.update(f"{target}.{alias.name}" for alias in node.names if alias.name != "*")
        elif isinstance(node, ast.Call):
            # importlib.import_module("streamlit") / __import__("streamlit") with a literal name
            func = node.func
            fname = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            if fname in ("import_module", "__import__") and node.args:
                arg = node.args[0]
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    names.add(arg.value)
    return names


def _core_files() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if UI not in p.parents and "__pycache__" not in p.parts)


def test_core_files_found():
    assert (PKG / "__init__.py").is_file(), "mtdiag/__init__.py is missing"
    assert _core_files(), "no core modules found under mtdiag/"


def _hits(prefix: str) -> dict[str, list[str]]:
    bad = {}
    for path in _core_files():
        hits = sorted(n for n in _imported_modules(path) if n == prefix or n.startswith(prefix + "."))
        if hits:
            bad[str(path.relative_to(REPO_ROOT))] = hits
    return bad


def test_only_ui_imports_streamlit():
    bad = _hits("streamlit")
    assert not bad, f"only mtdiag/ui/ may import streamlit; found: {bad}"


def test_core_does_not_import_ui():
    bad = _hits("mtdiag.ui")
    assert not bad, f"the core must not import mtdiag.ui (layers point one way); found: {bad}"


def test_import_mtdiag_is_light():
    code = ("import mtdiag, sys; "
            "print('streamlit' in sys.modules, 'numba' in sys.modules, 'MeCab' in sys.modules)")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, f"`import mtdiag` failed:\n{proc.stderr}"
    streamlit, numba, mecab = proc.stdout.split()
    assert (streamlit, numba, mecab) == ("False", "False", "False"), (
        f"`import mtdiag` pulled in heavy modules: streamlit={streamlit} numba={numba} MeCab={mecab}")


# The layer order of docs/architecture.md: a module may import its own layer and the layers below, never above.
LAYERS = {
    "foundation": 0,  # mtdiag, errors, evalset, tokenize, highlight
    "inputs": 1,      # io (reading and validating files), terms, ngrams
    "metrics": 2,     # mtdiag.metrics.* (the registry and one module per metric)
    "scoring": 3,     # api: evaluate(EvalSet, Options) -> Report; chunks: sliced, threaded, Dask statistics
    "analyses": 4,    # what consumes a Report: views, compare, human, likeness, triage, buckets, export, ...
    "entry": 5,       # cli, __main__
    "ui": 6,          # mtdiag.ui (the only Streamlit importer)
}
_FOUNDATION = {"mtdiag", "mtdiag.errors", "mtdiag.evalset", "mtdiag.tokenize", "mtdiag.highlight"}
_INPUTS = ("mtdiag.io", "mtdiag.terms", "mtdiag.ngrams", "mtdiag.ht_mt_ngrams")


def layer_of(module: str) -> int:
    """The layer of an mtdiag module (every module must have one: a new top-level module is an analysis unless it
    is listed here)."""
    if module in _FOUNDATION:
        return LAYERS["foundation"]
    if module.startswith(_INPUTS):
        return LAYERS["inputs"]
    if module == "mtdiag.metrics" or module.startswith("mtdiag.metrics."):
        return LAYERS["metrics"]
    if module in ("mtdiag.api", "mtdiag.chunks"):
        return LAYERS["scoring"]
    if module in ("mtdiag.cli", "mtdiag.__main__"):
        return LAYERS["entry"]
    if module == "mtdiag.ui" or module.startswith("mtdiag.ui."):
        return LAYERS["ui"]
    return LAYERS["analyses"]


def test_layers_point_one_way():
    """Every import of an mtdiag module goes to the same layer or one below (docs/architecture.md)."""
    files = sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)
    modules = {_module_name(p) for p in files}

    def module_of(name: str) -> str:  # `mtdiag.api.Options` -> `mtdiag.api` (the longest prefix that is a module)
        while name not in modules and "." in name:
            name = name.rpartition(".")[0]
        return name

    bad = []
    for path in files:
        module = _module_name(path)
        for name in _imported_modules(path):
            if name == "mtdiag" or name.startswith("mtdiag."):
                target = module_of(name)
                if layer_of(target) > layer_of(module):
                    bad.append(f"{module} ({layer_of(module)}) imports {name} ({layer_of(target)})")
    assert not bad, "imports that point up the layers:\n" + "\n".join(bad)


def test_architecture_doc_names_every_layer():
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for layer in LAYERS:
        assert f"**{layer}**" in text, f"docs/architecture.md does not describe the {layer} layer"


# Views mirror pages (issue 21.6): one view module per page, named in mtdiag/views/__init__.py's table.
PAGE_VIEWS = {"overview": "overview", "segments": "segments", "buckets": "buckets", "distributions": "distributions",
              "over_under": "over_under", "waft_neva": "waft_neva", "terminology": "terminology", "ngrams": "ngrams",
              "likeness": "likeness", "compare": "compare", "slices": "slices"}


def test_every_page_has_its_view_and_imports_no_other_page_s():
    """A page imports its own view (and :mod:`mtdiag.views.detail`, one segment's evidence), never another page's:
    its tables are all in its view."""
    pages = sorted(p.stem for p in (REPO_ROOT / "pages").glob("*.py"))
    assert pages == sorted(PAGE_VIEWS), "a page was added or removed: name its view in PAGE_VIEWS"
    views = {p.stem for p in (PKG / "views").glob("*.py")} - {"__init__"}
    bad = []
    for page, view in PAGE_VIEWS.items():
        assert view in views, f"pages/{page}.py has no view mtdiag/views/{view}.py"
        imported = {m for m in _imported_modules(REPO_ROOT / "pages" / f"{page}.py") if m.startswith("mtdiag.views.")}
        imported = {m.split(".")[2] for m in imported}
        if view not in imported:
            bad.append(f"pages/{page}.py does not import its view mtdiag.views.{view}")
        bad += [f"pages/{page}.py imports another page's view mtdiag.views.{other}"
                for other in imported - {view, "detail"}]
    table = (PKG / "views" / "__init__.py").read_text(encoding="utf-8")
    bad += [f"mtdiag/views/__init__.py does not list mtdiag.views.{view}" for view in PAGE_VIEWS.values()
            if f":mod:`mtdiag.views.{view}`" not in table]
    assert not bad, "\n".join(bad)


def test_export_only_writes():
    """``mtdiag.export`` holds writers only: it builds no table from a report, so it imports no view."""
    imported = _imported_modules(PKG / "export.py")
    assert not {m for m in imported if m.startswith("mtdiag.views")}, imported


def test_the_default_metric_rule_lives_once():
    """"chrF when present, else BLEU" is :func:`mtdiag.views.default_metric`: no page, widget or report names chrF
    as a default of its own."""
    bad = []
    for path in [*(REPO_ROOT / "pages").glob("*.py"), *UI.glob("*.py"), PKG / "report.py"]:
        if '"chrf"' in path.read_text(encoding="utf-8"):
            bad.append(str(path.relative_to(REPO_ROOT)))
    assert not bad, bad
