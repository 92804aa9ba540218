import pytest

from benchcore.outdir import atomic_output_dir
from benchcore.tables import markdown_table
from benchcore.hub import format_upload, list_upload, publish


def test_atomic_output_dir_replaces_on_success(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "old.txt").write_text("old")
    with atomic_output_dir(out) as tmp:
        (tmp / "new.txt").write_text("new")
        assert not (out / "new.txt").exists()  # nothing visible until done
    assert (out / "new.txt").read_text() == "new"
    assert not (out / "old.txt").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["out"]  # no temp leftovers


def test_atomic_output_dir_leaves_previous_build_on_failure(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "keep.txt").write_text("keep")
    with pytest.raises(RuntimeError):
        with atomic_output_dir(out) as tmp:
            (tmp / "half.txt").write_text("half")
            raise RuntimeError("boom")
    assert sorted(p.name for p in out.iterdir()) == ["keep.txt"]
    assert [p.name for p in tmp_path.iterdir()] == ["out"]


def test_markdown_table_formats_floats_and_nan():
    t = markdown_table(["m", "v"], [["a", 0.12345], ["b", float("nan")]], digits=2)
    assert t.splitlines()[2:] == ["| a | 0.12 |", "| b | n/a |"]


def test_publish_dry_run_lists_files_without_network(tmp_path):
    (tmp_path / "README.md").write_text("card")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "test-00000-of-00001.parquet").write_bytes(b"x" * 10)
    files = publish(tmp_path, "org/name", "v1.0.0", dry_run=True)
    assert files == [("README.md", 4), ("data/test-00000-of-00001.parquet", 10)]
    assert "tag v1.0.0" in format_upload(files, "org/name", "v1.0.0")


def test_publish_refuses_folder_without_card_and_bad_repo_id(tmp_path):
    with pytest.raises(FileNotFoundError, match="README.md"):
        list_upload(tmp_path)
    (tmp_path / "README.md").write_text("card")
    with pytest.raises(ValueError, match="ORG/NAME"):
        publish(tmp_path, "noslash", "v1", dry_run=True)
