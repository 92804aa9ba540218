"""MIMIC-CXR-JPG adapter: CheXpert labels + metadata + free-text reports -> base records.

Files read (MIMIC-CXR-JPG 2.0.0 layout, see SPEC Appendix):
- ``mimic-cxr-2.0.0-chexpert.csv``: one row per study; 1.0 positive, 0.0 negative,
  -1.0 uncertain, blank not mentioned. Positive labels become ``labels`` (lower-case, e.g.
  "pleural effusion"); uncertain ones become ``uncertain`` (never present, never injected);
  negative ones become ``negated`` (eligible, but injected only after the blank ones).
- ``mimic-cxr-2.0.0-metadata.csv``: one frontal image per study is chosen — PA before AP,
  then the smallest ``dicom_id``. Studies without a frontal view are skipped (counted).
- reports ``files/pXX/pNNNNNNNN/sNNNNNNNN.txt``: the caption is the FINDINGS section (the
  IMPRESSION when there is no FINDINGS); the IMPRESSION is the reference when both exist.
  A report with neither section uses its whole body after the header.
- devices: from an optional CSV (``study_id`` + one column per device, 1/0/blank) or else
  mined from the whole report text with :func:`mine_devices` (rules documented there).
"""
from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Iterable, Optional

import numpy as np

from benchcore.errors import InputError
from symbalbench.base.coco import clean_text
from symbalbench.base.records import Base, BaseRecord, make_base
from symbalbench.templates import CHEXPERT_COLUMNS, DEVICE_SYNONYMS, MEDICAL_DEVICES, NEGATION_CUES

CHEXPERT_FILE = "mimic-cxr-2.0.0-chexpert.csv"
METADATA_FILE = "mimic-cxr-2.0.0-metadata.csv"
FRONTAL_RANK = {"PA": 0, "AP": 1}  # lower is preferred; every other view is not frontal
_VALUES = {"1.0": 1, "1": 1, "0.0": 0, "0": 0, "-1.0": -1, "-1": -1, "": None}

_HEADING = re.compile(r"^[ \t]*([A-Z][A-Z /&()-]*[A-Z)]):", re.MULTILINE)
# Phrases that contain a negation word but do not negate the device ("no change in the pacemaker").
_PSEUDO_NEGATIONS = re.compile(r"\b(no (?:significant |interval )?change|not (?:significantly )?changed|"
                               r"unchanged|no evidence of malposition)\b")
# Cues after the mention that mean it is gone ("the chest tube has been removed").
_POST_CUES = ("removed", "withdrawn", "no longer", "resolved")
_PRE_WINDOW = 6  # words before a mention (within its clause) in which a negation cue negates it
_CLAUSE_BREAK = re.compile(r"[,;:]|\bbut\b|\bhowever\b")


def _parse_value(path: Path, line: int, column: str, raw: str) -> Optional[int]:
    try:
        return _VALUES[raw.strip()]
    except KeyError:
        raise InputError(f"{path}: line {line}, column {column!r}: value {raw!r} "
                         "is not 1.0, 0.0, -1.0 or blank") from None


def _read_csv(path: Path, required: Iterable[str]) -> list[tuple[int, dict]]:
    if not path.is_file():
        raise InputError(f"{path}: file not found")
    with open(path, newline="", encoding="utf-8") as f:
        reader = csv.DictReader(f)
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(f"{path}: missing column(s) {missing}")
        return [(i + 2, row) for i, row in enumerate(reader)]  # line 1 is the header


def read_chexpert(path: Path) -> dict[str, dict[str, Optional[int]]]:
    """study_id -> {label (lower-case): 1 / 0 / -1 / None}, with subject_id under ``"_subject"``."""
    out: dict[str, dict] = {}
    for line, row in _read_csv(path, ["subject_id", "study_id"]):
        study, subject = row["study_id"].strip(), row["subject_id"].strip()
        if not study.isdigit() or not subject.isdigit():
            raise InputError(f"{path}: line {line}: subject_id/study_id must be digits, got {subject!r}/{study!r}")
        if study in out:
            raise InputError(f"{path}: line {line}: study {study} listed twice")
        labels = {c.lower(): _parse_value(path, line, c, row.get(c) or "") for c in CHEXPERT_COLUMNS if c in row}
        labels["_subject"] = subject
        out[study] = labels
    return out


