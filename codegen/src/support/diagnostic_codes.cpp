#include "support/diagnostic_codes.h"

#include <algorithm>
#include <stdexcept>

namespace opgen {
namespace {

// The table: one entry per Code, in the enum's order (a unit test holds it to
// that), each id assigned once and for ever. See diagnostic_codes.h.
const std::vector<CodeInfo> kCodes = {
    // -----------------------------------------------------------------------
    // E01xx: YAML and the shape of a spec file
    // -----------------------------------------------------------------------
    {Code::InvalidYaml, "E0101", "invalid YAML",
     R"md(The file is not valid YAML, so opgen cannot read it at all. The message is
the YAML parser's and the position is where it gave up, which may be a line
or two after the real mistake: look for a wrong indentation, an unclosed
bracket or quote, or a `:` inside an unquoted value (quote schema strings,
which contain `->`).)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - like(x)
 doc: indented by one space
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - like(x)
doc: indented like the other keys
)md"},

    {Code::SeveralYamlDocuments, "E0102", "more than one YAML document in a spec file",
     R"md(A spec file holds exactly one YAML document: one op. A `---` line starts a
second document, which a YAML reader would otherwise drop without a word.
Put each op in a file of its own, named after the op.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
---
schema: "bar(Tensor x) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
# bar.yaml
schema: "bar(Tensor x) -> Tensor"
fake: like(x)
)md"},

    {Code::SpecNotMapping, "E0103", "a spec is not a YAML mapping",
     R"md(A spec file is a YAML mapping from keys (`schema`, `fake`, ...) to values.
An empty file, a bare string or a list is not a spec.)md",
     R"md(# foo.yaml
- "foo(Tensor x) -> Tensor"
- like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
)md"},

    {Code::MissingSchemaKey, "E0104", "a spec without a 'schema'",
     R"md(Every spec needs a `schema`: the op's PyTorch function schema. Everything
else in the spec is checked against it.)md",
     R"md(# foo.yaml
doc: Scales x.
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
doc: Scales x.
fake: like(x)
)md"},

    {Code::UnknownKey, "E0105", "unknown key",
     R"md(A mapping in a spec has a key opgen does not know: at the top level, in
`checks`, in `autograd`, in `fake` or in a sample. An unknown key is an
error rather than ignored, because it is almost always a misspelling of a
key whose absence would silently change the op. The notes suggest the
closest key and list the allowed ones; docs/spec.md documents them all.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fakes:
  - like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - like(x)
)md"},

    {Code::DuplicateKey, "E0106", "duplicate key",
     R"md(A key appears twice in the same mapping. YAML readers disagree on which
value wins, so opgen accepts neither: remove or merge one of them. In
`checks`, give each argument one entry holding all its checks.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
checks:
  x: {dtype: [float32]}
  x: {dim: 2}
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
checks:
  x: {dtype: [float32], dim: 2}
fake: like(x)
)md"},

    {Code::NonStringKey, "E0107", "a key is not a string",
     R"md(The keys of a spec's mappings are names (spec keys, argument names), so each
must be a plain YAML string, not a list or a mapping.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor y) -> Tensor"
checks:
  [x, y]: {dim: 2}
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor y) -> Tensor"
checks:
  x: {dim: 2}
  y: {dim: 2}
fake: like(x)
)md"},

    {Code::WrongValueType, "E0108", "a value has the wrong type",
     R"md(A key's value is not of the type the key takes: `schema`, `doc` and `abi`
take a string; `dispatch`, `tags`, `mutates`, `symm_mem` and `grads` a list
of strings (or one string); `require` and `fake` a list of expressions (or
one); `checks`, `let` and `autograd` a mapping; `dim` an integer;
`contiguous` true or false. docs/spec.md lists every key. A common cause is
YAML reading an unquoted value as something else: quote strings that start
with `[`, `{` or `*`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
dispatch: {CPU: true}
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
dispatch: [CPU]
fake: like(x)
)md"},

    {Code::UnknownAbi, "E0109", "unknown ABI",
     R"md(`abi` is `stable` (the default: LibTorch's stable ABI, one build for several
PyTorch versions) or `unstable` (`TORCH_LIBRARY` with ATen types, for
types or features the stable ABI does not carry). See docs/abi.md.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: fast
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
fake: like(x)
)md"},

    {Code::TextNotCarriable, "E0110", "text the generated code cannot carry",
     R"md(The `doc` text and the spec's path are copied into the generated C++ (as
comments) and Python (as docstrings and comments). They must be valid UTF-8
without control characters other than tabs (and newlines, in `doc`), and no
line may end in a backslash, which C++ reads as a line continuation: the
comment would swallow the declaration after it. Without this rule such a
spec would yield code that does not compile or a module that does not
parse.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
doc: "Scales x. See C:\\"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
doc: "Scales x. See C:\\ (the drive)"
fake: like(x)
)md"},

    // -----------------------------------------------------------------------
    // E02xx: schema syntax
    // -----------------------------------------------------------------------
    {Code::SchemaSyntax, "E0201", "invalid schema syntax",
     R"md(The `schema` string does not parse as a PyTorch function schema:
`name(Type arg, Type arg=default, *, Type kwarg) -> ReturnType`. opgen's
parser accepts exactly what `torch._C.parse_schema` accepts, and the
message says what it expected at the column it points at. Common slips: a
missing `->` or return type (write `-> ()` for none), an alias annotation
written without parentheses (`Tensor(a!)`, not `Tensor a!`), an unclosed
parenthesis, and a schema left unquoted in YAML.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
)md"},

    {Code::SchemaUnknownType, "E0202", "unknown type in a schema",
     R"md(A schema names a type that PyTorch's schema language does not have. Schema
types are PyTorch's, not C++'s: `int` is a 64-bit integer (`int64_t` in
C++), `float` a double, `Tensor[]` a list of tensors, `T?` an optional `T`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, double alpha) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, float alpha) -> Tensor"
fake: like(x)
)md"},

    {Code::SchemaBadDefault, "E0203", "invalid default value in a schema",
     R"md(A default value does not fit its argument. Defaults are literals of the
argument's type, written as PyTorch writes them: `1`, `-1.5`, `True`,
`"mean"`, `[0, 1]`, or `None` for an optional argument. Names of
variables or expressions are not defaults.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int n=two) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int n=2) -> Tensor"
fake: like(x)
)md"},

    // -----------------------------------------------------------------------
    // E03xx: op names, arguments, types and the ABI
    // -----------------------------------------------------------------------
    {Code::SchemaWithoutName, "E0301", "the schema has no op name",
     R"md(The schema must name the op: `foo(Tensor x) -> Tensor`, not
`(Tensor x) -> Tensor`. The name is the one the op is registered and called
under (`torch.ops.<namespace>.foo`) and must equal the file's name.)md",
     R"md(# foo.yaml
schema: "(Tensor x) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
)md"},

    {Code::ReservedOpName, "E0302", "the op's name is reserved",
     R"md(The op's name and overload name become names in the generated Python module
(`foo = torch.ops.opgen.foo.default`) and in the generated C++, so they
cannot be Python keywords, nor `torch`, which the module imports. Nor can
they be names C++ reserves to the implementation (`__` anywhere, or `_` and
an uppercase letter, as every `__dunder__`), or a macro that GNU C++, the C
library, PyTorch or CUDA defines (`errno`, `linux`, `EOF`, `stdin`, ...: the
preprocessor would replace the name and the generated C++ would not
compile; `scripts/name_tables.py` lists them from the compilers themselves).
No name may be longer than 100 characters: names become file names. An op
cannot be named `_types`: its spec would be `_types.yaml`, the library's
types file (`opgen new` refuses it, `opgen import` leaves it out).)md",
     R"md(# lambda.yaml
schema: "lambda(Tensor x) -> Tensor"
fake: like(x)
)md",
     R"md(# lambda_.yaml
schema: "lambda_(Tensor x) -> Tensor"
fake: like(x)
)md"},

    {Code::NamespaceMismatch, "E0303", "the schema's namespace differs from the library's",
     R"md(The library's namespace (`--namespace`, or the CMake function's `NAMESPACE`)
is the op's namespace. A schema may leave it out, and usually should; one
it names must be the library's.)md",
     R"md(# foo.yaml
schema: "mylib::foo(Tensor x) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
)md"},

    {Code::FileNameMismatch, "E0304", "the op's name differs from its file's name",
     R"md(One op per file, and the file is named after the op: `foo` lives in
`foo.yaml`, the overload `foo.Tensor` in `foo.Tensor.yaml`. The generated
files and kernels are named after the op, so a reader can always find an
op's spec from its name and back.)md",
     R"md(# bar.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
)md"},

    {Code::VariadicSchema, "E0305", "a variadic schema",
     R"md(`...` in a schema (any number of arguments or returns) is for PyTorch's own
builtins; custom ops cannot be registered with it. Take a list instead:
`Tensor[] xs`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, ...) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor[] others) -> Tensor"
fake: like(x)
)md"},

    {Code::DuplicateArgument, "E0306", "duplicate argument name",
     R"md(Two arguments of the schema have the same name. Arguments are passed and
bound by name (in Python, in the fake, in `checks` and `autograd`), so each
name must be unique. PyTorch's parser registers such a schema (DeepSpeed's
`offload_tensor(Tensor a, int id, int id)`), but PyTorch's own tools do not
take it: `opcheck` and Inductor's lowering build a Python signature from the
schema and fail with "duplicate parameter name" (checked against the
installed torch by tests/python/test_schema_parity.py), so an op with one
could not pass its generated suite or compile.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor x) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor y) -> Tensor"
fake: like(x)
)md"},

    {Code::ReservedArgumentName, "E0307", "the argument's name is reserved",
     R"md(Argument names become parameter names in the generated C++ and Python, so
they cannot be C++ or Python keywords (`double`, `lambda`, `class`, ...),
names the generated code itself uses (`stack`, `ctx`, `kernel`, `torch`,
...), or start with `opgen_`. Nor can they be names C++ reserves to the
implementation (`__n`, `_N`) or a macro of GNU C++, the C library, PyTorch
or CUDA (`EOF`, `stdin`, `errno`, `linux`, ...), which the preprocessor
would replace.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, float lambda) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, float lambda_) -> Tensor"
fake: like(x)
)md"},

    {Code::UnsupportedType, "E0308", "a type opgen does not support",
     R"md(The schema uses a type opgen has no C++ or Python mapping for, such as
`Dict(str, Tensor)`, tuples as arguments or nested lists but `int[][]` and `Tensor[][]` (written
to in place, `Tensor(a!)[][]`, it is refused: PyTorch drops the alias set inside a nested list). [Types](types.md) lists the
supported types per ABI (`opgen types` prints the same table); pass the data
as tensors or lists instead.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Dict(str, Tensor) extra) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor[] extra) -> Tensor"
fake: like(x)
)md"},

    {Code::UnsupportedReturnType, "E0309", "a return type ops cannot have",
     R"md(The op returns a type its ABI cannot return. On the unstable ABI, ops return
`Tensor`, `Tensor?`, `Tensor[]`, `int`, `SymInt`, `int[]`, `float`, `bool`
or `str` values (several as a tuple, `-> (Tensor, Tensor?)`); a `Scalar`,
say, cannot be returned: return a 0-dim tensor instead. On the stable ABI an
op returns any type it carries. [Types](types.md) has the table.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Scalar"
abi: unstable
fake:
  python: my_pkg.fakes:foo_fake
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
fake:
  python: my_pkg.fakes:foo_fake
)md"},

    {Code::TypeNotInStableAbi, "E0310", "a type the stable ABI cannot carry",
     R"md(An op on the stable ABI (the default) can only take types the stable ABI
carries: `Scalar`, for example, it does not (it has no conversion for it).
Use `float` for `Scalar` where that is enough, or give the op `abi: unstable`.
[Types](types.md) has the full table, per ABI and version.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Scalar alpha) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Scalar alpha) -> Tensor"
abi: unstable
fake: like(x)
)md"},

    {Code::StableAbiTooOld, "E0311", "a type needs a newer stable ABI than the target",
     R"md(The stable ABI gained some types in later PyTorch versions (`Generator?` in
2.13), and the library is built for the oldest PyTorch it must load in, its
target version (`--torch-target-version`, `TORCH_TARGET_VERSION` in CMake;
2.10 by default). Raise the target, or give the op `abi: unstable`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Generator? generator=None) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Generator? generator=None) -> Tensor"
abi: unstable
fake: like(x)
)md"},

    {Code::OpDefinedTwice, "E0312", "an op is defined twice",
     R"md(Two spec files define the same op (the same name and overload), for example
copies in two directories given to opgen. An op has one spec; remove or
rename the other.)md",
     R"md(# a/foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
