"""The README opens with the two commands people copy; CI must run the same test command."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _first_bash_blocks(n):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(r"```bash\n(.*?)\n```", text, flags=re.S)[:n]


def test_readme_opens_with_main_job_and_test_commands():
    main_job, tests = _first_bash_blocks(2)
    assert main_job.startswith("pip install") and "diffcap-bench demo" in main_job and "symbalbench demo" in main_job
    assert "pytest" in tests and ".[test]" in tests


def test_ci_runs_the_readme_test_command():
    _, tests = _first_bash_blocks(2)
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert tests.strip() in ci.splitlines()


def test_readme_python_examples_run_and_say_what_they_claim(in_repo_root, capsys):
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)\n```", text, flags=re.S)
    assert len(blocks) == 2
    loading = {}
    exec(compile(blocks[0], "README.md (loading)", "exec"), loading)
    assert len(loading["ds"]) == 64 and len(loading["scen"]) == 24
    assert loading["one"].column_names[:3] == ["scenario_id", "record_id", "image"]
    scoring = {}
    exec(compile(blocks[1], "README.md (scoring)", "exec"), scoring)
    s = scoring["scores"]
    assert (s["recall"], s["precision_star"], s["hallucination_rate"]) == (1.0, 0.5, 0.5)
