"""``python -m mtdiag.ui.serve``: Streamlit's command line, with the dashboard's modules imported by a background
thread once Streamlit's runtime has started (:mod:`mtdiag.ui.serve`)."""

import sys
from types import SimpleNamespace

import pytest
from streamlit.runtime import Runtime, RuntimeState

from mtdiag.ui import serve


def fake_runtime(monkeypatch, states: list):
    """Streamlit's runtime as :func:`serve.import_the_dashboard` sees it: absent (None) or in each state of
    ``states`` in turn, one per look; the modules it imports are recorded, not imported."""
    seen = iter(states)
    current = {"state": None}

    def exists():
        current["state"] = next(seen, states[-1])
        return current["state"] is not None

    monkeypatch.setattr(Runtime, "exists", staticmethod(exists))
    monkeypatch.setattr(Runtime, "instance", staticmethod(lambda: SimpleNamespace(state=current["state"])))
    imported = []
    monkeypatch.setattr(serve.importlib, "import_module", imported.append)
    monkeypatch.setattr(serve, "_draw_a_first_figure", lambda: imported.append("a figure"))
    return imported


def test_the_dashboard_is_imported_only_once_the_runtime_has_started(monkeypatch):
    looks = [None, None, RuntimeState.INITIAL, RuntimeState.INITIAL, RuntimeState.NO_SESSIONS_CONNECTED]
    imported = fake_runtime(monkeypatch, looks)
    serve.import_the_dashboard(poll_s=0)
    assert imported == [*serve.FIRST_PAGE_MODULES, "a figure"]
    assert imported[0] == "mtdiag.ui.dashboard"


def test_the_first_figure_is_one_of_the_overviews_bar_charts():
    figure = serve._draw_a_first_figure()
    assert [trace.type for trace in figure.data] == ["bar", "heatmap"] and list(figure.data[0].x) == ["a", "b"]


def test_nothing_is_imported_when_the_runtime_never_starts(monkeypatch):
    imported = fake_runtime(monkeypatch, [None])
    monkeypatch.setattr(serve, "RUNTIME_WAIT_S", 0.05)
    serve.import_the_dashboard(poll_s=0.01)
    assert imported == []


def test_an_import_that_fails_is_left_to_the_script(monkeypatch):
    fake_runtime(monkeypatch, [RuntimeState.NO_SESSIONS_CONNECTED])

    def broken(name):
        raise ImportError(f"no module {name}")

    monkeypatch.setattr(serve.importlib, "import_module", broken)
    before = sys.getswitchinterval()
    assert serve.import_the_dashboard(poll_s=0) is None  # the thread ends; the script's own import reports it
    assert sys.getswitchinterval() == before  # the shortened interval restored


def test_every_module_it_imports_exists():
    import importlib.util

    assert all(importlib.util.find_spec(name) is not None for name in serve.FIRST_PAGE_MODULES)


def test_main_is_streamlits_command_line_with_the_import_thread_started(monkeypatch):
    import streamlit.web.cli

    calls, started = [], []
    monkeypatch.setattr(streamlit.web.cli, "main", lambda prog_name: calls.append((prog_name, list(sys.argv))))
    monkeypatch.setattr(serve, "import_the_dashboard", lambda: started.append(True))
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    serve.main(["run", "app.py", "--server.port", "8600", "--", "--workspace", "w"])
    assert calls == [("streamlit", ["streamlit", "run", "app.py", "--server.port", "8600", "--", "--workspace", "w"])]
    assert started == [True]


@pytest.mark.parametrize("command", ["run", "--version"])
def test_the_module_runs_as_streamlit_does(command):
    import subprocess

    if command == "run":  # a script that does not exist: Streamlit's own message, its own status
        result = subprocess.run([sys.executable, "-m", "mtdiag.ui.serve", "run", "no_such_app.py"],
                                capture_output=True, text=True, timeout=120)
        assert result.returncode != 0 and "does not exist" in result.stdout + result.stderr
    else:
        result = subprocess.run([sys.executable, "-m", "mtdiag.ui.serve", "--version"], capture_output=True,
                                text=True, timeout=120)
        assert result.returncode == 0 and "Streamlit, version" in result.stdout