# b/foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
)md",
     R"md(# a/foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
)md"},

    {Code::UnknownArgument, "E0313", "names an argument the op does not have",
     R"md(A spec key that refers to arguments by name (`mutates`, `symm_mem`,
`checks` and its `same_dtype` / `same_device`, autograd's `grads`, a
sample's `args`) names one the schema does not have. The note suggests the
closest argument name.)md",
     R"md(# foo.yaml
schema: "foo(Tensor input, Tensor weight) -> Tensor"
checks:
  wieght: {same_dtype: input}
fake: like(input)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor input, Tensor weight) -> Tensor"
checks:
  weight: {same_dtype: input}
fake: like(input)
)md"},

    {Code::ArgumentNotATensor, "E0314", "names an argument that is not a tensor",
     R"md(Some spec keys only make sense for tensor arguments: `checks` and its
`same_dtype` / `same_device` (`Tensor` or `Tensor?`), `mutates` and
`symm_mem` (`Tensor`, `Tensor?`, `Tensor[]`), and autograd's `grads`
(`Tensor` or `Tensor?`: only tensors get gradients). Plain values such as
`int` or `float` are checked in `require` instead.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int n) -> Tensor"
checks:
  n: {dim: 1}
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int n) -> Tensor"
require:
  - n >= 1
fake: like(x)
)md"},

    {Code::GeneratedNameCollision, "E0315", "two ops bind the same generated name",
     R"md(Each op binds names in the generated code: its Python binding (the op name
with `.` as `_`: `foo.Tensor` binds `foo_Tensor`), its fake (`_foo_fake`),
its autograd functions (`_foo_backward`, `_foo_setup_context`) and its
kernel functions (`foo_cpu`, ...). Two ops that would bind the same name, or
an op whose binding is one of the module's own names (`torch`, `os`,
`__all__`, any `__dunder__`), would shadow each other or break the module.
Nor may two op names differ only in case (`foo`, `Foo`): their spec,
kernel and generated files would be one file where file systems ignore
case (macOS, Windows). The error names both specs; rename one of the ops.)md",
     R"md(# foo.Tensor.yaml
schema: "foo.Tensor(Tensor x) -> Tensor"
fake: like(x)
# foo_Tensor.yaml
schema: "foo_Tensor(Tensor x) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.Tensor.yaml
schema: "foo.Tensor(Tensor x) -> Tensor"
fake: like(x)
# foo_tensor.yaml
schema: "foo_tensor(Tensor x) -> Tensor"
fake: like(x)
)md"},

    {Code::ArgumentListedTwice, "E0316", "names an argument twice",
     R"md(The spec keys that list arguments, `mutates`, `symm_mem` and `carry`,
name each argument once. A second mention changes nothing in the generated
code, so it is almost always another name mistyped or a list merged by
hand.)md",
     R"md(# foo_.yaml
schema: "foo_(Tensor(a!) x, Tensor(b!) y) -> ()"
mutates: [x, y, x]
)md",
     R"md(# foo_.yaml
schema: "foo_(Tensor(a!) x, Tensor(b!) y) -> ()"
mutates: [x, y]
)md"},

    {Code::TooManyArguments, "E0317", "more arguments than PyTorch can register",
     R"md(PyTorch's dispatcher records which arguments dispatch in a 64-bit set, and
refuses a schema of more than 64 arguments when the library registers it
(`DispatchKeyExtractor::makeBitsetForDispatchArgs`): the library would
fail to load. The count is the registered schema's: each host object's or
tensor subclass's fields count one each (and an optional object's
`<arg>_given`). Pass related values together, as a tensor or a list
(`int[]`), or as fewer host-object fields.)md",
     R"md(# many.yaml
schema: "many(Tensor x, int a0, int a1, int a2, int a3, int a4, int a5, int a6, int a7, int a8, int a9, int a10, int a11, int a12, int a13, int a14, int a15, int a16, int a17, int a18, int a19, int a20, int a21, int a22, int a23, int a24, int a25, int a26, int a27, int a28, int a29, int a30, int a31, int a32, int a33, int a34, int a35, int a36, int a37, int a38, int a39, int a40, int a41, int a42, int a43, int a44, int a45, int a46, int a47, int a48, int a49, int a50, int a51, int a52, int a53, int a54, int a55, int a56, int a57, int a58, int a59, int a60, int a61, int a62, int a63) -> Tensor"
fake: like(x)
)md",
     R"md(# many.yaml
schema: "many(Tensor x, int[] a) -> Tensor"
fake: like(x)
)md"},

    // -----------------------------------------------------------------------
    // E04xx: mutation and aliasing
    // -----------------------------------------------------------------------
    {Code::AliasWithoutWrite, "E0401", "an alias annotation without '!'",
     R"md(`Tensor(a)` (without `!`) says the op returns a view of the argument.
Custom ops cannot return views of their inputs: PyTorch's functionalization
and autograd cannot see through them. An op may mutate an input
(`Tensor(a!)`), or return a new tensor.)md",
     R"md(# foo.yaml
schema: "foo(Tensor(a) x) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
)md"},

    {Code::MutationNotListed, "E0403", "a mutated argument is missing from 'mutates'",
     R"md(When a spec has `mutates`, it lists every argument the op writes to, and the
schema's `(a!)` annotations must agree with it. (Without `mutates`, the
schema's annotations alone decide; with it, opgen adds the annotations the
schema leaves out.) Add the argument to `mutates`, or drop the `!`.)md",
     R"md(# foo_.yaml
schema: "foo_(Tensor(a!) x, Tensor(b!) y) -> ()"
mutates: [y]
)md",
     R"md(# foo_.yaml
schema: "foo_(Tensor(a!) x, Tensor(b!) y) -> ()"
mutates: [x, y]
)md"},

    {Code::ReturnsAlias, "E0404", "the op returns a view of an input",
     R"md(A result may alias an input only when the op writes that input: the out=
convention (`foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)`), the
in-place one (`foo_(Tensor(a!) self) -> Tensor(a!)`, tagged `inplace`, see
E0405), or any other mutated argument (W0401). A result that aliases an
input the op does not write (`Tensor(a)`, a view) is not supported:
PyTorch's custom ops cannot return views, and `torch.compile` and autograd
would assume the result owns its memory. Return a new tensor, or nothing
(`-> ()`) when the caller already holds the tensor.)md",
     R"md(# foo_.yaml
schema: "foo_(Tensor(a!) x) -> Tensor(a)"
samples: []
)md",
     R"md(# foo_.yaml
schema: "foo_(Tensor(a!) x) -> ()"
samples: []
)md"},

    {Code::BadInplaceOp, "E0405", "an 'inplace' op that does not mutate and return its first argument",
     R"md(The `inplace` tag promises PyTorch's in-place convention, which
`torch.compile` relies on: the op mutates exactly its first argument and
returns it, `foo_(Tensor(a!) self, ...) -> Tensor(a!)`, with the same alias
set on both.)md",
     R"md(# foo_.yaml
schema: "foo_(Tensor(a!) x) -> Tensor"
abi: unstable
tags: [inplace]
fake: like(x)
)md",
     R"md(# foo_.yaml
