"""The HTML report and the HTML rules comparison, opened in headless Chromium: they load, and every
plot is a decoded image. Skips with the reason where Chromium is not installed."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from arbitro.cli.main import main
from tests.support.browser import NEEDS_CHROMIUM, DevTools

pytestmark = NEEDS_CHROMIUM


@pytest.mark.slow
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


def _shots(tmp_path: Path) -> Path:
    """Where the screenshots go: $ARBITRO_SCREENSHOTS (to look at them), else the test's folder."""
    where = Path(os.environ.get("ARBITRO_SCREENSHOTS") or tmp_path)
    where.mkdir(parents=True, exist_ok=True)
    return where


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")


# the first table of the comparison, as the browser lays it out: its rows of cell texts
ALL_FIVE = """(() => {
  const h = Array.from(document.querySelectorAll('h2'))
    .find(x => x.textContent === 'What applies to all five');
  let t = h && h.nextElementSibling;
  while (t && t.tagName !== 'TABLE') t = t.nextElementSibling;
  if (!t) return null;
  t.id = t.id || 'all-five';
  return Array.from(t.rows).filter(r => r.offsetHeight > 0)
    .map(r => Array.from(r.cells).map(c => c.innerText.trim()));
})()"""

FIVE_RULES = ["cards in the deck", "players", "play direction", "dealer rotation", "target score"]
# the books: Canasta two French decks with four jokers (108), Escoba the Spanish 40-card deck,
# Samba three French decks with six jokers (162); Canasta ends at 5,000, Escoba at 21 points,
# Samba at 10,000
DECKS = {"canasta-es": "108", "escoba-es": "40", "samba-en": "162", "samba-es": "162"}
TARGETS = {"canasta-es": "5000", "escoba-es": "21", "samba-en": "10000", "samba-fr": "10000"}


def _check_all_five(rows: list[list[str]] | None) -> None:
    """The table every book shares shows its five rules, each with a value for each book."""
    assert rows, "no table under 'What applies to all five'"
    header, body = rows[0], rows[1:]
    assert [r[0] for r in body] == FIVE_RULES
    assert all(len(r) == len(header) and all(r[1:]) for r in body), body
    by_rule = {r[0]: dict(zip(header[1:], r[1:], strict=True)) for r in body}
    for book, n in DECKS.items():
        assert by_rule["cards in the deck"][book] == n
    for book, n in TARGETS.items():
        assert by_rule["target score"][book] == n


def test_the_comparison_shows_all_five_rows_in_its_screenshot(
    browser: DevTools, tmp_path: Path
) -> None:
    page = tmp_path / "cmp.html"
    argv = ["rules", "comparison", "--format", "html", "--output", str(page), "--no-witnesses"]
    assert main(argv) == 0
    tab = browser.open(page.as_uri())
    _check_all_five(browser.evaluate(tab, ALL_FIVE))
    shot = browser.screenshot(tab, str(_shots(tmp_path) / "comparison-all-five.png"), "#all-five")
    width, height = _png_size(shot)
    # five rows and the header, each at least a line of text high
    assert width > 600 and height > 6 * 16


def test_a_comparison_missing_a_row_of_all_five_is_caught(
    browser: DevTools, tmp_path: Path
) -> None:
    """The check above on a page that drops play direction (the defect the table had)."""
    page = tmp_path / "cmp.html"
    argv = ["rules", "comparison", "--format", "html", "--output", str(page), "--no-witnesses"]
    assert main(argv) == 0
    text = page.read_text(encoding="utf-8")
    broken = re.sub(r"<tr><td>play direction</td>.*?</tr>", "", text, count=1)
    assert broken != text
    page.write_text(broken, encoding="utf-8")
    with pytest.raises(AssertionError):
        _check_all_five(browser.evaluate(browser.open(page.as_uri()), ALL_FIVE))


# the findings page's links: those of its navigation, of each kind's list, and whether every
# in-page link lands on an element
NAVIGATION = """(() => {
  const inpage = Array.from(document.querySelectorAll('a[href^="#"]'));
  return {
    kinds: Array.from(document.querySelectorAll('nav.toc a')).map(a => a.hash.slice(1)),
    h2: Array.from(document.querySelectorAll('h2[id]')).map(h => h.id),
    listed: Array.from(document.querySelectorAll('ol.toc a')).map(a => a.hash.slice(1)),
    sections: Array.from(document.querySelectorAll('section[id]')).map(s => s.id),
    broken: inpage.filter(a => !document.getElementById(decodeURIComponent(a.hash.slice(1))))
      .map(a => a.getAttribute('href')),
    up: document.querySelectorAll('section a.up[href="#top"]').length,
  };
})()"""


def _check_navigation(nav: dict[str, Any]) -> None:
    """From the top every kind, from each kind every finding of it, and back: no dead link."""
    assert nav["kinds"] and nav["kinds"] == nav["h2"]
    assert sorted(nav["listed"]) == sorted(nav["sections"]) and nav["sections"]
    assert nav["broken"] == []
    assert nav["up"] == len(nav["sections"])


def test_the_findings_page_can_be_navigated(browser: DevTools, tmp_path: Path) -> None:
    page = tmp_path / "findings.html"
    argv = ["findings", "--declared-only", "--format", "html", "--output", str(page)]
    assert main(argv) == 0
    tab = browser.open(page.as_uri())
    nav = browser.evaluate(tab, NAVIGATION)
    _check_navigation(nav)
    shots = _shots(tmp_path)
    assert _png_size(browser.screenshot(tab, str(shots / "findings-top.png"))) == (1280, 900)
    # a kind's heading is what its link in the navigation scrolls to
    kind = nav["kinds"][-1]
    browser.evaluate(tab, f"document.querySelector('nav.toc a[href=\"#{kind}\"]').click()")
    at = browser.evaluate(tab, f"document.getElementById('{kind}').getBoundingClientRect().top")
    assert abs(at) < 2
    assert _png_size(browser.screenshot(tab, str(shots / "findings-kind.png"))) == (1280, 900)


def test_a_findings_page_with_a_dead_link_is_caught(browser: DevTools, tmp_path: Path) -> None:
    page = tmp_path / "findings.html"
    argv = ["findings", "--declared-only", "--format", "html", "--output", str(page)]
    assert main(argv) == 0
    text = page.read_text(encoding="utf-8")
    # a finding whose section lost its id: its entry in its kind's list leads nowhere
    broken = re.sub(r'<section id="[^"]*">', "<section>", text, count=1)
    assert broken != text
    page.write_text(broken, encoding="utf-8")
    with pytest.raises(AssertionError):
        _check_navigation(browser.evaluate(browser.open(page.as_uri()), NAVIGATION))
