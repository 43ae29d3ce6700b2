"""Flattened names never collide (issue 35, class 7): the op opgen registers
takes each host object's fields and each tensor subclass's inner tensors
and metadata as `<arg>_<field>` (a field's leading underscores dropped, and
`<arg>_given` for an optional object), and the binding binds them beside
the declared arguments. `hcol(Tensor x, A q, B q_t)` with a field `t` on A
once bound q.t over the argument q_t: a silent wrong result.

A property test: seeded random classes, subclasses and argument names from
a small alphabet built to collide, checked against an independent model of
the flattening. Where the model sees two equal names (of any origins: a
declared argument, a field, `_given`, within one class), `opgen check`
refuses the spec; where it sees none, the spec is accepted and the
registered schema is exactly the model's flat argument list, and the
generated module and stub parse as Python."""

import ast
import random
import re

import pytest

from cli_helpers import requires_opgen, run_opgen

pytestmark = requires_opgen

FIELDS = ["t", "_t", "x", "t_x", "given", "_x_given", "data"]
ARGS = ["q", "q_t", "q_x", "q_t_x", "q_given", "r", "r_data", "q_data", "t"]
CASES = 240


def flat(name: str, field: str) -> str:
    return f"{name}_{field.lstrip('_')}"


def draw(rng: random.Random):
    """(types file, schema, expected flat argument names or None where a collision is expected)."""
    classes = {}
    types = ["host_objects:"]
    for cls in ("A", "B"):
        fields = rng.sample(FIELDS, rng.randint(1, 2))
        classes[cls] = ("host", fields)
        types.append(f"  {cls}:\n    class: mylib.{cls}\n    fields: {{{', '.join(f + ': float' for f in fields)}}}")
    inner = rng.sample(FIELDS, rng.randint(1, 2))
    meta = rng.sample([f for f in FIELDS if f not in inner], 1)
    classes["S"] = ("subclass", inner + meta)
    types.append(f"tensor_subclasses:\n  S:\n    class: mylib.S\n    inner: [{', '.join(inner)}]\n"
                 f"    meta: {{{meta[0]}: ScalarType}}")

    names = rng.sample(ARGS, rng.randint(1, 3))
    declared = [("Tensor", "x", False)]
    for name in names:
        kind = rng.choice(["A", "B", "S", "int"])
        optional = kind in ("A", "B") and rng.random() < 0.3
        declared.append((kind, name, optional))
    schema = "hcol(" + ", ".join(
        f"{kind}{'?' if optional else ''} {name}{'=None' if optional else ''}" for kind, name, optional in declared
    ) + ") -> Tensor"

    expected = []
    every = [name for _, name, _ in declared]
    # Two fields of one class with one flat name: the types file is refused, used or not.
    collision = any(len({f.lstrip("_") for f in fields}) < len(fields) for _, fields in classes.values())
    for kind, name, optional in declared:
        if kind not in classes:
            expected.append(name)
            continue
        fields = classes[kind][1]
        if optional:
            expected.append(f"{name}_given")
            every.append(f"{name}_given")
        for f in fields:
            expected.append(flat(name, f))
            every.append(flat(name, f))
    if len(set(every)) < len(every):
        collision = True
    return "\n".join(types) + "\n", schema, None if collision else expected


def registered_arguments(out):
    (cpp,) = out.glob("csrc/hcol.cpp")
    (schema,) = re.findall(r'm\.def\("hcol\((.*)\) -> Tensor"\);', cpp.read_text())
    return [re.split(r"[ =]", part.strip())[1] for part in schema.split(", ")]


@pytest.mark.parametrize("seed", range(CASES))
def test_flattened_names_are_distinct_or_refused(tmp_path, seed):
    types, schema, expected = draw(random.Random(seed))
    specs = tmp_path / "specs"
    specs.mkdir()
    (specs / "_types.yaml").write_text(types)
    (specs / "hcol.yaml").write_text(f'schema: "{schema}"\nfake: like(x)\nsamples: []\n')
    proc = run_opgen("generate", "--namespace", "ns", "-o", tmp_path / "out", "specs", cwd=tmp_path)
    context = f"{schema}\n{types}\n{proc.stderr}"
    if expected is None:
        assert proc.returncode == 1, context
        assert re.search(r"flattens into '\w+', which the schema or another flattened field names already|"
                         r"one flat name|same flat name", proc.stderr), context
        assert not (tmp_path / "out").exists()
    else:
        assert proc.returncode == 0, context
        assert registered_arguments(tmp_path / "out") == expected, context
        # The module and its stub are Python, whatever the order of defaults (`A? q=None, B r`).
        for module in ("_ops.py", "_ops.pyi"):
            ast.parse((tmp_path / "out" / "python" / "ns" / module).read_text())


def test_the_draws_cover_both_outcomes():
    """The alphabet is built to collide often, and not always."""
    outcomes = [draw(random.Random(seed))[2] is None for seed in range(CASES)]
    assert 0.2 < sum(outcomes) / CASES < 0.8, sum(outcomes)
