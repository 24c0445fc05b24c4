"""The models against docs/openapi.json: fails when a schema and its model drift apart.

For every model: the same property names, the same required ones, the same JSON types (nullable
included) and the same enum values as the schema it names. Needs no server.
"""

import json
import os
from pathlib import Path
from typing import Any, Dict, Set

import pytest

from mds_client.models import ALL_MODELS, Model

REPO_ROOT = Path(__file__).resolve().parents[3]
OPENAPI = Path(os.environ.get("MDS_OPENAPI", REPO_ROOT / "docs" / "openapi.json"))


@pytest.fixture(scope="module")
def document() -> Dict[str, Any]:
    return json.loads(OPENAPI.read_text())


def resolve(document: Dict[str, Any], pointer: str) -> Dict[str, Any]:
    node: Any = document
    for part in pointer.lstrip("#/").split("/"):
        key = part.replace("~1", "/").replace("~0", "~")
        node = node[int(key)] if isinstance(node, list) else node[key]
    return node


def json_types(schema: Dict[str, Any], definitions: Dict[str, Any]) -> Set[str]:
    """The JSON types a (sub)schema admits: OpenAPI 3.1 and pydantic's JSON Schema alike."""
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return json_types(definitions[name], definitions) if name in definitions else {"object"}
    if "anyOf" in schema:
        return set().union(*(json_types(option, definitions) for option in schema["anyOf"]))
    if "const" in schema:
        return {type_of(schema["const"])}
    declared = schema.get("type")
    if declared is None and "enum" in schema:
        return {type_of(value) for value in schema["enum"]}
    if declared is None:
        return set()
    return set(declared) if isinstance(declared, list) else {declared}


def enum_values(schema: Dict[str, Any], definitions: Dict[str, Any]) -> Set[Any]:
    if "$ref" in schema:
        name = schema["$ref"].split("/")[-1]
        return enum_values(definitions.get(name, {}), definitions)
    if "anyOf" in schema:
        return set().union(*(enum_values(option, definitions) for option in schema["anyOf"]))
    if "const" in schema:
        return {schema["const"]}
    return set(schema.get("enum", []))


def type_of(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    return "string"


@pytest.mark.parametrize("model", ALL_MODELS, ids=lambda model: model.__name__)
def test_model_matches_its_openapi_schema(document: Dict[str, Any], model: type) -> None:
    expected = resolve(document, model.openapi)
    actual = model.model_json_schema()
    definitions = actual.get("$defs", {})
    assert set(actual["properties"]) == set(expected["properties"]), "property names"
    # A field the API may omit is optional in the model and carries a default.
    assert set(actual.get("required", [])) == set(expected.get("required", [])), "required properties"
    for name, spec in expected["properties"].items():
        mine = actual["properties"][name]
        optional = name not in expected.get("required", [])
        # Optional properties are modelled as Optional[...] = None: null is the model's "absent".
        wanted = json_types(spec, {}) | ({"null"} if optional else set())
        got = json_types(mine, definitions)
        assert got == wanted, f"{model.__name__}.{name}: types {sorted(got)} != {sorted(wanted)}"
        wanted_enum = enum_values(spec, {})
        if wanted_enum:
            assert enum_values(mine, definitions) - {None} == wanted_enum, f"{model.__name__}.{name}: enum"


def test_every_model_is_checked() -> None:
    import mds_client.models as models

    declared = {value for value in vars(models).values() if isinstance(value, type) and issubclass(value, Model) and value is not Model}
    assert declared == set(ALL_MODELS)