schema: "foo_(Tensor(a!) x) -> Tensor(a!)"
abi: unstable
tags: [inplace]
)md"},

    // -----------------------------------------------------------------------
    // E05xx: the rule language, let, fake and flops rules
    // -----------------------------------------------------------------------
    {Code::RuleSyntax, "E0501", "a syntax error in a rule",
     R"md(A `fake`, `let` or `require` rule does not parse. Rules are Python
expressions, restricted (docs/fake-rules.md has the grammar): `//` and
`ceil_div(a, b)` instead of `/`, `and`/`or`/`not` instead of `&&`/`||`/`!`,
lists instead of tuples for shapes, no chained comparisons. The message
points at the column inside the rule, and the note often gives the
spelling to use.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([x.size(0) / 2])
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([x.size(0) // 2])
)md"},

    {Code::UnknownName, "E0502", "unknown name in a rule",
     R"md(A rule uses a name that is none of: a `let` binding, an argument of the op,
a dtype (`float32`, `bfloat16`, ... by their torch names, without
`torch.`), a memory format (`contiguous_format`, `channels_last`, ...). The
note suggests the closest name.)md",
     R"md(# foo.yaml
schema: "foo(Tensor input) -> Tensor"
fake:
  - empty([inpt.size(0)], dtype=half)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor input) -> Tensor"
fake:
  - empty([input.size(0)], dtype=float16)
)md"},

    {Code::UnknownFunction, "E0503", "unknown or misused function, method or attribute",
     R"md(Rules call only the builtins of the rule language (`like`, `empty`,
`empty_strided`, `like_each`, `dynamic`, `ceil_div`, `min`, `max`, `len`,
...) and the tensor members `size()`, `stride()`, `dim()`, `numel()`,
`shape`, `dtype` and `ndim`: docs/fake-rules.md lists them all. Methods are
called (`x.dim()`), attributes are not (`x.dtype`). A fake that needs real
torch operations is written in Python: `fake: {python: module:function}`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([x.size(0), x.size(1)], dtype=x.dtype())
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([x.size(0), x.size(1)], dtype=x.dtype)
)md"},

    {Code::BadCallArguments, "E0504", "wrong arguments to a builtin or method",
     R"md(A call passes the wrong number of positional arguments, or a keyword
argument the function does not take. `empty()` and `empty_strided()` take
their dtype and device from the first Tensor or Tensor[] argument unless
given `dtype=` and `device=` (a tensor whose device the output takes). An op
without such an argument has no device a rule can name: its fake is written
in Python (`fake: {python: module:function}`), and its kernel is
`CompositeExplicitAutograd` (E0813).)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([ceil_div(x.size(0))], dtyp=int64)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([ceil_div(x.size(0), 2)], dtype=int64)
)md"},

    {Code::DynamicBounds, "E0505", "dynamic() bounds that are not integer literals",
     R"md(`dynamic(min=..., max=...)` makes a data-dependent size (the length of
`nonzero()`'s result, say) through `new_dynamic_size()`, which needs bounds
known when the op is traced. Sizes such as `x.size(0)` are symbolic under
dynamic shapes, so the bounds are integer literals, with `max` not below
`min`. Leave `max` out when there is no fixed bound.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([dynamic(min=0, max=x.size(0))], dtype=int64)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([dynamic(min=0)], dtype=int64)
)md"},

    {Code::RuleKindMismatch, "E0506", "a value of the wrong kind in a rule",
     R"md(Every part of a rule has a kind (`Int`, `Bool`, `Tensor`, `Shape`, `DType`,
...; docs/fake-rules.md has the table), and each operator and builtin
takes certain kinds: a shape element is an `Int` (`x.size(0)`, not `x`),
comparisons need comparable sides, both branches of `a if c else b` have
the same kind, `is` only tests for `None`. The note usually shows how to
get the kind wanted.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([x, 4])
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([x.size(0), 4])
)md"},

    {Code::OptionalMayBeNone, "E0507", "an optional value used where it may be None",
     R"md(A `Tensor?` or `ScalarType?` argument may be `None`, so a rule may only use
it where a guard proves it is not: `scale.size(0) if scale is not None
else 0`, `scale is None or scale.size(0) == n`. An optional dtype takes a
fallback with `or`: `out_dtype or x.dtype`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor? scale=None) -> Tensor"
fake:
  - empty([x.size(0), scale.size(0)])
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor? scale=None) -> Tensor"
fake:
  - empty([x.size(0), scale.size(0) if scale is not None else 1])
)md"},

    {Code::UnusableArgumentType, "E0508", "an argument whose type rules cannot use",
     R"md(Rules can read arguments of the types in docs/fake-rules.md ("Schema argument
types"): tensors, tensor lists, `int`, `SymInt`, `float`, `bool`, `str`,
`int[]`, `ScalarType` and `MemoryFormat`. Others (`int?`, `float?`,
`Scalar`, `Tensor?[]`, ...) cannot appear in a rule; write the fake in
Python (`fake: {python: module:function}`) if it needs them.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int? n=None) -> Tensor"
fake:
  - empty([n])
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int n) -> Tensor"
fake:
  - empty([n])
)md"},

    {Code::ShadowedBuiltin, "E0509", "a builtin hidden by an argument of the same name",
     R"md(Some builtins render as Python functions (`len(xs)` is Python's `len`);
an argument or `let` binding of that name would shadow it inside the
generated fake. Rename the argument.)md",
     R"md(# foo.yaml
schema: "foo(Tensor[] xs, int len) -> Tensor"
fake:
  - empty([len(xs), len])
)md",
     R"md(# foo.yaml
schema: "foo(Tensor[] xs, int length) -> Tensor"
fake:
  - empty([len(xs), length])
)md"},

    {Code::DivisionByZero, "E0510", "division or modulo by zero",
     R"md(A rule divides (`//`) or takes a remainder (`%`) by the literal `0`, which
would fail every time the fake or check runs.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([x.size(0) // 0])
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([x.size(0) // 2])
)md"},

    {Code::FakeRuleNotOutput, "E0511", "a fake rule that does not make an output",
     R"md(Each `fake` rule describes one output: it must make one, with `like(x)`
(shaped like `x`), `empty([...])`, `empty_strided(...)`, or `like_each(xs)`
for a `Tensor[]` output. A shape alone is not an output.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - x.size(0)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  - empty([x.size(0)])
)md"},

    {Code::FakeRuleCount, "E0512", "the number of fake rules differs from the outputs",
     R"md(A spec gives one `fake` rule per output of the schema, in order, so that
`torch.compile` and meta tensors know every output's shape, dtype and
device. Outputs that alias a mutated input (an `inplace` op's) need none.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> (Tensor, Tensor)"
fake:
  - like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> (Tensor, Tensor)"
fake:
  - like(x)
  - empty([x.size(0)])
)md"},

    {Code::FakeRulesWithoutOutputs, "E0513", "fake rules for an op without new outputs",
     R"md(An op that returns nothing (`-> ()`), or only the input it mutates, makes no
new tensors, so it takes no `fake` rules: its generated fake returns what
the op returns. Remove `fake`.)md",
     R"md(# foo_.yaml
schema: "foo_(Tensor(a!) x) -> ()"
fake:
  - like(x)
)md",
     R"md(# foo_.yaml
schema: "foo_(Tensor(a!) x) -> ()"
)md"},

    {Code::FakeRuleForNonTensor, "E0514", "a fake rule for an output that is not a tensor",
     R"md(Fake rules make tensor outputs, and compute `int`, `SymInt`, `bool`,
`float` and `int[]` outputs from the inputs (`x.size(0)`, `x.shape`, or
`dynamic()` for an int only the kernel knows). An output of another type
(`str`, which torch.compile cannot trace as a result, `str[]`, `float[]`,
`Tensor?`, ...) needs a fake written in Python: `fake: {python: module:function}`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> (Tensor, str[])"
fake:
  - like(x)
  - x.shape
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> (Tensor, str[])"
fake:
  python: my_pkg.fakes:foo_fake
)md"},

    {Code::BadFakePythonTarget, "E0515", "a 'python' fake that is not 'module:function'",
     R"md(`fake: {python: ...}` names a handwritten fake as `module:function`: a
dotted Python module path, a colon, and the function's name, each part a
Python identifier. The generated module imports it from there.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  python: my_pkg.fakes.foo_fake
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake:
  python: my_pkg.fakes:foo_fake
)md"},

    {Code::LetNotInt, "E0516", "a 'let' binding that is not an Int",
     R"md(`let` names sizes shared by several fake rules, typically a data-dependent
one (`n: dynamic(min=0)`), so each binding is an `Int`. Use the name where
a size goes: `empty([n, x.size(1)])`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> (Tensor, Tensor)"
let:
  rows: x.shape
fake:
  - empty(rows)
  - empty(rows)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> (Tensor, Tensor)"
let:
  rows: dynamic(min=0)
fake:
  - empty([rows, x.size(1)])
  - empty([rows], dtype=int64)
)md"},

    {Code::BadLetName, "E0517", "a 'let' name that cannot name a variable",
     R"md(Each `let` name becomes a local variable of the generated Python fake, so it
is a Python identifier, not a keyword, and not `torch`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
let:
  n rows: dynamic(min=0)
fake:
  - empty([x.size(0)])
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
let:
  n_rows: dynamic(min=0)
fake:
  - empty([n_rows])
)md"},

    {Code::LetNameTaken, "E0518", "a 'let' name already taken",
     R"md(A `let` name may not repeat an argument's name, or an earlier `let`'s:
inside the fake, one would hide the other.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int n) -> Tensor"
let:
  n: dynamic(min=0)
fake:
  - empty([n])
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int n) -> Tensor"
let:
  m: dynamic(min=0)
fake:
  - empty([m, n])
)md"},

    {Code::ConstantOverflow, "E0519", "constant arithmetic leaves int64",
     R"md(Integer arithmetic on literals alone (`9223372036854775807 + 1`, `2 ** 70`
spelled as products) is computed when the spec is checked, as C++ and
Python would each compute it differently past the range of int64: C++
rejects the generated code (`-Werror=overflow`), Python silently grows the
integer. Keep every constant within int64 (-9223372036854775808 to
9223372036854775807).)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int n) -> Tensor"
require:
  - n < 9223372036854775807 + 1
fake:
  - like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int n) -> Tensor"
require:
  - n <= 9223372036854775807
fake:
  - like(x)
)md"},

    {Code::FlopsNotInt, "E0520", "a 'flops' rule that is not an Int",
     R"md(`flops:` is one Int rule: the floating-point operations of one call, which
`torch.utils.flop_counter.FlopCounterMode` adds to its count (opgen
registers it with `register_flop_formula`). It reads sizes and int
arguments (`2 * a.size(0) * a.size(1) * b.size(1)`); a Float or a Bool is
not a count.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
flops: x.numel() * alpha
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
flops: x.numel()
)md"},

    {Code::FlopsNotCountable, "E0521", "a 'flops' rule FlopCounterMode cannot evaluate",
     R"md(The formula runs inside `FlopCounterMode` on the op's arguments only:
it cannot read a `let` binding (those live in the fake), nor call
`dynamic()` (a count of a data-dependent size is not known before the
kernel runs). The counter also passes the output as `out_val=`, so an op
with a `flops` rule cannot have an argument of that name. Write the count
from the inputs.)md",
     R"md(# nonzero_rows.yaml
schema: "nonzero_rows(Tensor x) -> Tensor"
let:
  n: dynamic(min=0)
