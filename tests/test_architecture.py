"""The layering of ``docs/architecture.md``, checked on the source itself.

- Only ``mtdiag/ui/`` may import Streamlit; the core never does.
- Nothing in the core imports ``mtdiag.ui`` (layers point one way).
- Every module belongs to one named layer, and imports only its own layer and the layers below: foundation → io →
  metrics → scoring → statistics → checks → triage → slices → views → report/export → cli/ui.
- ``import mtdiag`` stays light: no Streamlit, numba or MeCab (heavy imports are lazy).
- Every page is a view of the registry: a layout is named for its view and imports its own view only.
"""

from __future__ import annotations

import ast
import os
import re
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


def test_importing_mtdiag_changes_nothing_outside_it():
    """``import mtdiag`` runs nothing: no module of the package or library is loaded, and the environment, the
    import path and the warning filters are the caller's (Arrow's memory pool is set where mtdiag's own processes
    start, ``mtdiag.core.arrow_memory``)."""
    code = ("import os, sys, warnings\n"
            "before = (dict(os.environ), list(sys.path), list(warnings.filters), set(sys.modules))\n"
            "import mtdiag\n"
            "after = (dict(os.environ), list(sys.path), list(warnings.filters), set(sys.modules))\n"
            "print(before[:3] == after[:3], sorted(after[3] - before[3]))")
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
                          env={k: v for k, v in os.environ.items() if k != "ARROW_DEFAULT_MEMORY_POOL"})
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split(" ", 1) == ["True", "['mtdiag']\n"], proc.stdout


def test_the_front_door_hands_on_every_public_name():
    """Every name of ``mtdiag.__all__`` is the object its module defines (imported on first use, PEP 562)."""
    import importlib

    import mtdiag

    for name in mtdiag.__all__:
        value = getattr(mtdiag, name)
        if name != "__version__":
            assert value is getattr(importlib.import_module(mtdiag._PUBLIC[name]), name), name
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        mtdiag.nothing  # noqa: B018


def test_the_package_imports_from_where_a_name_is_defined():
    """The front door is for users: inside the package a module imports a name from the module that defines it,
    never through ``mtdiag``'s face (whose lazy names reach every layer), so the layers' arrows stay visible."""
    bad = []
    for path in _mtdiag_modules():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module == "mtdiag" and not node.level:
                names = {alias.name for alias in node.names} - {"__version__"}
                bad += [f"{path.relative_to(REPO_ROOT)}: from mtdiag import {n}" for n in sorted(names)
                        if not (PKG / n).is_dir() and not (PKG / f"{n}.py").is_file()]
    assert not bad, "\n".join(bad)


# The layers of docs/architecture.md, bottom up: a module may import its own layer and the layers below, never above.
# A layer is a folder of the package (its name covers every module in it); the package's face (``mtdiag``, its
# ``__init__``) and ``__main__`` are the only modules outside a folder, and a module of no layer fails the test.
LAYERS = {
    "foundation": ("mtdiag", "mtdiag.core"),
    "io": ("mtdiag.io",),
    "metrics": ("mtdiag.metrics",),
    "scoring": ("mtdiag.scoring",),
    "analysis": ("mtdiag.analysis",),
    "triage": ("mtdiag.triage",),
    "spans": ("mtdiag.spans",),
    "slices": ("mtdiag.slices",),
    "views": ("mtdiag.views",),
    "report": ("mtdiag.report",),
    "pipeline": ("mtdiag.pipeline",),
    "cli/ui": ("mtdiag.cli", "mtdiag.__main__", "mtdiag.ui"),
}


def layer_of(module: str) -> int:
    """The floor of an mtdiag module: the position of its layer in :data:`LAYERS` (the longest name that covers it);
    ``KeyError`` for a module no layer names."""
    floors = [(len(name), floor) for floor, names in enumerate(LAYERS.values()) for name in names
              if module == name or (name != "mtdiag" and module.startswith(name + "."))]
    if not floors:
        raise KeyError(f"{module} is in no layer of tests/test_architecture.py LAYERS (docs/architecture.md)")
    return max(floors)[1]


def _mtdiag_modules() -> list[Path]:
    return sorted(p for p in PKG.rglob("*.py") if "__pycache__" not in p.parts)


def test_every_module_has_a_layer():
    missing = []
    for path in _mtdiag_modules():
        try:
            layer_of(_module_name(path))
        except KeyError as error:
            missing.append(str(error.args[0]))
    assert not missing, "\n".join(missing)


