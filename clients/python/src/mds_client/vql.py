"""A builder of Explore's VQL filters: ``issue("blur") & ground_truth("cat")`` is the API's JSON list, combined with AND.

Each function makes one element of the list the API documents for ``vql`` (docs/openapi.json); ``&`` joins them.
"""

from __future__ import annotations

import json
from typing import Any, Dict, Iterable, List, Optional, Union
from uuid import UUID

ISSUE_TYPES = ("duplicates", "outliers", "blur", "dark", "bright", "broken", "mislabel", "leakage")


class Filter:
    """VQL elements combined with AND; ``str(filter)`` and ``filter.json()`` are what the API takes."""

    def __init__(self, elements: Iterable[Dict[str, Any]]) -> None:
        self.elements: List[Dict[str, Any]] = list(elements)

    def __and__(self, other: "Filter") -> "Filter":
        return Filter([*self.elements, *other.elements])

    def json(self) -> str:
        return json.dumps(self.elements)

    def __str__(self) -> str:
        return self.json()

    def __repr__(self) -> str:
        return f"Filter({self.elements!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Filter) and other.elements == self.elements


def _values(values: Iterable[Any]) -> List[str]:
    listed = [str(value) for value in values]
    if not listed:
        raise ValueError("give at least one value")
    return listed


def issue(name: str, **details: Union[str, Iterable[str]]) -> Filter:
    """Media with the quality issue ``name`` (duplicates, outliers, blur, dark, bright, broken, mislabel, leakage);
    ``details`` narrow label-quality issues: ``issue("mislabel", suggested_label="dog")``."""
    if name not in ISSUE_TYPES:
        raise ValueError(f"issue must be one of {', '.join(ISSUE_TYPES)}")
    element: Dict[str, Any] = {"op": "issue", "value": name}
    if details:
        element["details"] = {key: [value] if isinstance(value, str) else _values(value) for key, value in details.items()}
    return Filter([{"issues": element}])


def labels(*values: str) -> Filter:
    """Media a model labelled (or propagation) with one of ``values``."""
    return Filter([{"labels": {"op": "one_of", "value": _values(values)}}])


def ground_truth(*values: str) -> Filter:
    """Media whose own class (the declared label field) is one of ``values``."""
    return Filter([{"ground_truth": {"op": "one_of", "value": _values(values)}}])


def metadata(field: str, *values: Any) -> Filter:
    """Media whose custom-metadata ``field`` is one of ``values`` (compared as text)."""
    return Filter([{"metadata": {"field": field, "op": "one_of", "value": _values(values)}}])


def tags(*tag_ids: Union[str, UUID]) -> Filter:
    """Media carrying one of the tags (their ids)."""
    return Filter([{"tags": {"op": "is", "value": _values(tag_ids)}}])


def text(query: str) -> Filter:
    """Full-text match in captions."""
    return Filter([{"text": {"op": "fts", "value": query}}])


def semantic(query: str, threshold: Optional[float] = None) -> Filter:
    """Natural-language match (captions and concepts), closer than ``threshold`` (cosine distance) when given."""
    element: Dict[str, Any] = {"op": "semantic", "value": query}
    if threshold is not None:
        element["threshold"] = threshold
    return Filter([{"text": element}])


def duplicates(at_least: float) -> Filter:
    """Media with a near-duplicate at least this similar (0-1)."""
    return Filter([{"duplicates": {"op": "duplicates", "value": at_least}}])


def uniqueness(at_least: float) -> Filter:
    """Media at least this unique (0-1)."""
    return Filter([{"uniqueness": {"op": "uniqueness", "value": at_least}}])


def vql_json(vql: Union[Filter, List[Dict[str, Any]], None]) -> Optional[str]:
    """The ``vql`` parameter's text: a Filter or the API's list of elements."""
    if vql is None:
        return None
    return vql.json() if isinstance(vql, Filter) else json.dumps(vql)


def elements(vql: Union[Filter, List[Dict[str, Any]], None]) -> List[Dict[str, Any]]:
    if vql is None:
        return []
    return vql.elements if isinstance(vql, Filter) else list(vql)