fake: empty([n], dtype=int64)
flops: n * x.size(1)
)md",
     R"md(# nonzero_rows.yaml
schema: "nonzero_rows(Tensor x) -> Tensor"
let:
  n: dynamic(min=0)
fake: empty([n], dtype=int64)
flops: x.numel()
)md"},

    {Code::FlopsOnOverloadedOp, "E0522", "a 'flops' rule on an op that shares its name with other overloads",
     R"md(`FlopCounterMode` looks formulas up by the op's overload packet
(`torch.ops.ns.scale`), not by the overload (`torch.ops.ns.scale.out`), and
calls the formula without saying which overload ran: one formula would
count every overload of the name, each with its own arguments. So only an
op that is the single overload of its name in the library takes a
`flops` rule. Give the other overload a name of its own, or count the op
without one.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
flops: x.numel()
# scale.out.yaml
schema: "scale.out(Tensor x, float alpha, *, Tensor(a!) out) -> Tensor(a!)"
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
flops: x.numel()
# scale_into.yaml
schema: "scale_into(Tensor x, float alpha, *, Tensor(a!) out) -> Tensor(a!)"
)md"},

    {Code::FlopsMayRaise, "E0523", "a 'flops' rule that can raise on an input the op accepts",
     R"md(`FlopCounterMode` calls the formula after every call of the op, inside the
user's program: if it raises, so does the program. It must be defined for
every input the op accepts, and opgen proves it from what the op's checks
and `require:` rules guarantee, nothing more: any size, `numel()`, rank or
list length may be 0 (an empty tensor or list), and an int argument may be
anything. So a divisor (`//`, `%`, `ceil_div`, `round_up`) must be at least
1 for every such input, as `max(d, 1)` is, or as a `require:` rule makes it
(`- d >= 1`, which the op checks before it runs); and an index
(`x.size(i)`, `x.shape[i]`, `xs[i]`) must be a literal within the rank
(`dim:` in the tensor's checks, or `x.dim() >= n` in `require:`) or length
(`len(xs) >= n`) the checks guarantee.)md",
     R"md(# per_row.yaml
schema: "per_row(Tensor x) -> Tensor"
fake: like(x)
flops: x.numel() // x.size(0)
)md",
     R"md(# per_row.yaml
schema: "per_row(Tensor x) -> Tensor"
checks:
  x: {dim: 2}
fake: like(x)
flops: x.numel() // max(x.size(0), 1)
)md"},

    {Code::FlopsMayBeNegative, "E0524", "a 'flops' rule that can count below zero",
     R"md(A FLOP count is never negative, but a formula can be for inputs the op
accepts: `2 * k - 1` multiply-adds per output is -1 when `k` is 0 (an
empty inner dimension), and an int argument is unbounded unless a
`require:` rule bounds it. `FlopCounterMode` would add the negative count
to its total as it is. opgen bounds the formula over every input the op's
checks allow (sizes, numels, ranks and lengths from 0) and refuses one
whose lower bound is below 0: count so that it is not (`max(0, ...)`, or
`2 * k` multiply-adds), or bound the arguments in `require:`.)md",
     R"md(# matvec.yaml
schema: "matvec(Tensor a, Tensor x) -> Tensor"
checks:
  a: {dim: 2}
  x: {dim: 1}
fake: empty([a.size(0)])
flops: a.size(0) * (2 * a.size(1) - 1)
)md",
     R"md(# matvec.yaml
schema: "matvec(Tensor a, Tensor x) -> Tensor"
checks:
  a: {dim: 2}
  x: {dim: 1}
fake: empty([a.size(0)])
flops: 2 * a.size(0) * a.size(1)
)md"},

    {Code::CompileConditionMayRaise, "E0525", "a 'compile' condition that can raise on an input the op accepts",
     R"md(The package evaluates each `compile: unsupported` condition whenever
torch.compile traces a call of the op: if it raises, every compiled call
fails while eager calls work. As for a `flops` rule (E0523), opgen proves
it defined for every input the op accepts from what `checks:` and
`require:` guarantee, and from what the condition itself tests first
(`x.dim() > 2 and x.size(2) > 1024`): an index (`x.size(i)`, `x.shape[i]`,
`xs[i]`) must be a literal within that rank or length, and a divisor must
be at least 1.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
checks:
  x: {dim: 2}
fake: like(x)
compile:
  unsupported:
    - when: "x.size(2) > 1024"
      reason: "no kernel for rows past 1024"
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
checks:
  x: {dim: 2}
fake: like(x)
compile:
  unsupported:
    - when: "x.size(1) > 1024"
      reason: "no kernel for rows past 1024"
)md"},

    {Code::FakeRuleAlwaysRaises, "E0526", "a rule that raises on every input",
     R"md(The generated fake evaluates the op's `let` bindings and `fake:` rules
on every call torch.compile traces and FakeTensor sees, the kernel's
wrapper and the fake a `require:` rule on every call, the binding a
`result_meta` rule on every call, and autograd's setup_context an
`autograd: bind:` rule on every call that records gradients. A rule that indexes
a tensor past the rank its checks fix (`x.size(5)` or `x.shape[-3]` where
`checks: {x: {dim: 2}}` or `require: x.dim() == 2`) raises IndexError on
every such call, while eager calls, which run the kernel, work. Rules under
a guard that contradicts the checks (`x.size(3) if x.dim() > 3 else 1`)
never run that branch and are not reported. (An index the checks merely
leave open, `x.size(0)` with no `dim:` check, is allowed in these rules, as
real fakes write them: the kernel's checks refuse such inputs. `flops` and
`compile` conditions, which run on every call, must be in range for every
accepted input: E0523, E0525.))md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
checks:
  x: {dim: 2}
fake: empty([x.size(0), x.size(2)])
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
checks:
  x: {dim: 3}
fake: empty([x.size(0), x.size(2)])
)md"},

    // -----------------------------------------------------------------------
    // E06xx: checks and require
    // -----------------------------------------------------------------------
    {Code::UnknownDtype, "E0601", "unknown dtype",
     R"md(A dtype name (in `checks: {dtype: [...]}` or a sample tensor) is not one of
torch's: `float32`, `float64`, `float16`, `bfloat16`, `float8_e4m3fn`,
`float8_e5m2`, `int8`, `uint8`, `int16`, `int32`, `int64`, `bool`,
`complex64`, `complex128`. Names go without `torch.`, and aliases such as
`half` or `float` are not accepted.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
checks:
  x: {dtype: [float32, bflaot16]}
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
checks:
  x: {dtype: [float32, bfloat16]}
fake: like(x)
)md"},

    {Code::NegativeDim, "E0602", "a negative 'dim' check",
     R"md(`dim` in `checks` is the exact number of dimensions the tensor must have,
so it is 0 or more. For "at least" or "at most", use `require`:
`x.dim() >= 2`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
checks:
  x: {dim: -1}
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
require:
  - x.dim() >= 1
fake: like(x)
)md"},

    {Code::RequireNotBool, "E0603", "a 'require' rule that is not a condition",
     R"md(Each `require` rule is a condition the inputs must meet (a `Bool`), checked
before the kernel runs and in the fake: a comparison such as
`w.size(0) == x.size(-1)`, possibly joined with `and`/`or`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor w) -> Tensor"
require:
  - w.size(0)
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor w) -> Tensor"
require:
  - w.size(0) == x.size(-1)
fake: like(x)
)md"},

    {Code::NotInCppCheck, "E0604", "not available in a 'require' rule",
     R"md(`require` rules also become C++ checks in the kernel wrapper, so they keep
to the C++ subset of the rule language: they read the op's arguments only
(not `let` names), compare one size at a time (`x.size(i)`, `x.shape[i]`,
`len(xs)`; no whole shapes), index a `Tensor[]` with an integer literal,
and make no outputs, `dynamic()` sizes or memory formats.
docs/fake-rules.md ("The C++ subset") has the details.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor y) -> Tensor"
require:
  - x.shape == y.shape
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor y) -> Tensor"
require:
  - x.dim() == 2 and y.dim() == 2
  - x.size(0) == y.size(0) and x.size(1) == y.size(1)
fake: like(x)
)md"},

    // -----------------------------------------------------------------------
    // E07xx: autograd
    // -----------------------------------------------------------------------
    {Code::AutogradWithoutBackward, "E0701", "'autograd' without a 'backward' op",
     R"md(`autograd` names the op's backward op (`backward`, an op of the same
library) and the inputs it returns gradients for (`grads`). Without a
backward op there is nothing to register.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
autograd:
  grads: [x]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, float alpha) -> Tensor"
fake: like(grad)
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
autograd:
  backward: scale_backward
  grads: [x]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, float alpha) -> Tensor"
fake: like(grad)
)md"},

    {Code::AutogradOnMutatingOp, "E0702", "autograd on an op that mutates its inputs",
     R"md(PyTorch's `register_autograd` does not support ops that mutate their inputs.
Give autograd to a functional version of the op (one that returns a new
tensor), and keep the mutating one for inference.)md",
     R"md(# scale_.yaml
schema: "scale_(Tensor(a!) x, float alpha) -> ()"
autograd:
  backward: scale_backward
  grads: [x]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, float alpha) -> Tensor"
fake: like(grad)
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
autograd:
  backward: scale_backward
  grads: [x]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, float alpha) -> Tensor"
fake: like(grad)
)md"},

    {Code::GradsRepeated, "E0703", "'grads' names an input twice",
     R"md(`grads` lists the forward inputs the backward op returns gradients for, one
gradient per input, in the backward op's return order; each input is listed
once.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, Tensor w) -> Tensor"
fake: like(x)
autograd:
  backward: scale_backward
  grads: [x, x]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, Tensor x, Tensor w) -> (Tensor, Tensor)"
fake: [like(x), like(w)]
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, Tensor w) -> Tensor"
fake: like(x)
autograd:
  backward: scale_backward
  grads: [x, w]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, Tensor x, Tensor w) -> (Tensor, Tensor)"
fake: [like(x), like(w)]
)md"},

    {Code::UnknownBackwardOp, "E0704", "the backward op is not in the library",
     R"md(`autograd: {backward: ...}` names an op defined by a spec of the same
library (the same opgen run). The note suggests the closest op name.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
autograd:
  backward: scale_backwrd
  grads: [x]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, float alpha) -> Tensor"
fake: like(grad)
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
autograd:
  backward: scale_backward
  grads: [x]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, float alpha) -> Tensor"
