"""symbalbench publish: the shared Hub command, refusing MIMIC-derived builds unless told otherwise."""
import json
import shutil
from pathlib import Path

import symbalbench
from symbalbench.cli import main as cli_main

SAMPLE = Path(symbalbench.__file__).resolve().parent


def _copy_sample(dst: Path, medical_records: int) -> Path:
    shutil.copytree(SAMPLE / "data", dst / "data")
    shutil.copy(SAMPLE / "README.md", dst / "README.md")
    info = json.loads((SAMPLE / "build_info.json").read_text())
    info["bases"]["medical"]["records"] = medical_records
    (dst / "build_info.json").write_text(json.dumps(info))
    return dst


def test_publish_refuses_a_build_with_mimic_records(tmp_path, capsys):
    out = _copy_sample(tmp_path / "b", medical_records=160)
    args = ["publish", str(out), "--repo-id", "org/symbal", "--revision", "v1.0.0", "--dry-run"]
    assert cli_main(args) == 2
    err = capsys.readouterr().err
    assert "MIMIC-CXR" in err and str(out) in err and "--allow-restricted" in err
    assert cli_main(args + ["--allow-restricted"]) == 0
    assert "data/medical-00000-of-00001.parquet" in capsys.readouterr().out


def test_publish_dry_run_of_a_natural_only_build_lists_files(tmp_path, capsys):
    out = _copy_sample(tmp_path / "b", medical_records=0)
    assert cli_main(["publish", str(out), "--repo-id", "org/symbal", "--revision", "v1.0.0", "--dry-run"]) == 0
    printed = capsys.readouterr().out
    assert "tag v1.0.0" in printed and "build_info.json" in printed and "data/scenarios.parquet" in printed
    assert cli_main(["publish", str(out), "--repo-id", "org/symbal", "--revision", "1.0", "--dry-run"]) == 2
