"""The HTML report and the HTML rules comparison, opened in headless Chromium: they load, and every
plot is a decoded image. Skips with the reason where Chromium is not installed."""

from __future__ import annotations

from pathlib import Path

from arbitro.cli.main import main
from tests.support.browser import NEEDS_CHROMIUM, DevTools

pytestmark = NEEDS_CHROMIUM


def test_the_report_renders_every_plot(browser: DevTools, tmp_path: Path) -> None:
    page = tmp_path / "report.html"
    argv = ["report", "samba-en", "--games", "4", "--policy", "fast", "--output", str(page)]
    assert main([*argv, "--compare", "opening-rule"]) == 0
    seen = browser.probe(page.as_uri())
    assert seen["title"] == "samba-en simulated"
    # two final-score plots (two sides), hand scores, hand lengths, endings, wins by side, by seat
    assert seen["images"] == 7
    assert seen["decoded"] == seen["images"]


def test_the_comparison_links_every_cell_to_its_clause(browser: DevTools, tmp_path: Path) -> None:
    page = tmp_path / "cmp.html"
    argv = ["rules", "comparison", "--format", "html", "--output", str(page), "--no-witnesses"]
    assert main(argv) == 0
    seen = browser.probe(page.as_uri())
    assert seen["title"] == "The rulebooks compared"
    assert seen["links"] > 100 and seen["broken"] == 0
    assert seen["text"] > 10_000