fake: like(grad)
)md"},

    {Code::GradsCountMismatch, "E0705", "the backward op's returns differ from 'grads'",
     R"md(The backward op returns one gradient per input named in `grads`, in that
order. Either list every input it returns a gradient for, or change what
it returns.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, Tensor w) -> Tensor"
fake: like(x)
autograd:
  backward: scale_backward
  grads: [x, w]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, Tensor w) -> Tensor"
fake: like(grad)
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, Tensor w) -> Tensor"
fake: like(x)
autograd:
  backward: scale_backward
  grads: [x]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, Tensor w) -> Tensor"
fake: like(grad)
)md"},

    {Code::UnbindableBackwardArgument, "E0706", "a backward argument that matches nothing",
     R"md(The backward op's arguments are bound by name: `grad` (or `grad_<i>`,
`grad_<output name>` for several outputs) is the incoming gradient, a
forward argument's name is that argument, a forward output's name is that
output; `autograd: bind:` gives any other a value computed from the
forward's arguments (`batch_size: input.size(0)`). An argument matching none
of them could not be passed; the note lists the names available.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
autograd:
  backward: scale_backward
  grads: [x]
# scale_backward.yaml
schema: "scale_backward(Tensor grad_output, float alpha) -> Tensor"
fake: like(grad_output)
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
fake: like(x)
autograd:
  backward: scale_backward
  grads: [x]
# scale_backward.yaml
schema: "scale_backward(Tensor grad, float alpha) -> Tensor"
fake: like(grad)
)md"},

    {Code::BadAutogradBinding, "E0707", "an 'autograd: bind' entry that cannot give its argument",
     R"md(`autograd: bind:` gives a backward argument the forward neither takes nor
returns, such as the input's sizes a backward needs to shape its gradient:
`batch_size: input.size(0)`. Each entry names an argument of the backward op
that nothing else binds (not `grad`, a forward argument or a forward
output: those are bound by name already), and its rule is evaluated in
`setup_context` over the forward's arguments: it must have the argument's
kind (Int for `int` and `SymInt`, Float or Int for `float`, Bool for
`bool`, a shape for `int[]`, a dtype for `ScalarType`, a string for `str`;
a tensor cannot be computed by a rule), cannot read the fake's `let`
bindings or call `dynamic()`, and must not raise on every input.)md",
     R"md(# pool.yaml
schema: "pool(Tensor x) -> Tensor"
fake: empty([x.size(0)])
autograd:
  backward: pool_backward
  grads: [x]
  bind:
    width: x.dtype
# pool_backward.yaml
schema: "pool_backward(Tensor grad, SymInt width) -> Tensor"
fake: empty([grad.size(0), width])
)md",
     R"md(# pool.yaml
schema: "pool(Tensor x) -> Tensor"
fake: empty([x.size(0)])
autograd:
  backward: pool_backward
  grads: [x]
  bind:
    width: x.size(-1)
# pool_backward.yaml
schema: "pool_backward(Tensor grad, SymInt width) -> Tensor"
fake: empty([grad.size(0), width])
)md"},

    // -----------------------------------------------------------------------
    // E08xx: tags, dispatch, symmetric memory and autocast
    // -----------------------------------------------------------------------
    {Code::UnknownTag, "E0801", "unknown tag",
     R"md(`tags` are `torch.Tag` names, which PyTorch checks when the op is
registered: `core`, `inplace`, `needs_fixed_stride_order`, `pointwise`,
`pt2_compliant_tag`, `reduction`, and the others of `torch.Tag`. The note
suggests the closest.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
tags: [pt2_compliant]
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
tags: [pt2_compliant_tag]
fake: like(x)
)md"},

    {Code::TagsNeedNewerStableAbi, "E0802", "tags need a newer stable ABI than the target",
     R"md(The stable ABI registers tags from PyTorch 2.12 on. A library whose target
version (`--torch-target-version`, `TORCH_TARGET_VERSION`; 2.10 by
default) is older cannot give tags to its stable ops: raise the target, or
give the op `abi: unstable`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
tags: [pt2_compliant_tag]
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
tags: [pt2_compliant_tag]
fake: like(x)
)md"},

    {Code::UnknownDispatchKey, "E0803", "unknown dispatch key",
     R"md(`dispatch` lists the dispatch keys that have a handwritten kernel: `CPU`,
`CUDA`, `XPU`, `MPS`, `Meta`, `PrivateUse1`, `CompositeExplicitAutograd`,
spelled as PyTorch spells them.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
dispatch: [CPU, Cuda]
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
dispatch: [CPU, CUDA]
fake: like(x)
)md"},

    {Code::DuplicateDispatchKey, "E0804", "a dispatch key listed twice",
     R"md(Each dispatch key gets one kernel, so `dispatch` lists each key once.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
dispatch: [CPU, CUDA, CPU]
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
dispatch: [CPU, CUDA]
fake: like(x)
)md"},

    {Code::SymmMemWithoutGroupName, "E0805", "'symm_mem' without a 'str group_name' argument",
     R"md(Arguments in symmetric memory belong to a process group, which PyTorch finds
through the op's `group_name` argument: an op with `symm_mem` arguments
takes a `str group_name`.)md",
     R"md(# all_gather.yaml
schema: "all_gather(Tensor input, int world_size) -> Tensor"
symm_mem: [input]
fake: empty([input.size(0) * world_size])
)md",
     R"md(# all_gather.yaml
schema: "all_gather(Tensor input, int world_size, str group_name) -> Tensor"
symm_mem: [input]
fake: empty([input.size(0) * world_size])
)md"},

    {Code::AutocastUnknownDevice, "E0806", "'autocast' for an unknown device type",
     R"md(The keys of `autocast:` are device types as `torch.device(...).type` spells
them, lower case: `cpu`, `cuda`, `xpu`, `mps` (the device types with an
autocast dispatch key among opgen's dispatch keys).)md",
     R"md(# rms_norm.yaml
schema: "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"
fake: like(input)
autocast:
  CUDA: {cast_inputs: float32}
)md",
     R"md(# rms_norm.yaml
schema: "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"
fake: like(input)
autocast:
  cuda: {cast_inputs: float32}
)md"},

    {Code::AutocastDeviceNotDispatched, "E0807", "'autocast' for a device the op has no kernel for",
     R"md(An autocast rule casts the inputs and then calls the op's kernel for that
device type; an op whose `dispatch` has no kernel for it would fail there
anyway, so the rule is a mistake (often a `dispatch` list that forgot the
device). `CompositeExplicitAutograd` serves every device.)md",
     R"md(# rms_norm.yaml
schema: "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"
dispatch: [CPU]
fake: like(input)
autocast:
  cuda: {cast_inputs: float32}
)md",
     R"md(# rms_norm.yaml
schema: "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"
dispatch: [CPU, CUDA]
fake: like(input)
autocast:
  cuda: {cast_inputs: float32}
)md"},

    {Code::AutocastBadDtype, "E0808", "an autocast rule without a floating-point 'cast_inputs'",
     R"md(Each device's rule names the dtype its floating-point inputs are cast to:
`cast_inputs: float16`, `bfloat16`, `float32` or `float64`. Autocast casts
only floating-point tensors, so an integer, boolean, complex or float8 dtype
is no target for it.)md",
     R"md(# rms_norm.yaml
schema: "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"
fake: like(input)
autocast:
  cuda: {cast_inputs: int32}
)md",
     R"md(# rms_norm.yaml
schema: "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"
fake: like(input)
autocast:
  cuda: {cast_inputs: float32}
)md"},

    {Code::AutocastDtypeNotAllowed, "E0809", "'autocast' casts to a dtype the op's checks refuse",
     R"md(Under autocast every floating-point input but float64 is cast to
`cast_inputs`, so an argument whose `checks` allow other floating-point
dtypes but not that one would be refused on every autocast call. Allow the
dtype in the argument's `dtype` check, or cast to one it allows.)md",
     R"md(# rms_norm.yaml
schema: "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"
checks:
  input: {dtype: [float32, bfloat16]}
fake: like(input)
autocast:
  cuda: {cast_inputs: float16}
)md",
     R"md(# rms_norm.yaml
schema: "rms_norm(Tensor input, Tensor weight, float eps=1e-06) -> Tensor"
checks:
  input: {dtype: [float32, bfloat16, float16]}
fake: like(input)
autocast:
  cuda: {cast_inputs: float16}
)md"},

    {Code::AutocastOnMutatingOp, "E0810", "'autocast' on an op that writes a floating-point input",
     R"md(Autocast casts by copying: an op that writes into a floating-point
argument would write into the copy, and the caller's tensor would silently
keep its old values. So an op that mutates an argument which may be
floating-point (no `dtype` check, or one allowing float16, bfloat16 or
float32) takes no `autocast` rule; cast its inputs before the call.)md",
     R"md(# scale_.yaml
schema: "scale_(Tensor(a!) x, float alpha) -> ()"
autocast:
  cuda: {cast_inputs: float32}
samples: []
)md",
     R"md(# scale_.yaml
schema: "scale_(Tensor(a!) x, float alpha) -> ()"
samples: []
)md"},

    {Code::AutocastKeywordOnly, "E0811", "'autocast' on an op with a keyword-only argument",
     R"md(`torch.library.register_autocast` registers a Python kernel that refuses
keyword arguments ("Custom ops do not support kwargs yet."), and the
dispatcher hands a keyword-only argument (one after the schema's `*`) to it
as a keyword whenever the call gives it a value other than its default. So
such a call would fail under `torch.autocast`. Make the argument positional,
or leave the op without an `autocast` rule.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, *, float alpha=1.) -> Tensor"
fake: like(x)
autocast:
  cpu: {cast_inputs: float32}
samples: []
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha=1.) -> Tensor"
fake: like(x)
autocast:
  cpu: {cast_inputs: float32}
samples: []
)md"},

    {Code::DuplicateTag, "E0812", "a tag listed twice",
     R"md(`tags` lists each tag once: a repeated tag is most often a typo for
another one, and the JSON Schema (`uniqueItems`) refuses it as well.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
tags: [pt2_compliant_tag, pt2_compliant_tag]
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
tags: [pt2_compliant_tag]
fake: like(x)
)md"},

    {Code::NoTensorToDispatchOn, "E0813", "a kernel no call reaches: the op takes no tensor",
     R"md(PyTorch chooses an op's CPU, CUDA (or other backend) kernel by the devices
of its tensor arguments. An op that takes no tensor gives it nothing to
choose by, and a call raises "There were no tensor arguments to this
function ... but no fallback function is registered". Such an op needs one
kernel for every device, `dispatch: [CompositeExplicitAutograd]` (the kernel
is `<op>_compositeexplicitautograd`), or a tensor argument. Its fake must
be Python too: rules take an output's device from a tensor argument.)md",
     R"md(# arange_like.yaml
schema: "arange_like(int n) -> Tensor"
fake: {python: "my_fakes:arange_like"}
)md",
     R"md(# arange_like.yaml
