"""The Space in a real browser: Debian's headless Chromium driven by Playwright (never a download).

Opens the app on the bundled samples, switches tabs, filters and selects a pair, submits a
caption, checks the rendered labels, and saves a screenshot of each view in test-artifacts/.
Skipped when Chromium is absent, unless REQUIRE_BROWSER=1 (CI), where that is a failure.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

import data
from space_server import launch_space

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
TIMEOUT_MS = 20_000


def _require_browser() -> None:
    reason = None
    if not os.path.exists(CHROMIUM):
        reason = f"{CHROMIUM} not found (apt-get install chromium)"
    else:
        try:
            import playwright.sync_api  # noqa: F401
        except ImportError:
            reason = "playwright (Python) is not installed"
    if reason:
        if os.environ.get("REQUIRE_BROWSER") == "1":
            pytest.fail(f"browser test required (REQUIRE_BROWSER=1) but {reason}")
        pytest.skip(reason)


@pytest.fixture(scope="module")
def page():
    _require_browser()
    from playwright.sync_api import sync_playwright

    demo, url = launch_space(data.SpaceConfig())  # bundled samples, example leaderboard
    ARTIFACTS.mkdir(exist_ok=True)
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            pg = browser.new_page(viewport={"width": 1400, "height": 1000})
            pg.set_default_timeout(TIMEOUT_MS)
            pg.goto(url)
            yield pg
            browser.close()
    finally:
        demo.close()


def _shot(pg, name: str) -> None:
    pg.wait_for_timeout(400)  # let images and charts finish painting
    pg.screenshot(path=str(ARTIFACTS / f"space-{name}.png"), full_page=True)


def _choose(pg, elem_id: str, value: str) -> None:
    """Pick ``value`` in a Gradio dropdown by typing it and choosing the matching option."""
    box = pg.locator(f"#{elem_id} input")
    box.click()
    box.fill(value)
    pg.get_by_role("option", name=value, exact=True).click()


def _open_tab(pg, label: str) -> None:
    pg.get_by_role("tab", name=label).click()


def _wait_text(pg, selector: str, pattern: str) -> None:
    pg.locator(selector).filter(has_text=re.compile(pattern)).first.wait_for()


def test_diffcap_browser_filters_steps_and_compares(page):
    ids = data.pair_ids(None)
    _wait_text(page, "#dc-caption", re.escape(ids[0]))
    page.locator("#dc-image-a img").wait_for()
    page.locator("#dc-image-b img").wait_for()
    first = data.pair_view(None, ids[0])
    table = page.locator("#dc-table")
    for item in first.items:
        _wait_text(page, "#dc-table", re.escape(item.id))
    assert first.items[0].category in table.inner_text()
    _shot(page, "diffcap-browser")

    # filter by a category: the count and the choices follow the data layer
    category = first.items[0].category
    expected = data.filter_pairs(None, [category])
    page.locator("#dc-categories").get_by_label(category).check()
    _wait_text(page, "#dc-status", rf"\*?{len(expected)}\*? of {len(ids)} pairs")
    page.locator("#dc-next").click()
    _wait_text(page, "#dc-caption", re.escape(data.step_pair(expected, ids[0], 1)))

    # jump to a pair by id, then compare with the slider
    _choose(page, "dc-pair", expected[-1])
    _wait_text(page, "#dc-caption", re.escape(expected[-1]))
    page.locator("#dc-mode").get_by_label("slider").check()
    page.locator("#dc-slider img").first.wait_for()
    assert page.locator("#dc-image-a").is_hidden()
    _shot(page, "diffcap-slider")


def test_scoring_a_caption_shows_claim_and_item_labels(page):
    _open_tab(page, "Score a caption")
    pair_id = data.pair_ids(None)[1]
    items = data.pair_view(None, pair_id).items
    key = [it for it in items if not it.ambiguous]
    caption = f"{key[0].text} A purple elephant is dancing on the roof."
    expected = data.score_caption(None, pair_id, caption)

    _choose(page, "sc-pair", pair_id)
    page.locator("#sc-caption textarea").fill(caption)
    page.locator("#sc-score").click()
    _wait_text(page, "#sc-note", "judge:embedded")
    claims_text = page.locator("#sc-claims").inner_text()
    for claim in expected.claims:
        assert claim.label in claims_text
    _wait_text(page, "#sc-items", re.escape(expected.items[-1][0].id))
    items_text = page.locator("#sc-items").inner_text()
    for item, status in expected.items:  # the status column follows the id column
        assert re.search(rf"{re.escape(item.id)}\s+{status}\b", items_text), (item.id, status, items_text)
    assert "correct" in [c.label for c in expected.claims]  # the verbatim item text is recognised
    assert "F1*" in page.locator("#sc-metrics").inner_text()
    _shot(page, "score-caption")


def test_symbal_browser_shows_scenario_table_and_highlighted_rows(page):
    from playwright.sync_api import expect

    _open_tab(page, "SymbalBench browser")
    sid = data.filter_scenarios(None)[0]
    _wait_text(page, "#sb-summary", re.escape(sid))
    assert "v present" in page.locator("#sb-contingency").inner_text()
    page.locator("#sb-only").get_by_label("t inserted").check()
    n_rows = min(data.DEFAULT_PAGE_SIZE, data.scenario_page(None, sid, only=["t inserted"]).n_matching)
    # the unfiltered page may still be on screen for a moment: wait for the filtered one
    expect(page.locator("#sb-rows mark")).to_have_count(n_rows, timeout=15_000)
    assert page.locator("#sb-rows tr:has(td)").count() == n_rows  # every row shown has t inserted
    page.locator("#sb-variant").get_by_label("reference_based").check()
    _wait_text(page, "#sb-rows", "references")
    _shot(page, "symbal-browser")


def test_leaderboard_shows_both_tables(page):
    _open_tab(page, "Leaderboard")
    entries = data.read_leaderboard(None)
    _wait_text(page, "#lb-note", "scores.json")
    for benchmark, elem in (("diffcap", "#lb-diffcap"), ("symbal", "#lb-symbal")):
        for e in [e for e in entries if e.benchmark == benchmark]:
            _wait_text(page, elem, re.escape(e.model))
    _shot(page, "leaderboard")
