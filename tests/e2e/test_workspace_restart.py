"""A saved run survives a real server restart (issue 15, Build 4), in Chromium on a closed network.

Server 1 (``python -m mtdiag.ui.serve run app.py -- --workspace DIR``, as ``mtdiag serve --workspace DIR`` starts
it) saves the sample set's run; it is stopped; server 2 starts on the same workspace with a test-only ``sitecustomize`` (on
``PYTHONPATH``, nothing in the product) that counts every call of ``mtdiag.scoring.evaluate.evaluate`` into a file. Opening the
run must show its systems and add no call: the only scoring in server 2 is the sample set it opens on.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from playwright.sync_api import expect

REPO_ROOT = Path(__file__).resolve().parents[2]
SERVER_START_TIMEOUT_S = 60.0

SYSTEMS = ["eTranslation", "Facebook-AI", "Online-W", "UEdin", "VolcTrans-AT", "VolcTrans-GLAT"]
COUNTING_HOOK = """
import os
import mtdiag.scoring.evaluate

_evaluate = mtdiag.scoring.evaluate.evaluate


def evaluate(*args, **kwargs):
    with open(os.environ["MTDIAG_TEST_EVALUATE_LOG"], "a") as log:
        log.write("evaluate\\n")
    return _evaluate(*args, **kwargs)


mtdiag.scoring.evaluate.evaluate = evaluate
"""


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _health_ok(url: str) -> bool:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # loopback never goes through a proxy
    try:
        with opener.open(url, timeout=2) as response:
            return response.status == 200 and response.read().strip() == b"ok"
    except (urllib.error.URLError, OSError):
        return False


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server we started, by its process group (its own session)."""
    if proc.poll() is not None:
        return
    os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


def _serve(workspace: Path, log_path: Path, env: dict[str, str]) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    cmd = [sys.executable, "-m", "mtdiag.ui.serve", "run", "app.py", "--server.address", "127.0.0.1",
           "--server.port", str(port), "--server.headless", "true", "--browser.gatherUsageStats", "false",
           "--server.fileWatcherType", "none", "--", "--workspace", str(workspace)]
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env=env, start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + SERVER_START_TIMEOUT_S
    while not _health_ok(f"{base}/_stcore/health"):
        if proc.poll() is not None or time.monotonic() > deadline:
            _stop(proc)
            pytest.fail(f"server did not start:\n{log_path.read_text(errors='replace')}", pytrace=False)
        time.sleep(0.25)
    return proc, base


def test_a_saved_run_reopens_after_a_server_restart_without_scoring(page, blocked_requests, wait_for_app, tmp_path):
    def _saved_runs(page):
        page.get_by_test_id("stSidebar").get_by_text("Saved runs", exact=True).click()
        wait_for_app(page)

    workspace = tmp_path / "workspace"
    env = dict(os.environ, PYTHONUNBUFFERED="1", STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    env.pop("MTDIAG_DATA", None)

    proc, base = _serve(workspace, tmp_path / "server1.log", env)
    try:
        page.goto(base, wait_until="domcontentloaded")
        wait_for_app(page)
        _saved_runs(page)
        page.get_by_label("Label").fill("before the restart")
        page.get_by_label("Label").press("Enter")
        wait_for_app(page)
        page.get_by_role("button", name="Save this run").click()
        wait_for_app(page)
        expect(page.get_by_text("Saved as before the restart.")).to_be_visible()
    finally:
        _stop(proc)
    assert (workspace / "workspace.sqlite").exists()

    hook = tmp_path / "hook"
    hook.mkdir()
    (hook / "sitecustomize.py").write_text(COUNTING_HOOK, encoding="utf-8")
    calls = tmp_path / "evaluate.log"
    # the repository first: the hook imports mtdiag before streamlit puts the working folder on sys.path
    path = [str(hook), str(REPO_ROOT), *filter(None, [env.get("PYTHONPATH")])]
    # an empty report cache (mtdiag.scoring.report_cache): the sample set the app opens on is scored once, so the count
    # below proves the hook works
    env2 = dict(env, PYTHONPATH=os.pathsep.join(path),
                MTDIAG_TEST_EVALUATE_LOG=str(calls), MTDIAG_CACHE_DIR=str(tmp_path / "report-cache"))
    proc, base = _serve(workspace, tmp_path / "server2.log", env2)
    try:
        page.goto(base, wait_until="domcontentloaded")
        wait_for_app(page)
        assert calls.read_text().count("evaluate") == 1  # the sample set the app opens on: the hook works
        _saved_runs(page)
        sidebar = page.get_by_test_id("stSidebar")
        sidebar.get_by_test_id("stBaseButton-secondary").filter(has_text="Open").click()
        wait_for_app(page)
        # the summary of the saved run (the sample's summary may still be fading out of the rerun: not that one)
        summary = sidebar.locator("p", has_text="saved run: before the restart")
        expect(summary.filter(has_text="117 segments · 6 systems · 3 references").first).to_be_visible()
        expect(page.get_by_test_id("stException")).to_have_count(0)
        chart = page.locator(".js-plotly-plot").first  # the Overview's bar chart names every system
        expect(chart).to_be_visible(timeout=30_000)
        for system in SYSTEMS:
            expect(chart.get_by_text(system, exact=True).first).to_be_attached()
        page.screenshot(path="/tmp/mtdiag_workspace_restart.png", full_page=True)
        assert calls.read_text().count("evaluate") == 1  # opening the saved run scored nothing
    finally:
        _stop(proc)
    assert not blocked_requests, blocked_requests
