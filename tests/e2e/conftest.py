"""Real-browser fixtures: a Streamlit server on loopback + Debian chromium driven by Playwright.

Recipe (shared/DESIGN.md, "Testing the app"): the server runs from the repo root with its output in a file,
we poll ``/_stcore/health`` until it says ``ok``, and stop it by PID (and process group) at the end. Chromium is
Debian's ``/usr/bin/chromium`` (``make browser``), never ``playwright install``. Every request from the page to a
host other than loopback is aborted and recorded, so a test can assert the app works on a closed network.

Fixtures: ``streamlit_server`` (base URL), ``browser``, ``page``, ``blocked_requests`` (list of blocked URLs for
the current page), ``wait_for_app`` (the helper below, for tests that prefer a fixture to an import).
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
from urllib.parse import urlsplit

import pytest

REPO_ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = REPO_ROOT / "artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"
CHROMIUM = os.environ.get("MTDIAG_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1", "[::1]"}
SERVER_START_TIMEOUT_S = 60.0


def pytest_collection_modifyitems(config, items):
    """Everything under tests/e2e is an e2e test (select with -m e2e, skip with -m 'not e2e')."""
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.e2e)


# ---------------------------------------------------------------------------------------------- server


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _health_ok(url: str) -> bool:
    # No proxy: a proxy from the environment must never see loopback traffic.
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(url, timeout=2) as resp:
            return resp.status == 200 and resp.read().strip() == b"ok"
    except (urllib.error.URLError, OSError):
        return False


def _stop(proc: subprocess.Popen) -> None:
    if proc.poll() is not None:
        return
    try:  # the server runs in its own session: its process group id is its pid
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        pass
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait(timeout=10)


@pytest.fixture(scope="session")
def streamlit_server():
    """Start ``python -m mtdiag.ui.serve run app.py`` (``make run``'s command) on a free loopback port; yield its base
    URL; stop it by PID."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    port = _free_port()
    log_path = ARTIFACTS / f"streamlit-server-{port}.log"
    cmd = [
        sys.executable, "-m", "mtdiag.ui.serve", "run", "app.py",
        "--server.address", "127.0.0.1",
        "--server.port", str(port),
        "--server.headless", "true",
        "--browser.gatherUsageStats", "false",
        "--server.fileWatcherType", "none",
    ]
    env = dict(os.environ, PYTHONUNBUFFERED="1", STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd, cwd=REPO_ROOT, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            env=env, start_new_session=True,
        )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + SERVER_START_TIMEOUT_S
        while True:
            if _health_ok(f"{base}/_stcore/health"):
                break
            if proc.poll() is not None or time.monotonic() > deadline:
                why = (f"exited with code {proc.returncode}" if proc.poll() is not None
                       else f"not healthy after {SERVER_START_TIMEOUT_S:.0f} s")
                pytest.fail(f"Streamlit server {why}: {' '.join(cmd)}\n--- {log_path} ---\n"
                            + log_path.read_text(errors="replace"), pytrace=False)
            time.sleep(0.25)
        yield base
    finally:
        _stop(proc)


# --------------------------------------------------------------------------------------------- browser


@pytest.fixture(scope="session")
def browser():
    """Debian chromium via Playwright's sync API. Missing chromium is a failure, never a skip."""
    if not (os.path.isfile(CHROMIUM) and os.access(CHROMIUM, os.X_OK)):
        pytest.fail(f"{CHROMIUM} not found: run `make browser` (installs Debian's chromium). "
                    "Never `playwright install`.", pytrace=False)
    try:
        from playwright.sync_api import sync_playwright
    except ImportError as exc:  # pragma: no cover - dev requirements missing
        pytest.fail(f"playwright is not installed ({exc}): run `make install`.", pytrace=False)
    pw = sync_playwright().start()
    try:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        try:
            yield b
        finally:
            b.close()
    finally:
        pw.stop()


@pytest.fixture
def blocked_requests() -> list[str]:
    """URLs the current test's page tried to reach outside loopback (each was aborted)."""
    return []


@pytest.fixture
def page(browser, blocked_requests):
    """A fresh context + page whose every non-loopback request is aborted and recorded."""
    context = browser.new_context(viewport={"width": 1440, "height": 1000})

    def guard(route):
        url = route.request.url
        parts = urlsplit(url)
        if parts.scheme in ("data", "blob", "about") or (parts.hostname or "") in LOOPBACK_HOSTS:
            route.continue_()
        else:
            blocked_requests.append(url)
            route.abort()

    context.route("**/*", guard)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    try:
        yield pg
    finally:
        if blocked_requests:
            print(f"\n[e2e] blocked non-loopback requests: {blocked_requests}")
        context.close()


# --------------------------------------------------------------------------------------------- helpers


def wait_for_app(page, timeout: int = 60_000) -> None:
    """Wait until Streamlit is connected, its script run has finished, no skeleton is visible and no element of the
    previous run is left (``data-stale``: a click's rerun may not have started when the run state is first read).

    Call after ``page.goto`` and after every interaction (a click, an upload, a widget change).
    """
    page.wait_for_selector(
        "[data-testid='stApp'][data-test-connection-state='CONNECTED']", state="attached", timeout=timeout)
    page.wait_for_selector(
        "[data-testid='stApp'][data-test-script-state='notRunning']", state="attached", timeout=timeout)
    page.wait_for_function(
        """() => ![...document.querySelectorAll("[data-testid='stSkeleton']")]
                   .some(e => e.offsetParent !== null || e.getClientRects().length > 0)
               && !document.querySelector("[data-stale='true']")""",
        timeout=timeout,
    )


def grid_box(page, timeout: int = 60_000) -> dict:
    """The on-screen box of the page's first data grid, once the grid is attached and has stopped moving.

    A grid is a canvas clicked by position, and a rerun may replace its element between the moment it is found and
    the moment it is scrolled to ("Element is not attached to the DOM"): find it again until two reads, 250 ms apart,
    give the same box.
    """
    from playwright.sync_api import Error as PlaywrightError

    deadline = time.monotonic() + timeout / 1000
    last = None
    while time.monotonic() < deadline:
        grid = page.get_by_test_id("stDataFrame").first
        try:
            grid.wait_for(state="visible", timeout=max(1, int((deadline - time.monotonic()) * 1000)))
            grid.scroll_into_view_if_needed(timeout=5_000)
            box = grid.bounding_box(timeout=5_000)
        except PlaywrightError:
            box = None
        if box is not None and box == last:
            return box
        last = box
        page.wait_for_timeout(250)
    raise AssertionError(f"no data grid stood still within {timeout} ms")


@pytest.fixture(name="wait_for_app")
def wait_for_app_fixture():
    """The :func:`wait_for_app` helper as a fixture."""
    return wait_for_app


@pytest.fixture(scope="session")
def screenshot_dir() -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    return SCREENSHOTS
