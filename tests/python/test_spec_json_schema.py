"""codegen/spec.schema.json, through a real validator: every spec opgen
accepts is valid, and the bad specs opgen rejects for an unknown key or a
wrong value type are invalid too. (That the schema lists exactly the loader's
keys is a unit test: tests/codegen/test_spec_schema.cpp.)"""

import json
import pathlib

import jsonschema
import pytest
import yaml

from cli_helpers import requires_opgen, run_opgen

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "codegen" / "spec.schema.json").read_text())
VALIDATOR = jsonschema.Draft202012Validator(SCHEMA)

# Every spec of the repository's trees that opgen accepts.
GOOD_SPECS = [p for tree in ("schemas", "tests/codegen/golden/specs", "tests/external_project/schemas")
              for p in sorted((ROOT / tree).glob("*.yaml"))]
KEY_AND_TYPE_CASES = sorted(
    p for p in (ROOT / "tests" / "bad_specs").iterdir() if p.name.startswith(("unknown_key", "wrong_type_"))
)


def load(path):
    return yaml.safe_load(path.read_text())


def test_the_schema_is_a_valid_json_schema():
    jsonschema.Draft202012Validator.check_schema(SCHEMA)


@pytest.mark.parametrize("path", GOOD_SPECS, ids=lambda p: p.name)
def test_accepted_specs_are_valid(path):
    errors = [e.message for e in VALIDATOR.iter_errors(load(path))]
    assert not errors, errors


@pytest.mark.parametrize("path", sorted((ROOT / "schemas").glob("*.yaml")), ids=lambda p: p.name)
def test_in_tree_specs_point_editors_at_the_schema(path):
    assert path.read_text().splitlines()[0] == "# yaml-language-server: $schema=../codegen/spec.schema.json"


@pytest.mark.parametrize("case", KEY_AND_TYPE_CASES, ids=lambda p: p.name)
def test_specs_rejected_for_keys_or_types_are_invalid(case):
    specs = sorted(case.rglob("*.yaml"))
    assert specs
    assert any(not VALIDATOR.is_valid(load(spec)) for spec in specs), f"{case.name}: the JSON Schema accepts it"


@requires_opgen
def test_the_specs_opgen_writes_are_valid(tmp_path):
    """`opgen init`'s example and an `opgen new` scaffold, as a user gets them."""
    assert run_opgen("init", tmp_path / "proj").returncode == 0
    assert run_opgen("new", "proj::twice", "--schema", "(Tensor x, int[] dims, float? s=None) -> (Tensor, Tensor)",
                     "--schemas-dir", tmp_path / "proj" / "schemas", "--kernels-dir", tmp_path / "k").returncode == 0
    specs = sorted((tmp_path / "proj" / "schemas").glob("*.yaml"))
    assert [p.name for p in specs] == ["scale.yaml", "twice.yaml"]
    for path in specs:
        errors = [e.message for e in VALIDATOR.iter_errors(load(path))]
        assert not errors, (path.name, errors)