schema: "arange_like(int n) -> Tensor"
dispatch: [CompositeExplicitAutograd]
fake: {python: "my_fakes:arange_like"}
)md"},

    {Code::ExistingKernelNotDispatched, "E0814", "an existing kernel for a dispatch key the op does not dispatch to",
     R"md(`kernels:` names, per dispatch key, an existing function that is the op's
kernel there. Each key must be one the op dispatches to (`dispatch:`, by
default CPU and CUDA): a function named for another key would never be
registered, and is most likely a misspelt key.)md",
     R"md(# rmsnorm.yaml
schema: "rmsnorm(Tensor(a!) output, Tensor input, Tensor weight, float eps) -> ()"
dispatch: [CUDA]
kernels:
  include: sgl_kernel_ops.h
  CPU: rmsnorm
)md",
     R"md(# rmsnorm.yaml
schema: "rmsnorm(Tensor(a!) output, Tensor input, Tensor weight, float eps) -> ()"
dispatch: [CUDA]
kernels:
  include: sgl_kernel_ops.h
  CUDA: rmsnorm
)md"},
    {Code::BadExistingKernel, "E0815", "an existing kernel or its header that cannot be written into C++",
     R"md(An entry of `kernels:` is a C++ function name as code would write it:
`rmsnorm`, `sgl::rmsnorm`, `::rmsnorm` or a template's instantiation,
`linear_cpu<4>` (no `&`, no call, no spaces outside the template
arguments). `include:` names headers as `#include "..."` would, so a
name cannot hold `"`, a backslash or a control character. The generated
code includes the headers, takes the function's address and calls it
through an adapter (see `docs/existing-kernels.md`).)md",
     R"md(# rmsnorm.yaml
schema: "rmsnorm(Tensor(a!) output, Tensor input, Tensor weight, float eps) -> ()"
dispatch: [CUDA]
kernels:
  include: sgl_kernel_ops.h
  CUDA: "&rmsnorm"
)md",
     R"md(# rmsnorm.yaml
schema: "rmsnorm(Tensor(a!) output, Tensor input, Tensor weight, float eps) -> ()"
dispatch: [CUDA]
kernels:
  include: sgl_kernel_ops.h
  CUDA: rmsnorm
)md"},
    {Code::ExistingKernelWithoutInclude, "E0816", "existing kernels without the header that declares them",
     R"md(The generated code calls an existing function, so it must see its
declaration: `kernels:` needs `include:`, the header (or headers) the
kernel's own sources include, found through the library's include
directories (`target_include_directories`). Headers without any function
to declare are refused too: they are a leftover.)md",
     R"md(# rmsnorm.yaml
schema: "rmsnorm(Tensor(a!) output, Tensor input, Tensor weight, float eps) -> ()"
dispatch: [CUDA]
kernels:
  CUDA: rmsnorm
)md",
     R"md(# rmsnorm.yaml
schema: "rmsnorm(Tensor(a!) output, Tensor input, Tensor weight, float eps) -> ()"
dispatch: [CUDA]
kernels:
  include: sgl_kernel_ops.h
  CUDA: rmsnorm
)md"},
    {Code::BadCudagraph, "E0817", "'cudagraph' is neither safe nor unsafe",
     R"md(`cudagraph` says whether the op may be captured in a CUDA graph
(`torch.compile(mode="reduce-overhead")`). `unsafe`: Inductor runs it
outside the captured graphs, eagerly between them; say it for an op that
synchronizes with the host, reads host state that a replay would freeze
(a registry, a runner's fields), or allocates outside PyTorch's caching
allocator. `safe`: it may be captured (and `tags` may not say otherwise).
Absent: PyTorch's default, which captures it.)md",
     R"md(# count_nonzero_rows.yaml
schema: "count_nonzero_rows(Tensor x) -> Tensor"
cudagraph: never
fake: empty([x.size(0)], dtype=int64)
)md",
     R"md(# count_nonzero_rows.yaml
schema: "count_nonzero_rows(Tensor x) -> Tensor"
cudagraph: unsafe   # the kernel waits on the host
fake: empty([x.size(0)], dtype=int64)
)md"},
    {Code::CudagraphContradictsTags, "E0818", "'cudagraph: safe' with the cudagraph_unsafe tag",
     R"md(An op cannot be both: `cudagraph: safe` says it may be captured, the
`cudagraph_unsafe` tag has Inductor run it outside CUDA graphs. `cudagraph:
unsafe` alone adds the tag (or, on a stable-ABI target before 2.12, puts
the op on Inductor's partition list).)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
tags: [cudagraph_unsafe]
cudagraph: safe
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
cudagraph: unsafe
fake: like(x)
)md"},
    {Code::SeveralLayoutTags, "E0819", "more than one layout tag",
     R"md(`needs_exact_strides` (the default of custom ops), `needs_fixed_stride_order`,
`needs_contiguous_strides` and `flexible_layout` tell Inductor which strides
to give the op's inputs. PyTorch applies one: the most restrictive of those
given (`tags_by_priority` in `torch/_library/utils.py`), so a second one is
dead text that reads as if it mattered. Keep the one you mean.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
tags: [flexible_layout, needs_contiguous_strides]
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
abi: unstable
tags: [needs_contiguous_strides]
fake: like(x)
)md"},
    {Code::CompileConditionIncomplete, "E0820", "a 'compile' condition without its rule or its reason",
     R"md(`compile: unsupported` lists the calls `torch.compile` cannot take, each
with `when`, a Bool rule over the op's arguments evaluated at trace time
(`x.dtype == float64`, `x.size(-1) > 4096`, `bias is None`), and `reason`,
which users read in the warning or the error. The first condition that
holds gives the reason, which the package's
`<op>_compile_unsupported_reason(...)` also returns.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
abi: unstable
fake: like(x)
compile:
  unsupported:
    - when: "x.dtype == float64"
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
abi: unstable
fake: like(x)
compile:
  unsupported:
    - when: "x.dtype == float64"
      reason: "no float64 kernel on the compiled path"
)md"},
    {Code::CompileWhenNotBool, "E0821", "a 'compile' condition that is not Bool",
     R"md(A `when` rule decides, at trace time, whether a call leaves the compiled
path: it must be Bool (a comparison, `is None`, `and`/`or`/`not`), like a
`require` rule. It is evaluated in Python only, so it may use what the C++
subset lacks; the `let` names are the fake's and not in scope.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
abi: unstable
fake: like(x)
compile:
  unsupported:
    - when: "x.size(-1)"
      reason: "rows over 4096 elements are split on the eager path only"
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
abi: unstable
fake: like(x)
compile:
  unsupported:
    - when: "x.dim() > 0 and x.size(-1) > 4096"
      reason: "rows over 4096 elements are split on the eager path only"
)md"},
    {Code::BadCompileFallback, "E0822", "a 'compile' fallback opgen does not know",
     R"md(What happens to a call `torch.compile` cannot take: `eager` (the default)
runs it outside the graph, in a `torch.compiler.disable`d island that warns
with the reason: a graph break, and under `fullgraph=True` an error that
names the reason; `error` raises a `RuntimeError` naming the op and the
reason; `{python: "module:function"}` calls a traceable replacement with the
op's arguments, the one choice that keeps `fullgraph=True`.)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
abi: unstable
fake: like(x)
compile:
  unsupported:
    - when: "x.dtype == float64"
      reason: "no float64 kernel on the compiled path"
  fallback: eagerly
)md",
     R"md(# scale.yaml
schema: "scale(Tensor x, float alpha) -> Tensor"
abi: unstable
fake: like(x)
compile:
  unsupported:
    - when: "x.dtype == float64"
      reason: "no float64 kernel on the compiled path"
  fallback: eager
)md"},

    // -----------------------------------------------------------------------
    // E09xx: files and output
    // -----------------------------------------------------------------------
    {Code::CannotReadSpec, "E0901", "a spec file cannot be read",
     R"md(A path given to opgen does not exist or cannot be read. opgen takes spec
files and directories (it reads the `*.yaml` files in them); paths are
relative to the working directory.)md",
     R"md($ opgen check schemas/rms_nrom.yaml
schemas/rms_nrom.yaml: error[E0901]: no such file or directory
opgen: 1 error; nothing was written
opgen: for more about this error, run 'opgen explain E0901'
)md",
     R"md($ opgen check schemas/rms_norm.yaml
)md",
     "console"},

    {Code::CannotWriteOutput, "E0902", "an output file cannot be written",
     R"md(opgen could not create the output directory or write a file in it: the
directory is not writable, the disk is full, or something other than a
regular file stands where an output goes (a directory, or a file where a
directory must go). opgen also writes nothing through a symbolic link inside
its output directory, so that no write lands outside it. What can be checked
is checked before the first write, and nothing is left half-written: each
file is written whole or not at all.)md",
     R"md($ mkdir -p out/csrc/rms_norm.cpp
$ opgen generate -o out schemas
out/csrc/rms_norm.cpp: error[E0902]: is a directory where an output file goes
opgen: for more about this error, run 'opgen explain E0902'
)md",
     R"md($ rmdir out/csrc/rms_norm.cpp
$ opgen generate -o out schemas
)md",
     "console"},

    {Code::OutputFileExists, "E0903", "'opgen new' or 'opgen init' would overwrite a file",
     R"md(`opgen new` and `opgen init` write only new files: the spec, kernel sources
and project files they scaffold must not exist yet. They write all of their
files or none: when one exists (or cannot be written), nothing is written,
and no directory they would have made is left behind. Edit the existing
spec instead, or choose another op name or directory.)md",
     R"md($ opgen new mylib::rms_norm --schema "(Tensor x) -> Tensor"
schemas/rms_norm.yaml: error[E0903]: already exists; opgen new writes only new files
opgen new: nothing was written
opgen new: for more about this error, run 'opgen explain E0903'
)md",
     R"md($ opgen new mylib::rms_norm2 --schema "(Tensor x) -> Tensor"
