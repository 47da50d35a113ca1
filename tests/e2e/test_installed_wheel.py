"""What a user gets from ``pip install``: a wheel built from this checkout, installed into a fresh virtual environment
outside it, serves the dashboard on its own sample data with ``mtdiag serve`` started from another folder.

The wheel must carry the Streamlit entry script, every page and ``sample_data/``; nothing may be read from the
checkout (the server runs in an empty folder, and the installed package is checked to live in the new
environment). The dependencies come from the package index (pip's cache makes a second run quick).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import REPO_ROOT, _free_port, _health_ok, _stop

INSTALL_TIMEOUT_S = 1200
FIRST_RENDER_MS = 300_000


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel of this checkout installed; returns its ``bin`` folder."""
    root = tmp_path_factory.mktemp("wheel")
    source = root / "source"  # build from a copy: the build must not depend on (or write into) the checkout
    shutil.copytree(REPO_ROOT, source, ignore=shutil.ignore_patterns(
        ".git", ".venv", "artifacts", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".hypothesis",
        "tests"))
    dist = root / "dist"
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(dist), str(source)],
                           capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    assert built.returncode == 0, built.stderr[-3000:]
    wheel = next(dist.glob("mtdiag-*.whl"))
    venv = root / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=300)
    done = subprocess.run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", str(wheel)],
                          capture_output=True, text=True, timeout=INSTALL_TIMEOUT_S)
    assert done.returncode == 0, done.stderr[-3000:]
    return venv / "bin"


def test_the_wheel_carries_the_dashboard_and_its_sample_data(installed):
    where = subprocess.run([str(installed / "python"), "-c",
                            "import mtdiag, pathlib; print(pathlib.Path(mtdiag.__file__).parent)"],
                           cwd=installed.parent, check=True, capture_output=True, text=True).stdout.strip()
    package = Path(where)
    assert installed.parent in package.parents, f"mtdiag imported from {package}, not from the new environment"
    assert REPO_ROOT not in package.parents
    samples = sorted(p.name for p in (package / "sample_data").iterdir() if p.is_dir())
    assert {"wmt21.en-de", "wmt21.en-ja", "tico19.en-fr"} <= set(samples)


def test_mtdiag_serve_from_another_folder_opens_on_the_sample_data(installed, tmp_path, browser, wait_for_app,
                                                                  screenshot_dir):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    port = _free_port()
    log_path = tmp_path / "serve.log"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "MTDIAG_DATA")}
    env.update(PYTHONUNBUFFERED="1", HOME=str(tmp_path), STREAMLIT_BROWSER_GATHER_USAGE_STATS="false")
    with open(log_path, "wb") as log:
        proc = subprocess.Popen([str(installed / "mtdiag"), "serve", "--port", str(port)], cwd=elsewhere, env=env,
                                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                start_new_session=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while not _health_ok(f"{base}/_stcore/health"):
            assert proc.poll() is None and time.monotonic() < deadline, log_path.read_text(errors="replace")
            time.sleep(0.25)
        page = browser.new_context(viewport={"width": 1600, "height": 1000}).new_page()
        page.set_default_timeout(60_000)
        page.goto(base, wait_until="domcontentloaded")
        # a fresh environment compiles the TER kernel (numba) on its first report: allow for it
        wait_for_app(page, timeout=FIRST_RENDER_MS)
        expect(page.get_by_role("heading", name="Overview", exact=True)).to_be_visible(timeout=FIRST_RENDER_MS)
        wait_for_app(page, timeout=FIRST_RENDER_MS)
        expect(page.get_by_test_id("stException")).to_have_count(0)
        expect(page.get_by_test_id("stAlertContentError")).to_have_count(0)
        expect(page.get_by_test_id("stSidebar").get_by_text("wmt21.en-de", exact=False).first).to_be_visible()
        expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
        page.screenshot(path=str(screenshot_dir / "installed_wheel_overview.png"))
        page.context.close()
    except Exception:
        print(log_path.read_text(errors="replace")[-5000:])
        raise
    finally:
        _stop(proc)
