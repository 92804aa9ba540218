"""``symbalbench verify``: passes on a sound build, catches tampering, exit codes."""
import shutil

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from symbalbench.cli import main as cli_main
from symbalbench.store import sample_dir
from symbalbench.verify import verify


@pytest.fixture
def build(tmp_path):
    dst = tmp_path / "b"
    shutil.copytree(sample_dir() / "data", dst / "data")
    shutil.copy(sample_dir() / "build_info.json", dst / "build_info.json")
    return dst


def _rewrite(path, fn):
    t = pq.read_table(path)
    pq.write_table(fn(t), path)


def test_bundled_sample_verifies(build, capsys):
    report = verify(build)
    assert report.ok and len(report.rows) == 24
    assert cli_main(["verify", str(build)]) == 0
    out = capsys.readouterr().out
    assert "| natural | high |" in out and "OK: 24 datasets checked" in out


def test_shifted_span_is_caught(build, capsys):
    path = build / "data" / "natural-00000-of-00001.parquet"

    def shift(t):
        starts = t.column("span_start").to_numpy().copy()
        first = int((starts >= 0).nonzero()[0][0])
        starts[first] += 1
        return t.set_column(t.schema.get_field_index("span_start"), "span_start", pa.array(starts))
    _rewrite(path, shift)
    report = verify(build)
    assert not report.ok and any("span" in p for _, p in report.problems)
    assert cli_main(["verify", str(build)]) == 1
    assert "FAIL nat-" in capsys.readouterr().out


def test_wrong_achieved_v_and_counts_are_caught(build):
    path = build / "data" / "scenarios.parquet"

    def bump(t):
        v = pc.add(t.column("achieved_v"), 0.01)
        return t.set_column(t.schema.get_field_index("achieved_v"), "achieved_v", v)
    _rewrite(path, bump)
    problems = verify(build).problems
    assert len([p for _, p in problems if "achieved_v" in p]) == 24


def test_t_inserted_where_image_has_it_is_caught(build):
    path = build / "data" / "medical-00000-of-00001.parquet"
    scen = pq.read_table(build / "data" / "scenarios.parquet").to_pylist()
    first = next(s for s in scen if s["domain"] == "medical" and s["row_start"] == 0)

    def add_label(t):
        labels = t.column("labels").to_pylist()
        inserted = t.column("inserted").to_pylist()
        i = inserted.index(True)
        labels[i] = labels[i] + [first["text_error"]]
        return t.set_column(t.schema.get_field_index("labels"), "labels", pa.array(labels, t.schema.field("labels").type))
    _rewrite(path, add_label)
    problems = dict(verify(build).problems)
    assert "present or uncertain" in problems[first["scenario_id"]]


def test_missing_rows_are_caught(build):
    path = build / "data" / "natural-00000-of-00001.parquet"
    _rewrite(path, lambda t: t.slice(0, t.num_rows - 5))
    problems = [p for _, p in verify(build).problems]
    assert any("row range holds 195 rows" in p for p in problems)
    assert any("rows stored, scenarios cover" in p for p in problems)


def test_not_a_build_is_an_input_error(tmp_path, capsys):
    assert cli_main(["verify", str(tmp_path)]) == 2
    assert "not a SymbalBench build" in capsys.readouterr().err
