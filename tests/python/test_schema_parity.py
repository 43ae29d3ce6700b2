"""Parity of `opgen parse-schema` with PyTorch's own schema parser and printer.

For every schema PyTorch registers and every real-world custom-op schema in
the shared corpus that PyTorch accepts, opgen must print exactly what
`str(torch._C.parse_schema(s))` prints. Each set goes through the binary in a
single subprocess call (one schema per line on stdin, one result per line on
stdout). Needs the built tool: OPGEN_BIN=/path/to/opgen pytest tests/python/test_schema_parity.py -s
"""

import os
import re
import subprocess

import pytest
import torch

from corpus import CORPUS, EDGE_CASES, qualified, read_tsv, unique_schemas

OPGEN_BIN = os.environ.get("OPGEN_BIN")
pytestmark = pytest.mark.skipif(
    not OPGEN_BIN, reason="set OPGEN_BIN to the built opgen binary to run the schema parity tests"
)

ERROR_LINE = re.compile(r"^<stdin>:(\d+):(\d+): error\[E02\d\d\]: \S.*$")


def run_opgen(schemas, *flags):
    """Feeds `schemas` to `opgen parse-schema`; returns (exit status, output lines)."""
    for s in schemas:
        # The protocol is one schema per line; the CLI skips empty lines.
        assert s and "\n" not in s, f"cannot send {s!r} on one line"
    proc = subprocess.run(
        [OPGEN_BIN, "parse-schema", *flags],
        input="\n".join(schemas) + "\n",
        capture_output=True,
        text=True,
        timeout=600,
    )
    lines = proc.stdout.split("\n")
    assert lines[-1] == "", "output must end with a newline"
    lines = lines[:-1]
    assert len(lines) == len(schemas), f"{len(schemas)} schemas in, {len(lines)} lines out\n{proc.stderr}"
    return proc.returncode, lines


def torch_str(schema):
    """What PyTorch prints for `schema`, or None if it rejects it."""
    try:
        return str(torch._C.parse_schema(schema))
    except RuntimeError:
        return None


def check_parity(label, inputs, expected, *flags):
    status, got = run_opgen(inputs, *flags)
    mismatches = [(i, g, e) for i, g, e in zip(inputs, got, expected) if g != e]
    print(f"{label}: {len(inputs) - len(mismatches)}/{len(inputs)}")
    for i, g, e in mismatches[:20]:
        print(f"  input:    {i}\n  opgen:    {g}\n  pytorch:  {e}")
    assert not mismatches, f"{label}: {len(mismatches)} schemas differ from PyTorch"
    assert status == 0


def test_registry_parity():
    schemas = sorted({str(s) for s in torch._C._jit_get_all_schemas()})
    # The registry's canonical strings are the input. The expected output is
    # PyTorch printing them again: for a handful (`Tensor(b|a)`) that is not
    # the input itself, because PyTorch prints alias sets from an unordered
    # set, and opgen follows PyTorch. TorchScript builtins use type variables
    # (`t`, and `int64_t` in cuda::), hence the flag.
    #
    # The registry grows as Python modules load (torch._dynamo adds ~45 ops).
    # A few of those use opaque types registered from Python (`PyObject`)
    # whose printed form PyTorch itself cannot parse back; they are skipped.
    pairs = [(s, torch_str(s)) for s in schemas]
    unparsable = [s for s, e in pairs if e is None]
    if unparsable:
        print(f"registry: skipping {len(unparsable)} that PyTorch cannot re-parse: {unparsable[:3]}")
    assert len(unparsable) < 10
    pairs = [(s, e) for s, e in pairs if e is not None]
    check_parity("registry", [s for s, _ in pairs], [e for _, e in pairs], "--allow-type-variables")


def corpus_schemas():
    # torch needs a namespace; opgen takes the same prefixed string.
    return list(dict.fromkeys(qualified(s) for s in unique_schemas()))


@pytest.mark.skipif(not os.path.exists(CORPUS), reason=f"no corpus at {CORPUS}")
def test_corpus_parity():
    accepted, expected = [], []
    for schema in corpus_schemas():
        printed = torch_str(schema)
        if printed is not None:
            accepted.append(schema)
            expected.append(printed)
    assert len(accepted) > 2000
    check_parity("corpus", accepted, expected)


@pytest.mark.skipif(not os.path.exists(EDGE_CASES), reason=f"no corpus at {EDGE_CASES}")
def test_invalid_edge_cases_are_rejected_with_a_column():
    rows = read_tsv(EDGE_CASES)
    # 'version_dependent' is `Tensor(!)`, which PyTorch 2.14 rejects.
    invalid = [
        r["schema"]
        for r in rows
        if r["layer"] == "parser" and r["expectation"] in ("invalid", "version_dependent")
    ]
    assert invalid
    status, lines = run_opgen(invalid)
    assert status == 1
    for line_no, (schema, line) in enumerate(zip(invalid, lines), start=1):
        m = ERROR_LINE.match(line)
        assert m, f"expected an error for {schema!r}, got {line!r}"
        assert int(m.group(1)) == line_no
        column = int(m.group(2))  # 1-based; one past the end means "at the end"
        assert 1 <= column <= len(schema) + 1, line
    print(f"invalid edge cases: {len(invalid)}/{len(invalid)} rejected")


