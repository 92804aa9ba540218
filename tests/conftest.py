"""Test-wide setup: offline Hugging Face, every cache under one temp dir."""
import os
import tempfile

_CACHE_ROOT = tempfile.mkdtemp(prefix="vlbench-test-cache-")
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ["HF_EVALUATE_OFFLINE"] = "1"
os.environ["HF_HOME"] = os.path.join(_CACHE_ROOT, "hf")
os.environ["HF_DATASETS_CACHE"] = os.path.join(_CACHE_ROOT, "hf", "datasets")
os.environ["HF_MODULES_CACHE"] = os.path.join(_CACHE_ROOT, "hf", "modules")
os.environ["MPLBACKEND"] = "Agg"
os.environ["MPLCONFIGDIR"] = os.path.join(_CACHE_ROOT, "mpl")
os.environ["CAPJUDGE_CACHE_DIR"] = os.path.join(_CACHE_ROOT, "capjudge")
os.environ.setdefault("TQDM_DISABLE", "1")

import pytest  # noqa: E402

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def repo_root():
    return REPO_ROOT


@pytest.fixture
def in_repo_root(monkeypatch):
    """Run a test with the repository root as working directory (for load_dataset("diffcap_bench"))."""
    monkeypatch.chdir(REPO_ROOT)
    return REPO_ROOT
