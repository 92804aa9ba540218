"""Base adapters: COCO, MIMIC-CXR-JPG and a generic manifest, each returning a :class:`Base`."""
from symbalbench.base.records import BASE_SCHEMA, Base, BaseRecord, make_base, records_to_table

__all__ = ["BASE_SCHEMA", "Base", "BaseRecord", "make_base", "records_to_table"]