wrote schemas/rms_norm2.yaml
)md",
     "console"},

    {Code::NoSpecFiles, "E0904", "no spec files were given",
     R"md(The paths given to opgen hold no `*.yaml` file: a directory without specs, or
a typo in its name. This is an error rather than an empty library because
`opgen generate` would then remove every output of the last run.)md",
     R"md($ opgen generate -o out schema
schema: error[E0904]: no spec files: the paths given hold no *.yaml file
opgen: 1 error; nothing was written
opgen: for more about this error, run 'opgen explain E0904'
)md",
     R"md($ opgen generate -o out schemas
)md",
     "console"},

    {Code::InvalidLibraryName, "E0905", "a library name is not a valid identifier",
     R"md(`--namespace` and `--python-package` become C++ namespaces, Python
identifiers and directories of the output; `--library-name` becomes a file
name (`lib<name>.so`). Each must be a plain identifier (letters, digits and
`_`, not starting with a digit; `-` is also allowed in the library name), and
not a keyword of C++ or Python. The namespace may not be one PyTorch defines
(`aten`, `prim`, `quantized`, `c10d`, ...), since a second `TORCH_LIBRARY`
block for it fails to load, unless the library adds its ops to it as
fragments (`--fragment`, `opgen_add_library(... FRAGMENT)`), as PyTorch
allows and as libraries sharing a namespace do (FBGEMM's `fbgemm`). The
package may not be `torch`,
nor `opgen`: that is the tool's own package, whose `opgen.testing` the
generated test suite imports (namespace `opgen` gets package `opgen_ops` by
default). The namespace may not be a macro of GNU C++, the C library,
PyTorch or CUDA (`linux`, `errno`, ...): the registration macros take it as
a C++ token; nor a dunder (`__all__`): `torch.ops.__all__` reads the
module's own attribute. A namespace C++ reserves (`_C`, `__x`) is registered
as written, as PyTorch allows; the generated C++ and the kernels use a
derived namespace (`_C` -> `C_ns`).
The package may not shadow a module of the standard library (`typing`), or
torch, opgen or a distribution they depend on (`sympy`): on the test path it
would hide that module, and `opgen init` names the project's distribution
after the package, whose `pip install` would replace it. No name may be
longer than 100 characters. A name such as `../x` would otherwise write
outside the output directory.)md",
     R"md($ opgen generate -o out --namespace my-lib schemas
--namespace: error[E0905]: 'my-lib' is not a valid namespace: use letters, digits and '_', not starting with a digit
opgen: 1 error; nothing was written
opgen: for more about this error, run 'opgen explain E0905'
)md",
     R"md($ opgen generate -o out --namespace my_lib schemas
)md",
     "console"},

    {Code::OutputTooLarge, "E0906", "a generated file would be too large",
     R"md(No generated file may exceed 16 MiB. A spec can ask for far more than it
spells out: YAML aliases repeat a list of samples for the price of a
reference, and each sample's `dims` multiply its cases. The note names the
op with the most sample cases; give it fewer.)md",
     R"md($ opgen generate -o out schemas
out/tests/test_mylib_ops.py: error[E0906]: would be 239 MB, past the limit of 16 MiB
out/tests/test_mylib_ops.py: note: the op with the most sample cases is mylib::foo (schemas/foo.yaml): 1048576
)md",
     R"md($ opgen generate -o out schemas
)md",
     "console"},

    {Code::OutputLocked, "E0907", "another process holds the output directory",
     R"md(Runs of `opgen generate` on one output directory take turns: each holds a
lock on the directory (`flock`) from its first look at the stamp to its last
write, so a parallel build's second run waits and then finds the tree up to
date. A run that waits more than 2 s says who holds the lock; one that has
waited `OPGEN_LOCK_TIMEOUT` seconds (600 by default) gives up with this
error, naming the process, rather than hang. Wait for that process to
finish, or stop it if it is stuck.)md",
     R"md($ OPGEN_LOCK_TIMEOUT=5 opgen generate -o out schemas
out: error[E0907]: another process has held the output directory's lock for 5 s: pid 4242 (opgen generate -o out schemas)
out: note: wait for it to finish, or stop it; OPGEN_LOCK_TIMEOUT sets how many seconds to wait
)md",
     R"md($ opgen generate -o out schemas
)md",
     "console"},

    {Code::OutputNotOpgens, "E0908", "'opgen generate' would replace a file opgen did not write",
     R"md(`generate` replaces an output only where it can show that it wrote the file
there: the last run's stamp lists it with the digest of the bytes it holds,
or it carries opgen's `@generated` header (an output whose stamp was lost,
or that was edited, is generated again). Any other file at a path the run
would write, such as your own `tests/test_<ns>_ops.py`, is refused, located,
and nothing is written: move it, or choose another output directory.)md",
     R"md($ opgen generate -o out schemas
out/tests/test_opgen_ops_ops.py: error[E0908]: this file is not one opgen wrote (no @generated header, not in the stamp's manifest): generate would replace it
out/tests/test_opgen_ops_ops.py: note: move it, or choose another output directory
)md",
     R"md($ mv out/tests/test_opgen_ops_ops.py tests/; opgen generate -o out schemas
)md",
     "console"},

    // -----------------------------------------------------------------------
    // E10xx: samples
    // -----------------------------------------------------------------------
    {Code::SampleValueMismatch, "E1001", "a sample value does not fit its argument",
     R"md(Each value in a sample's `args` must fit the argument's type: a tensor
argument takes `{shape: [...], dtype: ..., device: ..., range: [low,
high]}` (`null` for a `Tensor?`), a `Tensor[]` a list of those, and plain
arguments a YAML value of their type. A tensor's `device` is `cpu` or
`cuda`, and its `range` has `low < high`.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, float alpha) -> Tensor"
fake: like(x)
samples:
  - args:
      x: {shape: [4, 8]}
      alpha: half
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, float alpha) -> Tensor"
fake: like(x)
samples:
  - args:
      x: {shape: [4, 8]}
      alpha: 0.5
)md"},

    {Code::SampleMissingArgument, "E1002", "a sample leaves out an argument",
     R"md(A sample gives a value to every argument that has no default, so that the
generated tests can call the op with it.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, float alpha) -> Tensor"
fake: like(x)
samples:
  - args:
      x: {shape: [4, 8]}
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, float alpha) -> Tensor"
fake: like(x)
samples:
  - args:
      x: {shape: [4, 8]}
      alpha: 0.5
)md"},

    {Code::SampleShapeMismatch, "E1003", "sample shapes and dims disagree",
     R"md(A sample tensor's `shape` lists sizes: integers, or names of the sample's
`dims`, which run the sample at several sizes (each dim a list of values;
all of a sample's dims have the same number of values, and the i-th run
takes the i-th of each).)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
samples:
  - args:
      x: {shape: [N, 8]}
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
samples:
  - dims: {N: [1, 5]}
    args:
      x: {shape: [N, 8]}
)md"},

    {Code::BadHostClass, "E1101", "a host class declaration opgen cannot use",
     R"md(The library's `_types.yaml` declares under `host_objects:` each Python class
its ops take: `class` (its Python path, module.Qualname, which the binding's
type hints name) and `fields` (what kernels, fakes and rules read of its
objects, each with a schema type), or `builtin: process_group`. The class's
name is what schemas spell and the kernel's C++ struct is called, so it must
be an identifier that no schema type, keyword or macro takes; a class
declares at least one field; a library has one types file.)md",
     R"md(# _types.yaml
host_objects:
  Float8Quantizer:
    class: Float8Quantizer
    fields: {scale: float}
# scale.yaml
schema: "scale(Tensor x, Float8Quantizer q) -> Tensor"
fake: like(x)
)md",
     R"md(# _types.yaml
host_objects:
  Float8Quantizer:
    class: mylib.quant.Float8Quantizer
    fields: {scale: float}
# scale.yaml
schema: "scale(Tensor x, Float8Quantizer q) -> Tensor"
fake: like(x)
)md"},

    {Code::BadHostFieldType, "E1102", "a host-class field of a type kernels cannot receive",
     R"md(A field becomes an argument of the registered op and a member of the kernel's
struct on both ABIs, so its type is one opgen carries there as a value:
`int`, `float`, `bool`, `str`, `ScalarType`, `Tensor`, or one of these
optional (`Tensor?`). Lists, `Scalar`, and alias annotations are not fields.)md",
     R"md(# _types.yaml
host_objects:
  Float8Quantizer:
    class: mylib.quant.Float8Quantizer
    fields: {scales: "float[]"}
# scale.yaml
schema: "scale(Tensor x, Float8Quantizer q) -> Tensor"
fake: like(x)
)md",
     R"md(# _types.yaml
host_objects:
  Float8Quantizer:
    class: mylib.quant.Float8Quantizer
    fields: {scales: Tensor}
# scale.yaml
schema: "scale(Tensor x, Float8Quantizer q) -> Tensor"
fake: like(x)
)md"},

    {Code::BadHostArgument, "E1103", "a host object where it cannot be flattened",
     R"md(The op opgen registers takes a host object's fields in its place, and the
kernel a struct of them. So a host class is an argument's whole type, or
that type optional (`Float8Quantizer? q=None`, whose only default is None); not
a list element, a return, written (`(a!)`, `mutates:`), symmetric memory, a
gradient, or an argument of an existing kernel (`kernels:`), whose
signature opgen does not write. The flattened names (`q_<field>`, and
`q_given` for an optional one) must differ from every declared argument's
name, host objects' included, and from each other: the binding binds them
all, and `A q` with a field `t` beside an argument `q_t` would bind `q.t`
over `q_t`.)md",
     R"md(# _types.yaml
host_objects:
  Float8Quantizer:
    class: mylib.quant.Float8Quantizer
    fields: {scale: float}
# scale.yaml
schema: "scale(Tensor x, Float8Quantizer[] qs) -> Tensor"
fake: like(x)
)md",
     R"md(# _types.yaml
host_objects:
  Float8Quantizer:
    class: mylib.quant.Float8Quantizer
    fields: {scale: float}
# scale.yaml
schema: "scale(Tensor x, Float8Quantizer q) -> Tensor"
fake: like(x)
)md"},

    {Code::UnknownHostField, "E1104", "a rule or sample reads what a host class does not declare",
     R"md(Rules (`require`, `let`, `fake`, `flops`, `compile: when`), `checks:` and
samples read a host object through its declared fields, `q.scale`: those
are what the registered op takes, so they are all a rule can see. An
optional object is tested with `q is None`; a field of an optional object
reads as optional.)md",
     R"md(# _types.yaml