def check_registration_form(label, schemas, *flags):
    """What opgen registers (`m.def`) must parse in PyTorch to the schema meant."""
    status, got = run_opgen(schemas, "--registration", *flags)
    assert status == 0
    failures = []
    for schema, registered in zip(schemas, got):
        try:
            parsed = torch._C.parse_schema(registered)
        except RuntimeError as e:
            failures.append((schema, registered, str(e).splitlines()[0]))
            continue
        if parsed != torch._C.parse_schema(schema):
            failures.append((schema, registered, f"parses as {parsed}"))
    print(f"{label}: {len(schemas) - len(failures)}/{len(schemas)} parse back to the same schema")
    for schema, registered, why in failures[:20]:
        print(f"  input:      {schema}\n  registered: {registered}\n  torch:      {why}")
    assert not failures, f"{label}: {len(failures)} registration strings do not parse back"


@pytest.mark.skipif(not os.path.exists(CORPUS), reason=f"no corpus at {CORPUS}")
def test_corpus_registration_form_parses_back():
    # Hundreds of corpus schemas use the `Tensor!` shorthand, which PyTorch
    # prints as `Tensor($0! -> )`, a form its parser rejects (a load-time abort).
    printed = {s: torch_str(s) for s in corpus_schemas()}
    accepted = [s for s, p in printed.items() if p is not None]
    assert sum("($0!" in printed[s] for s in accepted) > 150
    check_registration_form("corpus", accepted)


def test_registry_registration_form_parses_back():
    schemas = sorted({str(s) for s in torch._C._jit_get_all_schemas()})
    schemas = [s for s in schemas if torch_str(s) is not None]
    check_registration_form("registry", schemas, "--allow-type-variables")


def test_registration_form_of_forms_pytorch_prints_unreadably():
    # Each is PyTorch-valid, and PyTorch's own printed form of it is not.
    schemas = [
        "ns::f(Tensor! a, Tensor(b!) b, Tensor![] c, Tensor!? d) -> Tensor!",
        "ns::f(int[] a=[1, 1], int[0] b=[2, 2], int[2] c=[3, 3]) -> ()",
        'ns::f(str s="a\\015b", str t="\\303\\251", Device d="cuda:1") -> ()',
        "ns::f(Tensor(a!)?[] x, Tensor(b -> c|*) y, float f=long) -> ()",
        "ns::f(Tensor(a!)[][] x) -> ()",
        # A device index past int8 wraps: cuda:953 reads as cuda:-71, which no parser reads.
        'ns::f(Device d="cuda:953", Device? e="cuda:200") -> ()',
    ]
    for s in schemas:
        printed = torch_str(s)
        assert printed is not None
        with pytest.raises(RuntimeError):
            if torch._C.parse_schema(printed) != torch._C.parse_schema(s):
                raise RuntimeError("reads back as another schema")
    check_registration_form("unreadable when printed", schemas)


@pytest.mark.parametrize("count", [64, 65])
def test_the_argument_limit_is_pytorchs(tmp_path, count):
    """PyTorch registers at most 64 arguments (its dispatcher's bitset); opgen's
    check (E0317) draws the line at the same place, so a spec it accepts loads."""
    schema = f"wide(Tensor x, {', '.join(f'int a{i}' for i in range(count - 1))}) -> Tensor"
    lib = torch.library.Library(f"opgen_limit_{count}", "DEF")
    try:
        lib.define(schema)
        torch_accepts = True
    except RuntimeError as e:
        assert "arguments but this PyTorch build only supports" in str(e)
        torch_accepts = False
    (tmp_path / "wide.yaml").write_text(f'schema: "{schema}"\nfake: like(x)\nsamples: []\n')
    proc = subprocess.run([OPGEN_BIN, "check", tmp_path / "wide.yaml"], capture_output=True, text=True)
    assert (proc.returncode == 0) == torch_accepts == (count <= 64), proc.stderr
    if not torch_accepts:
        assert "error[E0317]" in proc.stderr


def test_pytorch_registers_arguments_named_alike_but_its_tools_refuse_them():
    """W0307's reason, held against the installed torch: the schema registers and eager calls bind by position,
    and opcheck (like Inductor's lowering) fails building a Python signature from it: opgen registers such an op
    as written and skips opcheck and compile for it. If a release takes it, those can run too."""
    lib = torch.library.Library("opgen_dup_probe", "FRAGMENT")
    lib.define("offload(Tensor a, int id, int id) -> Tensor")
    lib.impl("offload", lambda a, x, y: a + x + y, "CPU")
    op = torch.ops.opgen_dup_probe.offload.default
    assert [arg.name for arg in op._schema.arguments] == ["a", "id", "id"]
    assert torch.equal(op(torch.zeros(2), 1, 2), torch.full((2,), 3.0))
    with pytest.raises(Exception, match="duplicate parameter name: 'id'"):
        torch.library.opcheck(op, (torch.zeros(2), 1, 2))
