"""SymbalBench: systematic-misalignment datasets built from COCO / MIMIC-CXR (or any labelled
base), with the builder, the bundled sample and the loader.

>>> import symbalbench
>>> bench = symbalbench.load()          # the bundled sample, offline
>>> sorted(set(bench.scenarios["domain"]))
['medical', 'natural']
"""
from symbalbench.store import VARIANTS, SymbalBench, load
from symbalbench.templates import COCO_NAMES, MEDICAL_DEVICES, MEDICAL_FINDINGS

__all__ = ["load", "SymbalBench", "VARIANTS", "COCO_NAMES", "MEDICAL_FINDINGS", "MEDICAL_DEVICES"]
