"""Render dataset cards: YAML front matter (configs, dataset_info) + a markdown template."""
from __future__ import annotations

import string
from typing import Any, Mapping

import yaml

def card_template(name: str) -> str:
    """Text of ``dataset_cards/<name>.md`` (an installed package, so it works from any folder)."""
    from importlib.resources import files

    p = files("dataset_cards") / f"{name}.md"
    if not p.is_file():
        raise FileNotFoundError(f"dataset card template dataset_cards/{name}.md not found")
    return p.read_text(encoding="utf-8")


def render_card(name: str, front_matter: Mapping[str, Any], values: Mapping[str, Any]) -> str:
    """Fill ``$placeholders`` of the template and prepend YAML front matter.

    Deterministic: keys keep their given order, so the same inputs give the same bytes.
    """
    body = string.Template(card_template(name)).substitute({k: str(v) for k, v in values.items()})
    head = yaml.safe_dump(dict(front_matter), sort_keys=False, allow_unicode=True, width=1000)
    return f"---\n{head}---\n\n{body.lstrip()}"


def features_yaml(features) -> list:
    """``dataset_info.features`` as the Hub writes it, from a ``datasets.Features``."""
    from datasets import DatasetInfo

    info = DatasetInfo(features=features)
    return info._to_yaml_dict()["features"]