def test_layers_point_one_way():
    """Every import of an mtdiag module goes to the same layer or one below (docs/architecture.md): a check that
    imports a view, or a view that imports the report, fails here."""
    files = _mtdiag_modules()
    modules = {_module_name(p) for p in files}
    names = list(LAYERS)

    def module_of(name: str) -> str:  # `mtdiag.scoring.evaluate.Options` -> `mtdiag.scoring.evaluate` (the longest prefix that is a module)
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
                    bad.append(f"{module} ({names[layer_of(module)]}) imports {name} ({names[layer_of(target)]})")
    assert not bad, "imports that point up the layers:\n" + "\n".join(bad)


def test_a_derived_metric_declares_a_provider_above_the_scoring_layer():
    """The one place a lower layer reaches up (``DerivedMetric.provider``, docs/architecture.md "Metrics derived
    from a report"): every derived metric names a module of a layer above scoring, and a function it holds."""
    import importlib

    from mtdiag.metrics import REGISTRY, DerivedMetric

    derived = {name: cls for name, cls in REGISTRY.items() if issubclass(cls, DerivedMetric)}
    assert derived, "no derived metric registered"
    for name, cls in derived.items():
        module, _, function = cls.provider.partition(":")
        assert layer_of(module) > layer_of("mtdiag.scoring.evaluate"), f"{name}: provider {module} is not above scoring"
        assert callable(getattr(importlib.import_module(module), function)), f"{name}: no {cls.provider}"


def test_architecture_doc_names_every_layer():
    text = (REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for layer in LAYERS:
        assert f"**{layer}**" in text, f"docs/architecture.md does not describe the {layer} layer"


LAYOUTS = UI / "layouts"


def _declares_a_view(path: Path) -> bool:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "VIEW" for t in node.targets)
               for node in tree.body)


def test_every_view_module_is_registered_and_every_layout_draws_a_view():
    """A view is one module of ``mtdiag/views/`` that declares ``VIEW`` and one entry of ``mtdiag.views.REGISTRY``
    (named as its module); a page with a layout of its own is ``mtdiag/ui/layouts/NAME.py`` for a registered view
    NAME. (What views share — ``base``, ``columns``, ``detail`` — declares no view.)"""
    from mtdiag import views

    modules = {p.stem for p in (PKG / "views").glob("*.py") if _declares_a_view(p)}
    assert modules == set(views.REGISTRY), "a view module without a registry entry, or an entry without a module"
    for name, view in views.REGISTRY.items():
        assert view.name == name and view.tables, name
    layouts = {p.stem for p in LAYOUTS.glob("*.py")} - {"__init__"}
    assert layouts <= set(views.REGISTRY), f"layouts of no view: {sorted(layouts - set(views.REGISTRY))}"


def test_every_layout_draws_its_own_view():
    """A layout draws its own view, by name, through :class:`mtdiag.ui.page.Page` (``Page("NAME")``), and imports
    no view's module: its tables, charts and options are all in its view (``tests/test_pages_are_views.py``)."""
    bad = []
    for path in sorted(LAYOUTS.glob("*.py")):
        if path.stem == "__init__":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        pages = [node.args[0].value for node in ast.walk(tree) if isinstance(node, ast.Call)
                 and getattr(node.func, "id", None) == "Page" and node.args and isinstance(node.args[0], ast.Constant)]
        if pages != [path.stem]:
            bad.append(f"layouts/{path.name} draws {pages}, not Page({path.stem!r})")
        bad += [f"layouts/{path.name} imports {m}" for m in _imported_modules(path) if m.startswith("mtdiag.views")]
    assert not bad, "\n".join(bad)


# --------------------------------------------------------------------------------------- the review's findings


def _graph() -> dict[str, set[str]]:
    """Every mtdiag module and the mtdiag modules it imports (at any depth in the file; a package's ``__init__``
    is its package's name)."""
    files = _mtdiag_modules()
    modules = {_module_name(p) for p in files}

    def module_of(name: str) -> str:
        while name not in modules and "." in name:
            name = name.rpartition(".")[0]
        return name

    return {_module_name(p): {module_of(n) for n in _imported_modules(p) if n == "mtdiag" or n.startswith("mtdiag.")}
            - {_module_name(p)} for p in files}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index, low, stack, on, found, counter = {}, {}, [], set(), [], [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on.add(node)
        for other in graph.get(node, ()):
            if other not in index:
                visit(other)
                low[node] = min(low[node], low[other])
            elif other in on:
                low[node] = min(low[node], index[other])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def _package_faces(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph without the edges from a package's ``__init__`` (its face, which hands its modules' names on) to
    the modules inside it: a module importing its own package's face is a cycle only through another module."""
    return {module: {t for t in targets if not (t.startswith(module + ".") and (PKG / Path(*module.split(".")[1:])
                                                                                 / "__init__.py").is_file())}
            for module, targets in graph.items()}


def test_no_import_cycle_anywhere():
    """Modules import each other one way only, also inside a layer and through imports inside functions (the
    review found ``compare`` ↔ ``charts``): a cycle of two modules or more fails here, named."""
    cycles = _cycles(_package_faces(_graph()))
    assert not cycles, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in cycles)