def choose_frontal(path: Path) -> dict[str, tuple[str, str]]:
    """study_id -> (subject_id, dicom_id) of the chosen frontal image (PA, then AP, then id)."""
    best: dict[str, tuple[int, str, str]] = {}
    for line, row in _read_csv(path, ["dicom_id", "subject_id", "study_id", "ViewPosition"]):
        rank = FRONTAL_RANK.get(row["ViewPosition"].strip().upper())
        if rank is None:
            continue
        dicom, study = row["dicom_id"].strip(), row["study_id"].strip()
        if not dicom:
            raise InputError(f"{path}: line {line}: empty dicom_id")
        cand = (rank, dicom, row["subject_id"].strip())
        if study not in best or cand < best[study]:
            best[study] = cand
    return {s: (subj, dicom) for s, (_, dicom, subj) in best.items()}


def report_sections(text: str) -> dict[str, str]:
    """Upper-case ``HEADING:`` sections of a report, whitespace collapsed.

    >>> report_sections("FINAL REPORT\\n FINDINGS: Heart normal.\\n\\n IMPRESSION:\\n No acute process.")
    {'FINDINGS': 'Heart normal.', 'IMPRESSION': 'No acute process.'}
    """
    heads = list(_HEADING.finditer(text))
    out = {}
    for i, m in enumerate(heads):
        end = heads[i + 1].start() if i + 1 < len(heads) else len(text)
        body = clean_text(text[m.end():end])
        if body:
            out[m.group(1).strip()] = body
    return out


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.!?])\s+|\n\s*\n", text.lower()) if s.strip()]


def mine_devices(text: str) -> list[str]:
    """Devices asserted present in a report, by documented rules.

    A device is present when one of its synonyms (``vocabulary.json``) occurs as whole words in
    a sentence and that mention is not negated: no negation cue ("no", "without", "removal", ...)
    among the ``_PRE_WINDOW`` words before it in the same clause (clauses end at , ; : "but"
    "however"), and no "removed"/"withdrawn"/"no longer"/"resolved" after it in the same
    sentence. Pseudo-negations such as "no change" are ignored first.

    >>> mine_devices("Left chest wall pacemaker in place. No pneumothorax.")
    ['pacemaker']
    >>> mine_devices("No pacemaker is seen. The endotracheal tube has been removed.")
    []
    >>> mine_devices("No change in position of the ET tube and NG tube.")
    ['endotracheal tube', 'nasogastric tube']
    """
    found = []
    for device in MEDICAL_DEVICES:
        for sent in _sentences(text):
            sent = _PSEUDO_NEGATIONS.sub(" ", sent)
            if any(_mention_is_positive(sent, m) for syn in DEVICE_SYNONYMS[device]
                   for m in re.finditer(r"\b" + re.escape(syn) + r"\b", sent)):
                found.append(device)
                break
    return found


def _mention_is_positive(sentence: str, match: re.Match) -> bool:
    clause = _CLAUSE_BREAK.split(sentence[:match.start()])[-1]  # a cue before a comma/"but" is another clause
    before = " ".join(clause.split()[-_PRE_WINDOW:])
    after = sentence[match.end():]
    negated_before = any(re.search(r"\b" + re.escape(cue) + r"\b", before) for cue in NEGATION_CUES)
    negated_after = any(cue in after for cue in _POST_CUES)
    return not (negated_before or negated_after)


def read_device_csv(path: Path) -> dict[str, list[str]]:
    """study_id -> devices present, from a CSV with ``study_id`` and one column per device."""
    rows = _read_csv(path, ["study_id"])
    out = {}
    for line, row in rows:
        lower = {k.strip().lower(): v for k, v in row.items() if k}
        devices = [d for d in MEDICAL_DEVICES if _parse_value(path, line, d, lower.get(d) or "") == 1]
        out[row["study_id"].strip()] = devices
    return out


