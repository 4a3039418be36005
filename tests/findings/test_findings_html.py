"""The findings page opened in headless Chromium: it loads, with its title and every section.
Skips with the reason where Chromium is not installed."""

from __future__ import annotations

from pathlib import Path

from arbitro.cli.main import main
from tests.support.browser import NEEDS_CHROMIUM, DevTools

pytestmark = NEEDS_CHROMIUM


def test_the_findings_page_loads(browser: DevTools, tmp_path: Path) -> None:
    page = tmp_path / "findings.html"
    argv = ["findings", "--declared-only", "--format", "html", "--output", str(page)]
    assert main(argv) == 0
    seen = browser.probe(page.as_uri())
    assert seen["title"] == "arbitro findings"
    assert seen["text"] > 10_000
    assert seen["broken"] == 0