def test_a_cycle_inside_a_layer_is_found():
    assert _cycles({"mtdiag.views.charts": {"mtdiag.analysis.significance"}, "mtdiag.analysis.significance": {"mtdiag.views.charts"},
                    "mtdiag.scoring.evaluate": set()}) == [["mtdiag.analysis.significance", "mtdiag.views.charts"]]


def test_the_command_line_and_the_dashboard_do_not_import_each_other():
    graph = _graph()
    bad = [f"{m} imports {t}" for m, targets in graph.items() for t in targets
           if (m.startswith("mtdiag.ui") and t.startswith("mtdiag.cli"))
           or (m.startswith("mtdiag.cli") and t.startswith("mtdiag.ui"))]
    assert not bad, bad


UI_DOORS = {
    **{name: "the data model and pure helpers" for name in LAYERS["foundation"] if name != "mtdiag"},
    "mtdiag.io": "reading the files a user gives",
    "mtdiag.scoring.workspace": "saved runs",
    "mtdiag.views": "the registry of views and what their pages share (the package's face, no view's module)",
    "mtdiag.pipeline.inputs": "the one input path: options, scoring, the slice",
    "mtdiag.report.export": "writers", "mtdiag.report.html_report": "the HTML report", "mtdiag.report.campaign": "a Pearmut campaign file",
}
"""What the dashboard may import of the core, and why: never a view's module or the computing core (metrics,
scoring, statistics, checks, triage, spans, slices) — the pages get their tables and charts through the registry."""


def _bare_face(module: str) -> bool:
    """A package whose ``__init__`` holds its docstring only: importing a module from it opens no door of its own."""
    init = REPO_ROOT.joinpath(*module.split("."), "__init__.py")
    if not init.is_file():
        return False
    body = ast.parse(init.read_text(encoding="utf-8")).body
    return all(isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) for node in body)


def test_the_dashboard_reaches_the_core_through_its_doors_only():
    graph = _graph()
    bad = [f"{module} imports {target}" for module, targets in graph.items() if module.startswith("mtdiag.ui")
           for target in targets if not target.startswith("mtdiag.ui") and target != "mtdiag"
           and not _bare_face(target)
           and not any(target == d or (d != "mtdiag.views" and target.startswith(d + ".")) for d in UI_DOORS)]
    assert not bad, "\n".join(bad)


def test_export_only_writes():
    """``mtdiag.report.export`` holds writers only: it builds no table from a report, so it imports no view."""
    imported = _imported_modules(PKG / "report" / "export.py")
    assert not {m for m in imported if m.startswith("mtdiag.views")}, imported


def test_the_default_metric_rule_lives_once():
    """"chrF when present, else BLEU" is :func:`mtdiag.views.default_metric`: no page, widget or report names chrF
    as a default of its own."""
    bad = []
    for path in [*LAYOUTS.glob("*.py"), *UI.glob("*.py"), PKG / "report" / "html_report.py"]:
        if '"chrf"' in path.read_text(encoding="utf-8"):
            bad.append(str(path.relative_to(REPO_ROOT)))
    assert not bad, bad


def _tree_lines(text: str) -> dict[str, list[str]]:
    """The folder tree of ``docs/architecture.md``: ``{folder: [the module names its line and the lines under it
    list]}`` — a word counts as a module name when the folder holds a module or package of that name."""
    block = text.split("```\nmtdiag/\n", 1)[1].split("```", 1)[0]
    folders: dict[str, list[str]] = {}
    current = None
    for line in block.splitlines():
        entry = re.match(r"[├└]── (\S+)", line)
        if entry:
            current = entry.group(1)
            folders[current] = line.split()[3:]
        elif current and line.startswith("│"):
            folders[current] += line.split()[1:]
    return folders


