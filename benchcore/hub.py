"""Publish a built folder to the Hugging Face Hub (upload + version tag), with a dry run."""
from __future__ import annotations

import re
from pathlib import Path
from typing import Callable, Optional


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


# -- the ``publish`` subcommand both CLIs share ---------------------------------------------

def register_publish(sub, refuse: Optional[Callable[[Path], Optional[str]]] = None) -> None:
    """Add ``publish OUT_DIR --repo-id ORG/NAME --revision vX.Y.Z [--dry-run] [--private]``.

    ``refuse(folder)`` may return a reason not to publish a folder (e.g. restricted data);
    ``--allow-restricted`` overrides it for users whose data agreement allows the upload.
    """
    p = sub.add_parser("publish", help="upload a built folder to the Hub and tag the version")
    p.add_argument("out_dir", metavar="OUT_DIR")
    p.add_argument("--repo-id", required=True, help="ORG/NAME of the dataset repo")
    p.add_argument("--revision", required=True, help="version tag, e.g. v1.0.0")
    p.add_argument("--private", action="store_true")
    p.add_argument("--dry-run", action="store_true", help="print what would be uploaded; contact nothing")
    if refuse is not None:
        p.add_argument("--allow-restricted", action="store_true",
                       help="upload even though the folder holds data whose licence restricts redistribution")
    p.set_defaults(func=lambda args: cmd_publish(args, refuse))


def cmd_publish(args, refuse: Optional[Callable[[Path], Optional[str]]] = None) -> int:
    from benchcore.errors import InputError

    if not re.fullmatch(r"v\d+\.\d+\.\d+", args.revision):
        raise InputError(f"--revision {args.revision!r} must look like vX.Y.Z (e.g. v1.0.0)")
    if not re.fullmatch(r"[\w.-]+/[\w.-]+", args.repo_id):
        raise InputError(f"--repo-id {args.repo_id!r} must look like ORG/NAME")
    reason = refuse(Path(args.out_dir)) if refuse is not None else None
    if reason and not getattr(args, "allow_restricted", False):
        raise InputError(f"{args.out_dir}: not publishing: {reason}")
    files = publish(args.out_dir, args.repo_id, args.revision, dry_run=args.dry_run, private=args.private)
    if args.dry_run:
        print(format_upload(files, args.repo_id, args.revision))
    else:
        print(f"uploaded {len(files)} files to datasets/{args.repo_id} and tagged {args.revision}")
    return 0
