"""Schema: category/source names, FEATURES exactly as SPEC §1, row -> capjudge Items."""
from __future__ import annotations

import pytest
from datasets import ClassLabel, Features, Image, List, Value

import diffcap_bench
from benchcore.errors import InputError
from capjudge.protocol import Item
from diffcap_bench.schema import category_name, row_items, source_name


def test_categories_in_spec_order():
    assert diffcap_bench.CATEGORIES == (
        "object", "attribute", "action_pose", "spatial_relation", "composition",
        "text_symbol", "background", "camera_viewpoint", "image_property", "expression")
    assert diffcap_bench.SOURCES == ("web", "video_frame", "advertisement", "synthetic_2d", "synthetic_3d")


def test_features_exactly_as_spec():
    expected = Features({
        "pair_id": Value("string"),
        "image_a": Image(),
        "image_b": Image(),
        "source": ClassLabel(names=list(diffcap_bench.SOURCES)),
        "differences": List({"id": Value("string"), "text": Value("string"),
                             "category": ClassLabel(names=list(diffcap_bench.CATEGORIES)),
                             "ambiguous": Value("bool")}),
    })
    assert diffcap_bench.FEATURES == expected
    from diffcap_bench.schema import FEATURES

    assert FEATURES is diffcap_bench.FEATURES


def test_version_is_a_string():
    assert isinstance(diffcap_bench.__version__, str) and diffcap_bench.__version__.count(".") == 2


def test_names_from_indices_and_names():
    assert category_name(0) == "object" and category_name(9) == "expression"
    assert category_name("text_symbol") == "text_symbol"
    assert source_name(4) == "synthetic_3d" and source_name("web") == "web"


@pytest.mark.parametrize("bad", [10, -1, "colour", True, None])
def test_bad_category_is_an_input_error_naming_the_value(bad):
    with pytest.raises(InputError, match="category"):
        category_name(bad)


def test_row_items_accepts_ints_names_and_column_batches():
    row = {"differences": [
        {"id": "a", "text": "A dog appears.", "category": 0, "ambiguous": False},
        {"id": "b", "text": "Maybe brighter.", "category": "image_property", "ambiguous": True},
    ]}
    expected = [Item("a", "A dog appears.", "object", False), Item("b", "Maybe brighter.", "image_property", True)]
    assert row_items(row) == expected
    columns = {"differences": {"id": ["a", "b"], "text": ["A dog appears.", "Maybe brighter."],
                               "category": [0, 8], "ambiguous": [False, True]}}
    assert row_items(columns) == expected
    assert row_items({"differences": []}) == []


def test_importing_the_package_does_not_import_datasets():
    import subprocess
    import sys

    code = "import sys, diffcap_bench, diffcap_bench.cli_data; print('datasets' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
