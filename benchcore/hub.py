"""Publish a built folder to the Hugging Face Hub (upload + version tag), with a dry run."""
from __future__ import annotations

from pathlib import Path
from typing import Optional


def list_upload(folder: str | Path) -> list[tuple[str, int]]:
    """(path in repo, size in bytes) of every file that would be uploaded, sorted."""
    root = Path(folder)
    if not (root / "README.md").is_file():
        raise FileNotFoundError(f"{root} has no README.md: not a built dataset folder")
    return sorted((p.relative_to(root).as_posix(), p.stat().st_size)
                  for p in root.rglob("*") if p.is_file() and not p.name.startswith("."))


def publish(folder: str | Path, repo_id: str, revision: str, dry_run: bool = False,
            token: Optional[str] = None, private: bool = False) -> list[tuple[str, int]]:
    """Upload ``folder`` as a dataset repo and tag it ``revision`` (e.g. ``v1.0.0``).

    With ``dry_run`` nothing is contacted; the list of files is returned (and printed by CLIs).
    """
    files = list_upload(folder)
    if "/" not in repo_id:
        raise ValueError(f"repo id {repo_id!r} must look like ORG/NAME")
    if dry_run:
        return files
    from huggingface_hub import HfApi

    api = HfApi(token=token)
    api.create_repo(repo_id, repo_type="dataset", private=private, exist_ok=True)
    commit = api.upload_folder(folder_path=str(folder), repo_id=repo_id, repo_type="dataset",
                               commit_message=f"Release {revision}")
    api.create_tag(repo_id, tag=revision, repo_type="dataset", revision=getattr(commit, "oid", None))
    return files


def format_upload(files: list[tuple[str, int]], repo_id: str, revision: str) -> str:
    total = sum(s for _, s in files)
    lines = [f"would upload {len(files)} files ({total:,} bytes) to datasets/{repo_id} and tag {revision}:"]
    lines += [f"  {path}  {size:,} B" for path, size in files]
    return "\n".join(lines)
