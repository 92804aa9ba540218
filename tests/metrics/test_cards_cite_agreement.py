"""Metric cards print the embedded judge's agreement figures; they must match the generated report."""
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
REPORT = (ROOT / "capjudge" / "agreement" / "REPORT.md").read_text(encoding="utf-8")


def _headline_rows():
    return [line for line in REPORT.splitlines()
            if line.startswith("| ") and ("key items" in line or "claims (" in line
                                          or "pair has" in line or "name equivalence" in line)][:4]


def test_diffcap_card_has_the_current_item_and_claim_figures():
    card = (ROOT / "metrics" / "diffcap_f1" / "README.md").read_text(encoding="utf-8")
    rows = [r for r in _headline_rows() if "name equivalence" not in r]
    assert len(rows) == 3
    for row in rows:
        assert row in card, f"metric card is stale; copy from REPORT.md: {row}"
    signature = REPORT.split("Judge: `", 1)[1].split("`", 1)[0]
    assert signature in card


def test_symbal_card_has_the_current_equivalence_figure():
    card = (ROOT / "metrics" / "symbal_accuracy" / "README.md").read_text(encoding="utf-8")
    row = [r for r in _headline_rows() if "name equivalence" in r][0]
    assert row in card