def test_the_tree_in_the_docs_is_the_package():
    """``docs/architecture.md`` draws the package as it is: one line per folder (a layer of :data:`LAYERS`), the
    modules it names exist, and the folders whose line lists modules name all of them."""
    tree = _tree_lines((REPO_ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    on_disk = {p.name + "/" for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    loose = {p.name for p in PKG.glob("*.py")}
    assert loose == {"__init__.py", "__main__.py"}, f"modules outside a layer's folder: {sorted(loose)}"
    drawn = {name for name in tree if name.endswith("/")}
    assert drawn == on_disk, f"folders drawn {sorted(drawn)} but the package has {sorted(on_disk)}"
    layer_folders = {name.split(".")[1] + "/" for names in LAYERS.values() for name in names if name.count(".") == 1
                     and not name.endswith("__main__")}
    assert layer_folders == on_disk, f"LAYERS names {sorted(layer_folders)}, the package has {sorted(on_disk)}"
    listed = {"core/", "scoring/", "analysis/", "report/", "pipeline/"}  # their lines name every module
    for folder, words in tree.items():
        if not folder.endswith("/"):
            continue
        here = {p.stem for p in (PKG / folder).glob("*.py") if p.stem != "__init__"} | {
            p.name for p in (PKG / folder).iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
        named = {w.rstrip("/") for w in words if w.rstrip("/") in here}
        if folder in listed:
            assert named == here, f"{folder}: the tree names {sorted(named)}, the folder holds {sorted(here)}"


def test_the_readme_layout_is_the_package():
    """The README's "Layout" names every folder of the package, and every ``mtdiag/…`` path it names exists."""
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    layout = readme.split("## Layout", 1)[1].split("```", 2)[1]
    folders = {p.name for p in PKG.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}
    missing = [f for f in sorted(folders) if not re.search(rf"(?<![\w/]){f}/", layout)]
    assert not missing, f"README Layout does not name {missing}"
    for path in re.findall(r"mtdiag/[\w/.]+", layout):
        assert (REPO_ROOT / path.rstrip("/")).exists(), f"README Layout names {path}, which does not exist"


def test_one_name_one_meaning():
    """A module name is used once in the package, but for a view's two faces (``views/NAME``, ``ui/layouts/NAME``),
    the page of a paper's metrics (``metrics/NAME``, ``views/NAME``), the command line's modules (``cli/NAME`` is the
    command ``mtdiag NAME``) and ``__init__``/``base``
    (docs/architecture.md)."""
    from collections import defaultdict

    views = {p.stem for p in (PKG / "views").glob("*.py")}
    faces = {"views", "layouts"}
    where = defaultdict(list)
    for path in _mtdiag_modules():
        if path.stem not in ("__init__", "base", "__main__") and path.parent.name != "cli":
            where[path.stem].append(path.parent.name)
    metrics = {p.stem for p in (PKG / "metrics").glob("*.py")}
    twice = {name: folders for name, folders in where.items() if len(folders) > 1
             and not (name in views and set(folders) <= faces | ({"metrics"} if name in metrics else set()))}
    assert not twice, f"module names used for more than one thing: {twice}"


# --------------------------------------------------------------------------------------------- sizes as rules

MAX_MODULE_LINES = 500
MAX_FUNCTION_LINES = 60
SIZE_EXCEPTIONS: dict[str, str] = {}
"""Modules (``mtdiag/PATH.py``) and functions (``mtdiag/PATH.py:NAME``, a method ``Class.NAME``) allowed over the
limits, each with its reason. Empty: nothing in the package needs one. An entry that no longer exceeds its limit
fails :func:`test_every_size_exception_is_still_needed`, so the list cannot outlive its reasons."""


def _sizes() -> tuple[dict[str, int], dict[str, int]]:
    """Every module's physical lines and every function's (from its ``def`` to its last line, docstring included;
    a nested function counts in its own right and inside the function that holds it)."""
    modules, functions = {}, {}
    for path in _mtdiag_modules():
        text = path.read_text(encoding="utf-8")
        where = str(path.relative_to(REPO_ROOT))
        modules[where] = len(text.splitlines())

        def visit(node: ast.AST, prefix: str) -> None:
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    functions[f"{where}:{prefix}{child.name}"] = child.end_lineno - child.lineno + 1
                    visit(child, f"{prefix}{child.name}.")
                elif isinstance(child, ast.ClassDef):
                    visit(child, f"{prefix}{child.name}.")
                else:
                    visit(child, prefix)

        visit(ast.parse(text), "")
    return modules, functions


def test_no_module_over_500_lines_and_no_function_over_60():
    """Small modules named for what they hold, functions that fit on a screen (``../shared/DESIGN.md``,
    docs/architecture.md "Sizes"): a module over :data:`MAX_MODULE_LINES` lines or a function over
    :data:`MAX_FUNCTION_LINES` fails here, named, unless :data:`SIZE_EXCEPTIONS` gives a reason."""
    modules, functions = _sizes()
    big = [f"{where}: {n} lines (at most {MAX_MODULE_LINES})" for where, n in modules.items()
           if n > MAX_MODULE_LINES and where not in SIZE_EXCEPTIONS]
    big += [f"{where}: {n} lines (at most {MAX_FUNCTION_LINES})" for where, n in functions.items()
            if n > MAX_FUNCTION_LINES and where not in SIZE_EXCEPTIONS]
    assert not big, "split along its jobs, or give a reason in SIZE_EXCEPTIONS:\n" + "\n".join(sorted(big))


def test_every_size_exception_is_still_needed():
    modules, functions = _sizes()
    for where, reason in SIZE_EXCEPTIONS.items():
        assert reason.strip(), f"{where}: an exception needs its reason"
        if where in modules:
            assert modules[where] > MAX_MODULE_LINES, f"{where} is within the limit now: drop its exception"
        else:
            assert where in functions, f"{where}: no such module or function"
            assert functions[where] > MAX_FUNCTION_LINES, f"{where} is within the limit now: drop its exception"


def test_the_size_rule_finds_a_long_function(tmp_path, monkeypatch):
    """The census sees methods and nested functions: a 61-line method of a class fails the rule."""
    package = tmp_path / "mtdiag"
    package.mkdir()
    body = "\n".join(f"        x{i} = {i}" for i in range(59))
    (package / "big.py").write_text(f"class A:\n    def long(self):\n{body}\n        return 0\n", encoding="utf-8")
    monkeypatch.setattr(sys.modules[__name__], "REPO_ROOT", tmp_path)
    monkeypatch.setattr(sys.modules[__name__], "PKG", package)
    modules, functions = _sizes()
    assert modules == {"mtdiag/big.py": 62} and functions == {"mtdiag/big.py:A.long": 61}


MAX_SUMMARY_COLUMNS = 120


def _missing_summaries(package: Path) -> list[str]:
    """Public functions, classes and methods under ``package`` whose docstring has no one-line summary.

    Public: a name without a leading underscore (a method only in a public class). A docstring has a summary when
    it is one line, or its second line is blank (PEP 257), and its first line in the file fits
    :data:`MAX_SUMMARY_COLUMNS` columns."""
    missing = []
    for path in sorted(p for p in package.rglob("*.py") if "__pycache__" not in p.parts):
        lines = path.read_text(encoding="utf-8").splitlines()

        def visit(node, public: bool = True) -> None:
            for child in ast.iter_child_nodes(node):
                if not isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    continue
                mine = public and not child.name.startswith("_")
                if mine:
                    where = f"{path.relative_to(package.parent)}:{child.lineno} {child.name}"
                    doc = ast.get_docstring(child, clean=True)
                    if not doc:
                        missing.append(f"{where}: no docstring")
                    elif len(doc.split("\n")) > 1 and doc.split("\n")[1].strip():
                        missing.append(f"{where}: the first paragraph is more than one line")
                    elif len(lines[child.body[0].lineno - 1]) > MAX_SUMMARY_COLUMNS:
                        missing.append(f"{where}: the summary line is over {MAX_SUMMARY_COLUMNS} columns")
                if isinstance(child, ast.ClassDef):
                    visit(child, mine)

        visit(ast.parse("\n".join(lines)))
    return missing


def test_every_public_function_says_what_it_does_in_one_line():
    """Words that help the next person: every public function, class and method of the package opens its docstring
    with a one-line summary, then a blank line before the details (PEP 257)."""
    missing = _missing_summaries(PKG)
    assert not missing, "give each a one-line summary, then a blank line:\n" + "\n".join(missing)


def test_the_summary_rule_finds_a_long_first_paragraph_and_a_missing_docstring(tmp_path):
    package = tmp_path / "mtdiag"
    package.mkdir()
    (package / "m.py").write_text(
        'def ok():\n    """One line."""\n\n\n'
        'def long():\n    """Two lines\n    of summary."""\n\n\n'
        'class A:\n    """A class.\n\n    Details."""\n\n    def bare(self):\n        return 0\n\n'
        '    def _private(self):\n        return 0\n\n\n'
        'def _hidden():\n    return 0\n', encoding="utf-8")
    assert [m.split(": ", 1)[1] for m in _missing_summaries(package)] == [
        "the first paragraph is more than one line", "no docstring"]
    assert [m.split(": ")[0].split()[1] for m in _missing_summaries(package)] == ["long", "bare"]