host_objects:
  Float8Quantizer:
    class: mylib.quant.Float8Quantizer
    fields: {out_dtype: ScalarType}
# scale.yaml
schema: "scale(Tensor x, Float8Quantizer q) -> Tensor"
fake: like(x, dtype=q.dtype)
)md",
     R"md(# _types.yaml
host_objects:
  Float8Quantizer:
    class: mylib.quant.Float8Quantizer
    fields: {out_dtype: ScalarType}
# scale.yaml
schema: "scale(Tensor x, Float8Quantizer q) -> Tensor"
fake: like(x, dtype=q.out_dtype)
)md"},

    {Code::BadSubclassResult, "E1105", "a tensor-subclass result the binding cannot rebuild",
     R"md(An op may return a tensor subclass (`tensor_subclasses:` in `_types.yaml`):
the op opgen registers returns its inner tensors, `<result>_<inner>`, and
the package's binding rebuilds the object from them and its metadata. So
such a result is named (`-> Float8Tensor out`), one object (not optional,
not in a list, no alias), its flat names are not the names of other
results, and `result_meta` gives a rule for each of its class's meta
fields, of the field's type, over the op's arguments (a host object's
fields read as `q.field`). `result_meta` names only such results.)md",
     R"md(# _types.yaml
tensor_subclasses:
  Float8Tensor:
    class: mylib.fp8.Float8Tensor
    inner: [_data, _scale_inv]
    meta: {fp8_dtype: ScalarType}
# quantize.yaml
schema: "quantize(Tensor x, ScalarType fp8_dtype) -> Float8Tensor out"
fake:
  - empty(x.shape, dtype=uint8)
  - empty([], dtype=float32)
)md",
     R"md(# _types.yaml
tensor_subclasses:
  Float8Tensor:
    class: mylib.fp8.Float8Tensor
    inner: [_data, _scale_inv]
    meta: {fp8_dtype: ScalarType}
# quantize.yaml
schema: "quantize(Tensor x, ScalarType fp8_dtype) -> Float8Tensor out"
result_meta:
  out: {fp8_dtype: fp8_dtype}
fake:
  - empty(x.shape, dtype=uint8)
  - empty([], dtype=float32)
)md"},

    {Code::BadCarry, "E1106", "a host object passed whole where opgen cannot pass it",
     R"md(`carry:` names host arguments an op takes as the object itself, not its
fields: under torch.compile a `kind: symbolic` object is a graph input (one
graph serves every object whose fields the fakes read are equal) and a
`kind: constant` one a guarded constant. The class must declare `kind` (the
package registers it with PyTorch as an opaque type), must be neither a
tensor subclass nor a built-in class. The op's kernels are either all
Python (`kernels: {KEY: {python: ...}}`), which receive the object, or all
C++, which receive its fields: the C++ library registers the flat op
`<op>_flat` and the package defines the op in Python around it, reading
the fields each call (so a C++ op with a handwritten fake cannot carry).
A backward op may take the object whole only from a forward that carries
it.)md",
     R"md(# _types.yaml
host_objects:
  GemmRunner:
    class: mylib.gemm.GemmRunner
    fields: {out_dtype: ScalarType}
# gemm.yaml
schema: "gemm(Tensor a, Tensor b, GemmRunner runner) -> Tensor"
carry: [runner]
dispatch: [CPU]
kernels:
  CPU: {python: "mylib.gemm:gemm"}
fake: empty([a.size(0), b.size(1)], dtype=runner.out_dtype)
)md",
     R"md(# _types.yaml
host_objects:
  GemmRunner:
    class: mylib.gemm.GemmRunner
    kind: symbolic
    fields: {out_dtype: ScalarType}
# gemm.yaml
schema: "gemm(Tensor a, Tensor b, GemmRunner runner) -> Tensor"
carry: [runner]
dispatch: [CPU]
kernels:
  CPU: {python: "mylib.gemm:gemm"}
fake: empty([a.size(0), b.size(1)], dtype=runner.out_dtype)
)md"},

    {Code::AliasingResultNotCompilable, "W0401", "a result aliases an input outside the out= convention",
     R"md(A warning: a result is an alias of an argument the op mutates, but not in
PyTorch's out= convention, so only eager calls work. PyTorch registers and
calls such an op (FlashAttention-3's forward takes a positional
`Tensor(out!)? out=None` and returns it), but `torch.library.opcheck` and
`torch.compile` refuse it: "Found a custom (non-ATen) operator whose output
has alias annotations". The convention they accept: every mutated argument
keyword-only and always given, every result an alias of one of them
(`foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)`), and the op tagged
`out` (PyTorch 2.13), which opgen adds itself. No release of the stable ABI
can carry that tag on its `def`, so the package defines a stable-ABI op in
the convention (with its tags) and the C++ library registers its kernels.
Otherwise return new tensors.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, Tensor(a!) out) -> Tensor(a!)"
samples: []
)md",
     R"md(# foo.out.yaml
schema: "foo.out(Tensor x, *, Tensor(a!) out) -> Tensor(a!)"
samples: []
)md"},

    {Code::NonTensorMarkedMutated, "W0402", "a non-tensor is annotated as mutated",
     R"md(A warning: a value that is not a tensor (an `int`, an `int?`) carries a
write annotation, `int(a!)? n`. PyTorch parses and registers such a schema,
and real projects register it, so opgen does too, as written; the kernel
gets the value as it gets any `int` (a value cannot be written back). But
`torch.library.opcheck` and `torch.compile` refuse the op ("Found a custom
(non-ATen) operator whose output has alias annotations", measured on torch
2.14), so only eager calls work: the generated suite runs its eager checks
and skips opcheck and torch.compile, saying why. Drop the annotation to
have both.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int(a!)? n=None) -> Tensor"
fake: like(x)
samples: []
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x, int? n=None) -> Tensor"
fake: like(x)
samples: []
)md"},

    {Code::GeneratorWithoutSeededTag, "W0801", "an op that takes a Generator without the nondeterministic_seeded tag",
     R"md(A warning: an op that takes a `Generator` draws random numbers (dropout,
sampling). Without the `nondeterministic_seeded` tag, torch.compile's
partitioner may recompute it in the backward pass instead of saving its
output (activation memory is what it saves), and a recomputed random op
draws other numbers: the gradients then belong to another mask, silently.
With the tag the partitioner never recomputes it, and constant folding
leaves it alone. An op that only passes a generator on without drawing
from it loses nothing by the tag either.)md",
     R"md(# dropout.yaml
schema: "dropout(Tensor x, float p, Generator? gen=None) -> Tensor"
abi: unstable
fake: like(x)
samples: []
)md",
     R"md(# dropout.yaml
schema: "dropout(Tensor x, float p, Generator? gen=None) -> Tensor"
abi: unstable
tags: [nondeterministic_seeded]
fake: like(x)
samples: []
)md"},
    {Code::UnneededDynamicShapeTag, "W0802", "a dynamic-shape tag on an op whose fake has dynamic()",
     R"md(A warning: `dynamic_output_shape` and `data_dependent_output` tell
FakeTensor that an op's output shape cannot be known without running it;
it then skips its dispatch cache for the op, and raises for the first tag
when no fake is registered. An op whose fake rules size an output with
`dynamic()` (a `let` binding) has a registered fake that makes the unbacked
size itself, so the tags only cost the cache. Drop them.)md",
     R"md(# compact.yaml
schema: "compact(Tensor x, Tensor mask) -> Tensor"
abi: unstable
tags: [dynamic_output_shape]
let:
  n: dynamic(min=0)
fake: empty([n, *x.shape[1:]])
samples: []
)md",
     R"md(# compact.yaml
schema: "compact(Tensor x, Tensor mask) -> Tensor"
abi: unstable
let:
  n: dynamic(min=0)
fake: empty([n, *x.shape[1:]])
samples: []
)md"},

    {Code::NoSamples, "W1001", "an op without samples",
     R"md(A warning: `samples` give the generated test suite inputs to call the op
with. An op without them is left out of those tests. An op that cannot
have any (one that keeps state outside its tensors, such as a registry of
runner objects addressed by id) says so with `samples: []`, which silences
the warning. Warnings are shown only when there are no errors.)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
)md",
     R"md(# foo.yaml
schema: "foo(Tensor x) -> Tensor"
fake: like(x)
samples:
  - args:
      x: {shape: [4, 8]}
)md"},
};

struct Group {
  std::string_view prefix;  // the id's first three characters
  std::string_view title;
};

const Group kGroups[] = {
    {"E01", "YAML and the shape of a spec file"},
    {"E02", "Schema syntax"},
    {"E03", "Op names, arguments, types and the ABI"},
    {"E04", "Mutation and aliasing"},
    {"E05", "The rule language, let, fake and flops rules"},
    {"E06", "Checks and require"},
    {"E07", "Autograd"},
    {"E08", "Tags, CUDA graphs, compile fallbacks, dispatch, symmetric memory and autocast"},
    {"E09", "Files and output"},
    {"E10", "Samples"},
    {"E11", "Host objects, tensor subclasses and the types file"},
    {"W04", "Warnings: mutation and aliasing"},
    {"W08", "Warnings: tags"},
    {"W10", "Warnings: samples"},
};

}  // namespace

const std::vector<CodeInfo>& all_codes() {
  static const std::vector<CodeInfo> sorted = [] {
    std::vector<CodeInfo> codes = kCodes;
    std::stable_sort(codes.begin(), codes.end(), [](const CodeInfo& a, const CodeInfo& b) { return a.id < b.id; });
    return codes;
  }();
  return sorted;
}

const CodeInfo& code_info(Code code) {
  const size_t index = static_cast<size_t>(code);
  if (index < kCodes.size() && kCodes[index].code == code) return kCodes[index];
  for (const CodeInfo& info : kCodes)
    if (info.code == code) return info;
  throw std::logic_error("diagnostic code without an entry in the table");
}

const CodeInfo* find_code(std::string_view id) {
  for (const CodeInfo& info : kCodes)
    if (info.id == id) return &info;
  return nullptr;
}

std::string_view code_group(std::string_view id) {
  for (const Group& group : kGroups)
    if (id.substr(0, group.prefix.size()) == group.prefix) return group.title;
  return "Other";
}

}  // namespace opgen
