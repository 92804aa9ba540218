"""diffcap-bench publish: dry run lists the upload; a real run uploads and tags (Hub faked)."""
from __future__ import annotations

import pytest

from diffcap_bench.builder import DiffCapBuilder
from diffcap_bench.cli import main as cli_main
from diffcap_bench.synth import generate


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    root = tmp_path_factory.mktemp("pub")
    generate(root / "raw", n=3, seed=2, show_progress=False)
    DiffCapBuilder(show_progress=False).build(root / "raw", root / "out")
    return root / "out"


def test_dry_run_lists_files_sizes_and_tag(built, capsys):
    assert cli_main(["publish", str(built), "--repo-id", "my-org/diffcap-bench", "--revision", "v1.0.0", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "would upload 2 files" in out and "datasets/my-org/diffcap-bench" in out and "tag v1.0.0" in out
    assert "README.md" in out and "data/test-00000-of-00001.parquet" in out


@pytest.mark.parametrize("args, message", [
    (["--repo-id", "my-org/x", "--revision", "1.0"], "must look like vX.Y.Z"),
    (["--repo-id", "noslash", "--revision", "v1.0.0"], "must look like ORG/NAME"),
])
def test_bad_repo_or_revision_exits_2(built, capsys, args, message):
    assert cli_main(["publish", str(built), *args, "--dry-run"]) == 2
    assert message in capsys.readouterr().err


def test_folder_without_card_exits_2(tmp_path, capsys):
    assert cli_main(["publish", str(tmp_path), "--repo-id", "o/n", "--revision", "v1.0.0", "--dry-run"]) == 2
    assert "no README.md" in capsys.readouterr().err


def test_real_publish_uploads_folder_and_tags(built, monkeypatch, capsys):
    import huggingface_hub

    calls = []

    class FakeApi:
        def __init__(self, token=None):
            pass

        def create_repo(self, repo_id, **kw):
            calls.append(("create_repo", repo_id, kw["repo_type"]))

        def upload_folder(self, folder_path, repo_id, repo_type, commit_message):
            calls.append(("upload_folder", repo_id, repo_type, commit_message))
            return type("Commit", (), {"oid": "abc123"})()

        def create_tag(self, repo_id, tag, repo_type, revision):
            calls.append(("create_tag", repo_id, tag, revision))

    monkeypatch.setattr(huggingface_hub, "HfApi", FakeApi)
    assert cli_main(["publish", str(built), "--repo-id", "o/n", "--revision", "v1.2.3"]) == 0
    assert calls == [("create_repo", "o/n", "dataset"), ("upload_folder", "o/n", "dataset", "Release v1.2.3"),
                     ("create_tag", "o/n", "v1.2.3", "abc123")]
    assert "tagged v1.2.3" in capsys.readouterr().out
