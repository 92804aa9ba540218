"""Name lists and insertion templates, read from the JSON data files in this folder.

Everything that is data (COCO's 80 categories, the medical findings and devices, the
device synonyms used for report mining, the template sentences) lives in
``vocabulary.json``, ``natural.json`` and ``medical.json``; this module only loads them.

>>> len(COCO_NAMES), COCO_NAMES[3], MEDICAL_DEVICES[0]
(80, 'motorcycle', 'pacemaker')
>>> noun_phrase("umbrella"), noun_phrase("scissors")
('an umbrella', 'a pair of scissors')
>>> render_template("nat-02", "dog")
'A dog can be seen nearby.'
"""
from __future__ import annotations

import json
from functools import lru_cache
from importlib.resources import files
from typing import Any


def _read(name: str) -> Any:
    return json.loads((files(__package__) / name).read_text(encoding="utf-8"))


@lru_cache(maxsize=None)
def vocabulary() -> dict:
    """The parsed ``vocabulary.json``."""
    return _read("vocabulary.json")


COCO_CATEGORIES: list[dict] = vocabulary()["coco_categories"]  # [{"id", "name", "supercategory"}]
COCO_NAMES: list[str] = [c["name"] for c in COCO_CATEGORIES]
COCO_ID_TO_NAME: dict[int, str] = {c["id"]: c["name"] for c in COCO_CATEGORIES}
MEDICAL_FINDINGS: list[str] = vocabulary()["medical_findings"]
MEDICAL_DEVICES: list[str] = vocabulary()["medical_devices"]
CHEXPERT_COLUMNS: list[str] = vocabulary()["chexpert_columns"]
DEVICE_SYNONYMS: dict[str, list[str]] = vocabulary()["device_synonyms"]
NEGATION_CUES: list[str] = vocabulary()["negation_cues"]


def noun_phrase(name: str) -> str:
    """Indefinite noun phrase for a feature name ("an apple", "a TV", "a pair of skis")."""
    override = vocabulary()["noun_phrase_overrides"].get(name)
    if override:
        return override
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


@lru_cache(maxsize=None)
def natural_templates() -> dict[str, str]:
    """template_id -> text with ``{np}`` / ``{NP}`` placeholders (>= 12 of them)."""
    return {t["id"]: t["text"] for t in _read("natural.json")["templates"]}


@lru_cache(maxsize=None)
def medical_templates() -> dict[str, dict[str, str]]:
    """finding -> {template_id -> sentence}; ids look like ``pleural_effusion-03``."""
    raw = _read("medical.json")["templates"]
    return {finding: {f"{slug(finding)}-{i + 1:02d}": s for i, s in enumerate(sentences)}
            for finding, sentences in raw.items()}


def slug(name: str) -> str:
    """Feature name as used inside ids: spaces become underscores ("dining_table")."""
    return name.strip().lower().replace(" ", "_")


def templates_for(domain: str, text_error: str) -> dict[str, str]:
    """template_id -> the finished sentence asserting ``text_error`` in ``domain``."""
    if domain == "medical":
        try:
            return dict(medical_templates()[text_error])
        except KeyError:
            raise KeyError(f"no medical templates for finding {text_error!r}; "
                           f"known: {sorted(medical_templates())}") from None
    np_ = noun_phrase(text_error)
    cap = np_[:1].upper() + np_[1:]
    return {tid: text.format(np=np_, NP=cap) for tid, text in natural_templates().items()}


def render_template(template_id: str, text_error: str) -> str:
    """One natural template filled with ``text_error``."""
    return templates_for("natural", text_error)[template_id]