def _report_path(reports_root: Path, subject: str, study: str) -> Path:
    return reports_root / "files" / f"p{subject[:2]}" / f"p{subject}" / f"s{study}.txt"


def _caption_and_refs(path: Path, study: str) -> tuple[str, list[str], str]:
    if not path.is_file():
        raise InputError(f"{path}: report of study {study} not found")
    text = path.read_text(encoding="utf-8", errors="replace")
    sections = report_sections(text)
    # Headings vary ("FINDINGS", "FINDINGS AND IMPRESSION", "IMPRESSION"); take the first of each kind.
    findings = next((body for head, body in sections.items() if "FINDINGS" in head), None)
    impression = next((body for head, body in sections.items() if "IMPRESSION" in head and body != findings), None)
    if findings:
        return findings, [impression] if impression else [], text
    if impression:
        return impression, [], text
    body = clean_text(text.replace("FINAL REPORT", "", 1))
    if not body:
        raise InputError(f"{path}: report of study {study} is empty")
    return body, [], text


def load_mimic(root: str | Path, reports_root: Optional[str | Path] = None,
               device_csv: Optional[str | Path] = None, study_ids: Optional[Iterable[str]] = None,
               count: Optional[int] = None, seed: int = 0, check_images: bool = True) -> Base:
    """Read a MIMIC-CXR-JPG folder into a medical-domain base (one record per study)."""
    root = Path(root)
    reports_root = Path(reports_root) if reports_root else root
    chex = read_chexpert(root / CHEXPERT_FILE)
    frontal = choose_frontal(root / METADATA_FILE)
    devices = read_device_csv(Path(device_csv)) if device_csv else None

    usable = sorted(s for s in chex if s in frontal)
    if study_ids is not None:
        wanted = sorted(set(str(s).lstrip("s") for s in study_ids))
        missing = [s for s in wanted if s not in usable]
        if missing:
            raise InputError(f"{root}: requested studies without labels or frontal image: {missing[:10]}")
        usable = wanted
    elif count is not None:
        if count > len(usable):
            raise InputError(f"{root}: asked for {count} studies but {len(usable)} are usable")
        rng = np.random.default_rng(seed)
        usable = sorted(usable[i] for i in rng.choice(len(usable), size=count, replace=False))

    records = []
    for study in usable:
        subject, dicom = frontal[study]
        labels_raw = chex[study]
        if subject != labels_raw["_subject"]:
            raise InputError(f"{root / METADATA_FILE}: study {study} has subject {subject} but "
                             f"{CHEXPERT_FILE} says {labels_raw['_subject']}")
        image = f"files/p{subject[:2]}/p{subject}/s{study}/{dicom}.jpg"
        if check_images and not (root / image).is_file():
            raise InputError(f"{root / image}: frontal image of study {study} not found")
        caption, refs, full = _caption_and_refs(_report_path(reports_root, subject, study), study)
        present = [k for k, v in labels_raw.items() if k != "_subject" and v == 1]
        uncertain = [k for k, v in labels_raw.items() if k != "_subject" and v == -1]
        negated = [k for k, v in labels_raw.items() if k != "_subject" and v == 0]
        if devices is not None:
            dev = devices.get(study, [])
        else:
            dev = mine_devices(full)
        records.append(BaseRecord(record_id=f"s{study}", image=image, caption=caption, references=refs,
                                  labels=sorted(set(present) | set(dev)), uncertain=sorted(uncertain),
                                  negated=sorted(set(negated) - set(dev))))
    stats = {"studies_labelled": len(chex), "skipped_no_frontal": len([s for s in chex if s not in frontal]),
             "records": len(records), "devices_from": "csv" if devices is not None else "report text"}
    return make_base("medical", records, root=root, source=str(root / CHEXPERT_FILE), stats=stats)
