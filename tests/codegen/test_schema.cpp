// Tests for the function-schema model: parsing, PyTorch-canonical printing,
// error columns, default values. The expected strings were taken from
// `str(torch._C.parse_schema(s))` with torch 2.14; tests/python/
// test_schema_parity.py checks the whole registry and corpus against torch.
#include <gtest/gtest.h>

#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "model/schema.h"

namespace opgen::model {
namespace {

FunctionSchema parse_ok(const std::string& text, const ParseOptions& options = {}) {
  auto parsed = parse_schema(text, options);
  if (auto* err = std::get_if<SchemaError>(&parsed)) {
    ADD_FAILURE() << "failed to parse: " << text << "\n  column " << err->column << ": " << err->message;
    return {};
  }
  return std::get<FunctionSchema>(std::move(parsed));
}

SchemaError parse_error(const std::string& text, const ParseOptions& options = {}) {
  auto parsed = parse_schema(text, options);
  if (auto* schema = std::get_if<FunctionSchema>(&parsed)) {
    ADD_FAILURE() << "expected an error for: " << text << "\n  got: " << schema->to_string();
    return {};
  }
  return std::get<SchemaError>(std::move(parsed));
}

std::string canonical(const std::string& text) { return parse_ok(text).to_string(); }

// Canonical strings print back unchanged.
TEST(Schema, RoundTripsCanonicalText) {
  const char* schemas[] = {
      "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor",
      "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)",
      "aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
      "str padding=\"valid\", SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor",
      "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, "
      "int[2] dilation=1, bool ceil_mode=False) -> Tensor",
      "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, "
      "float eps=1.0000000000000001e-05, bool cudnn_enable=True) -> Tensor",
      "aten::_test_string_default(Tensor dummy, str a=\"\\\"\\'\\\\\", str b=\"\\\"\\'\\\\\") -> Tensor",
      "aten::lstrip(str self, str chars=\" \\n\\t\\f\\v\") -> str",
      "aten::pad_sequence(Tensor[] sequences, bool batch_first=False, float padding_value=0., "
      "str padding_side=\"right\") -> Tensor",
      "aten::min.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)",
      "aten::_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()",
      "aten::sym_is_contiguous(Tensor self, MemoryFormat memory_format=0) -> SymBool",
      "aten::to.dtype_layout(Tensor(a) self, *, ScalarType? dtype=None, Layout? layout=None, "
      "Device? device=None, bool? pin_memory=None, bool non_blocking=False, bool copy=False, "
      "MemoryFormat? memory_format=None) -> Tensor(a)",
      "aten::append.t(t[](a!) self, t(c -> *) el) -> t[](a!)",
      "aten::select.t(t[](a) list, int idx) -> t(*)",
      "aten::dict.str((str, tVal)[] inputs) -> Dict(str, tVal)",
      "aten::items.str(Dict(str, t) self) -> ((str, t)[])",
      "aten::wait(Future(t) self) -> t",
      "aten::owner(RRef(t) self) -> __torch__.torch.classes.dist_rpc.WorkerInfo",
      "prim::Print(...) -> ()",
      "prim::IgnoredPythonOp(...) -> NoneType",
      "prim::awaitable_wait(Await(t) self) -> t",
      "prim::id(AnyClassType? x) -> int",
      "aten::_cudnn_rnn_backward(Tensor input, Tensor[] weight, bool[4] output_mask) -> "
      "(Tensor, Tensor, Tensor, Tensor[])",
      "aten::to_here(RRef(t) self, float timeout=60.) -> t(*)",
      "aten::dropout(Tensor input, float p, bool train) -> Tensor",
      "aten::cosine_embedding_loss(Tensor input1, Tensor input2, Tensor target, float margin=0., "
      "int reduction=1) -> Tensor",
      "at::what(int[][4] foo) -> ()",
  };
  for (const char* text : schemas) EXPECT_EQ(canonical(text), text);
}

// Written forms and what PyTorch prints for them.
TEST(Schema, Canonicalizes) {
  const std::pair<const char*, const char*> cases[] = {
      // spacing
      {"foo(Tensor self, int a = 2) -> Tensor(a!)", "foo(Tensor self, int a=2) -> Tensor(a!)"},
      {"moe(Tensor a,Tensor! b)->()", "moe(Tensor a, Tensor($0! -> ) b) -> ()"},
      {"f(Tensor ? x, Tensor [] y,  Tensor ( a ! ) z) ->() ", "f(Tensor? x, Tensor[] y, Tensor(a!) z) -> ()"},
      {"a : : foo . bar (Tensor x) -> ()", "a::foo.bar(Tensor x) -> ()"},
      {"f(Tensor x) -> Tensor # a comment", "f(Tensor x) -> Tensor"},
      // floats: integral values as "1.", others with 17 significant digits
      {"f(float a=1e-6, float b=0.1, float c=1.5, float d=1, float e=-0.0, float g=1e16, float h=-5) -> ()",
       "f(float a=9.9999999999999995e-07, float b=0.10000000000000001, float c=1.5, float d=1., "
       "float e=0., float g=10000000000000000., float h=-5.) -> ()"},
      {"f(float a=1e19, float b=0x10, int c=0x10, int d=1E5, int e=1e3, float f=.5, int g=007) -> ()",
       "f(float a=1e+19, float b=16., int c=0, int d=1, int e=1000., float f=0.5, int g=7) -> ()"},
      // lists: `int[N] x=v` repeats v; an all-equal int list prints as one value
      {"f(int[2] a=[1,1], int[2] b=[1,2], int[2] c=3, float[2] d=3, SymInt[2] e=1, bool[2] g=True) -> ()",
       "f(int[2] a=1, int[2] b=[1, 2], int[2] c=3, float[2] d=[3., 3.], SymInt[2] e=[1, 1], "
       "bool[2] g=[True, True]) -> ()"},
      // named defaults become the enum values PyTorch stores
      {"f(ScalarType a=float, ScalarType? b=bfloat16, Layout c=strided, MemoryFormat d=contiguous_format, "
       "int e=Mean, ScalarType[] g=[int32, half]) -> ()",
       "f(ScalarType a=6, ScalarType? b=15, Layout c=0, MemoryFormat d=0, int e=1, ScalarType[] g=[3, 5]) -> ()"},
      // strings: single quotes, triple quotes, octal escapes, non-ASCII bytes
      {"f(str a='x', str b='''y''', str c=\"\\101\\001\", str d='\"q\"') -> ()",
       "f(str a=\"x\", str b=\"y\", str c=\"A\\001\", str d=\"\\\"q\\\"\") -> ()"},
      {"f(str a=\"\xc3\xa9\") -> ()", "f(str a=\"\\0)+\\/.)\") -> ()"},
      // non-str arguments print string defaults raw
      {"f(Device a=\"cuda:1\", Device? b=\"cpu\", int? c=\"s\", Device d=\"cuda:300\") -> ()",
       "f(Device a=cuda:1, Device? b=cpu, int? c=s, Device d=cuda:44) -> ()"},
      // types: aliases, optionals, nested containers (inner aliases dropped, inner
      // SymInt/ScalarType become int), aliases types printed as PyTorch does
      {"f(Tensor(a3!)?[] w, Tensor[]! y, Tensor!? z, Tensor(a)[][] v, int?? n) -> (Tensor!, Tensor(a -> *))",
       "f(Tensor?(a3!)[] w, Tensor[]($0! -> ) y, Tensor($1! -> )? z, Tensor[]()[] v, int? n) -> "
       "(Tensor($2! -> ), Tensor(a -> *))"},
      // alias sets print in reverse (PyTorch's unordered_set order for two sets)
      {"at::what(Tensor(b|c)[](a!) list, Tensor(c) element) -> (Tensor(b|c)[](a!))",
       "at::what(Tensor(c|b)[](a!) list, Tensor(c) element) -> Tensor(c|b)[](a!)"},
      {"f(Tensor(a!)[][] x, Tensor(a|b) y, Tensor(a|b -> b|a) z, Tensor(a -> a) w) -> ()",
       "f(Tensor[](!)[] x, Tensor(b|a) y, Tensor(b|a) z, Tensor(a) w) -> ()"},
      {"f(Dict(str, Tensor(a)) a, Dict(str, ScalarType[]) b, Future(SymInt) c, (Layout, SymInt?) d, "
       "Union(int, None) e, Union(None, str) g, Union(Tensor, int)(a!) h) -> ()",
       "f(Dict(str, Tensor) a, Dict(str, int[]) b, Future(int) c, (int, int?) d, int? e, str? g, "
       "Union(Tensor, int)(a!) h) -> ()"},
      {"f(DeviceIndex a, ConstQuantizerPtr b, None c) -> ()", "f(int a, int b, NoneType c) -> ()"},
      {"f(int[4294967298] a, int[2.7] b) -> ()", "f(int[2] a, int[2] b) -> ()"},
      // a size past INT_MAX wraps negative, into a print neither parser reads back (fuzz_schema)
      {"f(int[2147483649] a) -> ()", "f(int[-2147483647] a) -> ()"},
      // an all-equal int list default prints as one value even without a size,
      // which neither parser reads back (fuzz_schema)
      {"f(int[]on=[1,1,1,1], int[] c=[3]) -> ()", "f(int[] on=1, int[] c=[3]) -> ()"},
      // returns: parentheses only where needed
      {"f() -> (Tensor x)", "f() -> Tensor x"},
      {"f() -> (Tensor)", "f() -> Tensor"},
      {"f() -> ((int, int))", "f() -> ((int, int))"},
      {"f() -> (...)", "f() -> ..."},
      {"f() -> (Tensor, ...)", "f() -> (Tensor, ...)"},
      // `*` prints once, before the first keyword-only argument
      {"f(Tensor x, *) -> ()", "f(Tensor x) -> ()"},
      {"f(*, *, int x) -> ()", "f(*, int x) -> ()"},
      {"f(*, ...) -> ()", "f(...) -> ()"},
  };
  for (const auto& [text, expected] : cases) EXPECT_EQ(canonical(text), expected) << "input: " << text;
}

TEST(Schema, NamesAndNamespaces) {
  auto s = parse_ok("my_ns::my_op.overload_1(Tensor x) -> Tensor");
  EXPECT_EQ(s.name.ns, "my_ns");
  EXPECT_EQ(s.name.name, "my_op");
  EXPECT_EQ(s.name.overload, "overload_1");
  EXPECT_EQ(s.name.qualified(), "my_ns::my_op");
  EXPECT_EQ(s.name.to_string(), "my_ns::my_op.overload_1");

  auto bare = parse_ok("my_op(Tensor x) -> Tensor");
  EXPECT_EQ(bare.name.ns, "");
  EXPECT_EQ(bare.name.qualified(), "my_op");
  EXPECT_EQ(bare.to_string(), "my_op(Tensor x) -> Tensor");

  // As in torch.library.custom_op, the name may be left out altogether.
  auto nameless = parse_ok("(Tensor x, *, Tensor y) -> Tensor");
  EXPECT_EQ(nameless.name.name, "");
  EXPECT_EQ(nameless.to_string(), "(Tensor x, *, Tensor y) -> Tensor");
}

TEST(Schema, ArgumentsAndReturns) {
  auto s = parse_ok("ns::f(Tensor self, int[2] k, *, Tensor(a!) out) -> (Tensor(a!) out, int[] n)");
  ASSERT_EQ(s.arguments.size(), 3u);
  EXPECT_EQ(s.arguments[0].name, "self");
  EXPECT_FALSE(s.arguments[0].kwarg_only);
  EXPECT_EQ(s.arguments[0].column, 6u);  // "Tensor self"
  EXPECT_EQ(s.arguments[1].column, 19u);  // "int[2] k"
  EXPECT_EQ(s.arguments[1].type->kind, Type::Kind::List);
  EXPECT_EQ(s.arguments[1].type->fixed_size, 2);
  EXPECT_TRUE(s.arguments[1].type->element().is_named("int"));
  EXPECT_TRUE(s.arguments[2].kwarg_only);
  ASSERT_TRUE(s.arguments[2].type->alias);
  EXPECT_TRUE(s.arguments[2].type->alias->is_write);
  EXPECT_EQ(s.arguments[2].type->alias->before_sets, std::vector<std::string>{"a"});
  EXPECT_TRUE(s.arguments[2].type->alias->after_sets.empty());

  ASSERT_EQ(s.returns.size(), 2u);
  EXPECT_EQ(s.returns[0].name, "out");
  EXPECT_EQ(s.returns[0].column, 52u);
  EXPECT_EQ(s.returns[0].to_string(), "Tensor(a!) out");
  EXPECT_EQ(s.returns[1].type->to_string(), "int[]");
  EXPECT_FALSE(s.is_vararg);
  EXPECT_FALSE(s.is_varret);

  auto var = parse_ok("prim::f(Tensor x, ...) -> ...");
  EXPECT_TRUE(var.is_vararg);
  EXPECT_TRUE(var.is_varret);
  EXPECT_TRUE(var.returns.empty());

  auto none = parse_ok("f(Tensor x) -> ()");
  EXPECT_TRUE(none.returns.empty());
}

TEST(Schema, AliasesAttachToTheNodeTheyFollow) {
  auto s = parse_ok("f(Tensor(a!)[] x, Tensor[](b!) y, Tensor(c)? z, Tensor(d -> e|*) w) -> ()");
  const Type& x = *s.arguments[0].type;
  EXPECT_FALSE(x.alias);
  ASSERT_TRUE(x.element().alias);
  EXPECT_EQ(x.element().alias->to_string(), "(a!)");
  const Type& y = *s.arguments[1].type;
  ASSERT_TRUE(y.alias);
  EXPECT_FALSE(y.element().alias);
  const Type& z = *s.arguments[2].type;
  EXPECT_EQ(z.kind, Type::Kind::Optional);
  ASSERT_TRUE(z.element().alias);
  EXPECT_FALSE(z.element().alias->is_write);
  const AliasInfo& w = *s.arguments[3].type->alias;
  EXPECT_EQ(w.before_sets, std::vector<std::string>{"d"});
  EXPECT_EQ(w.after_sets, (std::vector<std::string>{"e", "*"}));
  EXPECT_EQ(w.to_string(), "(d -> *|e)");

  // `!` is a fresh write set per occurrence.
  auto fresh = parse_ok("f(Tensor! a, Tensor! b) -> ()");
  EXPECT_EQ(fresh.arguments[0].type->alias->before_sets, std::vector<std::string>{"$0"});
  EXPECT_EQ(fresh.arguments[1].type->alias->before_sets, std::vector<std::string>{"$1"});
  EXPECT_TRUE(fresh.arguments[1].type->alias->is_write);

  // A hand-built annotation (as the checker adds them) prints without an arrow.
  EXPECT_EQ((AliasInfo{{"a"}, {}, true}).to_string(), "(a!)");
}

TEST(Schema, TypeHelpers) {
  auto s = parse_ok("f(Tensor a, Tensor? b, Tensor[] c, Tensor?[] d, Tensor(a!)[]? e, int f, Tensor[][] g, "
                    "(Tensor, Tensor) h, Dict(str, Tensor) i) -> ()");
  std::vector<bool> tensor_like;
  for (const auto& arg : s.arguments) tensor_like.push_back(arg.type->is_tensor_like());
  EXPECT_EQ(tensor_like, (std::vector<bool>{true, true, true, true, true, false, false, false, false}));
  EXPECT_EQ(s.arguments[4].type->to_string(), "Tensor(a!)[]?");
  EXPECT_EQ(s.arguments[7].type->kind, Type::Kind::Tuple);
  EXPECT_EQ(s.arguments[8].type->kind, Type::Kind::Generic);
  EXPECT_EQ(s.arguments[8].type->name, "Dict");
  EXPECT_EQ(s.arguments[8].type->elements.size(), 2u);
}

TEST(Schema, DefaultValues) {
  auto s = parse_ok(
      "f(Tensor? a=None, bool b=True, int c=-3, float d=1e-6, float e=2, str g=\"it's\", str h='x\\ny', "
      "int[] i=[], int[2] j=1, float[] k=[0.5, 1], ScalarType l=float, MemoryFormat m=contiguous_format, "
      "int n=Mean, ScalarType? o=bfloat16, Device p=\"cuda:0\", bool[] q=[True, False], float r=1e16, "
      "float t=0.0001, float u=-0.0) -> ()");
  struct Expected {
    DefaultValue::Kind kind;
    const char* text;
    const char* python;
  };
  using K = DefaultValue::Kind;
  const Expected expected[] = {
      {K::None, "None", "None"},
      {K::Bool, "True", "True"},
      {K::Int, "-3", "-3"},
      {K::Float, "9.9999999999999995e-07", "1e-06"},
      {K::Float, "2.", "2.0"},
      {K::String, "\"it\\'s\"", "\"it's\""},
      {K::String, "\"x\\ny\"", "'x\\ny'"},
      {K::List, "[]", "[]"},
      {K::List, "1", "[1, 1]"},
      {K::List, "[0.5, 1.]", "[0.5, 1.0]"},
      {K::Identifier, "6", "torch.float32"},
      {K::Identifier, "0", "torch.contiguous_format"},
      {K::Identifier, "1", "1"},
      {K::Identifier, "15", "torch.bfloat16"},
      {K::String, "cuda:0", "'cuda:0'"},
      {K::List, "[True, False]", "[True, False]"},
      {K::Float, "10000000000000000.", "1e+16"},
      {K::Float, "0.0001", "0.0001"},
      {K::Float, "0.", "-0.0"},
  };
  ASSERT_EQ(s.arguments.size(), std::size(expected));
  for (size_t i = 0; i < s.arguments.size(); ++i) {
    const auto& arg = s.arguments[i];
    ASSERT_TRUE(arg.default_value) << arg.name;
    EXPECT_EQ(arg.default_value->kind, expected[i].kind) << arg.name;
    EXPECT_EQ(arg.default_value->text, expected[i].text) << arg.name;
    EXPECT_EQ(arg.default_value->to_python(), expected[i].python) << arg.name;
  }
  EXPECT_EQ(s.arguments[5].default_value->value, "it's");
  EXPECT_EQ(s.arguments[10].default_value->value, "float");
  EXPECT_EQ(s.arguments[3].default_value->value, "1e-06");
  EXPECT_EQ(s.arguments[8].default_value->items.size(), 2u);
}

TEST(Schema, PythonLiterals) {
  // Never produced by the parser (schemas cannot spell inf or nan), but a
  // hand-built value still renders as valid Python.
  EXPECT_EQ((DefaultValue{DefaultValue::Kind::Float, "inf", "", {}}).to_python(), "float('inf')");
  EXPECT_EQ((DefaultValue{DefaultValue::Kind::Float, "-inf", "", {}}).to_python(), "-float('inf')");
  EXPECT_EQ((DefaultValue{DefaultValue::Kind::Float, "nan", "", {}}).to_python(), "float('nan')");
  EXPECT_EQ((DefaultValue{DefaultValue::Kind::Float, "1e-05", "", {}}).to_python(), "1e-05");
  DefaultValue s{DefaultValue::Kind::String, "", "a'b\"c\\\x01\xc3\xa9", {}};
  EXPECT_EQ(s.to_python(), "'a\\'b\"c\\\\\\x01\xc3\xa9'");
  DefaultValue bad_utf8{DefaultValue::Kind::String, "", "\xff", {}};
  EXPECT_EQ(bad_utf8.to_python(), "'\\xff'");
}

TEST(Schema, TypeVariables) {
  // Off by default, as for custom ops, except in aten:: and prim::.
  EXPECT_EQ(parse_error("foo(t x) -> t").column, 4u);
  EXPECT_EQ(canonical("aten::foo(t x) -> t"), "aten::foo(t x) -> t");
  EXPECT_EQ(canonical("prim::foo(tVal x) -> tVal"), "prim::foo(tVal x) -> tVal");
  ParseOptions typevars;
  typevars.allow_type_variables = true;
  EXPECT_EQ(parse_ok("cuda::f(int64_t index) -> int", typevars).to_string(), "cuda::f(int64_t index) -> int");
  EXPECT_EQ(parse_ok("f(Tensor x) -> (int.x y)", typevars).to_string(), "f(Tensor x) -> int.x y");
  // Upper-case unknown names are never type variables.
  EXPECT_EQ(parse_error("f(Foo x) -> ()", typevars).column, 2u);
}

struct ErrorCase {
  const char* text;
  size_t column;
  const char* message;  // a substring of the message
};

TEST(Schema, ErrorsPointAtTheProblem) {
  const ErrorCase cases[] = {
      {"", 0, "expected an operator name but found end of input"},
      {"(", 1, "expected a type but found end of input"},
      {"foo", 3, "expected '(' to start the argument list"},
      {"foo12(Tensor a) -> asdfasdf", 19, "unknown type 'asdfasdf'"},
      {"foo12(asdf a) -> Tensor", 6, "unknown type 'asdf'"},
      {"foo12(int64_t a) -> Tensor", 6, "use 'int'"},
      {"foo12(double a) -> Tensor", 6, "use 'float'"},
      {"any.foo(int arg1, int arg2=0, ...)", 27, "cannot have default values"},
      {"f(Tensor x)", 11, "expected '->' but found end of input"},
      {"f(Tensor x) -> Tensor x y", 24, "expected end of schema but found 'y'"},
      {"f(Tensor x,) -> Tensor", 11, "expected a type but found ')'"},
      {"f(Tensor) -> Tensor", 8, "expected an argument name but found ')'"},
      {"f(Tensor in) -> Tensor", 9, "(a reserved word)"},
      {"f(..., Tensor x) -> ()", 7, "'...' must be the last element of the argument list"},
      {"f() -> (..., Tensor)", 13, "'...' must be the last element of the return list"},
      {"ns::f.default(Tensor x) -> ()", 6, "'default' is not a legal overload name"},
      {"ns::f.__call(Tensor x) -> ()", 6, "not a legal overload name"},
      {"ns:f(Tensor x) -> ()", 3, "expected ':' but found 'f'"},
      {"a::b::c(Tensor x) -> ()", 4, "expected '('"},
      {"f(Tensor(!) x) -> ()", 9, "expected an alias set name but found '!'"},
      {"f(Tensor(a) -> ()", 12, "expected an argument name but found '->'"},
      {"f(Tensor(*|a) x) -> ()", 11, "expected ')' but found 'a'"},
      {"f(Tensor?(a!) x) -> ()", 9, "expected an argument name but found '('"},
      {"f(int[4][] x) -> ()", 8, "expected an argument name but found '['"},
      {"f(int[-1] x) -> ()", 6, "expected a list size"},
      {"f(Tensor x=1) -> ()", 11, "only default allowed for a Tensor argument is None"},
      {"f(int x=foo) -> ()", 8, "invalid default value 'foo'"},
      {"f(float x=inf) -> ()", 10, "cannot spell inf"},
      {"f(float x=-inf) -> ()", 11, "expected a number after '-'"},
      {"f(int x=99999999999999999999) -> ()", 8, "out of range"},
      {"f(float x=1e999) -> ()", 10, "out of the range of a float"},
      {"f(int[] x=[1.5]) -> ()", 11, "must hold only int values"},
      {"f(str[] x=[\"a\"]) -> ()", 10, "list defaults are only supported"},
      {"f(int[]? x=[1]) -> ()", 11, "expected a default value but found '['"},
      {"f(Any x=None) -> ()", 8, "cannot have a default value"},
      {"f(str x=\"abc) -> ()", 8, "unterminated string literal"},
      {"f(str x=\"ab\\qc\") -> ()", 11, "invalid escape sequence"},
      {"f(str x=\"\\x41\") -> ()", 9, "hex escapes"},
      {"f(Device d=\"gpu\") -> ()", 11, "unknown device type 'gpu'"},
      {"f(Device d=\"cuda:01\") -> ()", 11, "invalid device string"},
      {"f(complex c=1j) -> ()", 12, "complex default values are not supported"},
      {"f(None? x) -> ()", 6, "NoneType cannot be optional"},
      {"f(Tensor x) $ -> ()", 12, "unexpected character '$'"},
      {"f(Tensor x)\n-> Tensor", 11, "expected '->' but found a line break"},
      {"f(Tensor x) -> ()\nTensor", 18, "expected end of schema but found 'Tensor'"},
      {"f(__torch__.torch.klasses.ns.C x) -> ()", 18, "expected 'classes'"},
  };
  for (const auto& c : cases) {
    SchemaError err = parse_error(c.text);
    EXPECT_EQ(err.column, c.column) << c.text << "\n  message: " << err.message;
    EXPECT_NE(err.message.find(c.message), std::string::npos)
        << c.text << "\n  expected '" << c.message << "' in: " << err.message;
  }
}

// As in PyTorch's lexer: newlines are whitespace inside brackets and at the
// ends; elsewhere they end the schema (see ErrorsPointAtTheProblem).
TEST(Schema, NewlinesAndTrailingWhitespace) {
  EXPECT_EQ(canonical("\n  f(Tensor x,\n    Tensor y) -> Tensor"), "f(Tensor x, Tensor y) -> Tensor");
  EXPECT_EQ(canonical("f(Tensor x) -> Tensor  \n\n"), "f(Tensor x) -> Tensor");
}

TEST(Schema, DeepNestingIsAnErrorNotACrash) {
  std::string deep = "f(" + std::string(10000, '(') + "int" + std::string(10000, ')') + " x) -> ()";
  EXPECT_NE(parse_error(deep).message.find("nested too deeply"), std::string::npos);
  std::string lists = "f(int";
  for (int i = 0; i < 10000; ++i) lists += "[]";
  EXPECT_NE(parse_error(lists + " x) -> ()").message.find("nested too deeply"), std::string::npos);
  EXPECT_NE(parse_error("f(int[100000] x=1) -> ()").message.find("cannot repeat"), std::string::npos);
}

// Every prefix and many random mutations of real schemas either parse or
// fail cleanly (with a column inside the text). Run under OPGEN_SANITIZE for
// memory errors; a deterministic seed keeps failures reproducible.
TEST(Schema, SurvivesMangledInput) {
  const std::string seeds[] = {
      "aten::conv2d.padding(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], "
      "str padding=\"valid\", SymInt[2] dilation=1, SymInt groups=1) -> Tensor",
      "ns::f(Tensor(a!)[] x, Tensor(b -> *|c)? y, Dict(str, t) d, *, str s='a\\101\\n', "
      "Device dev=\"cuda:1\", float f=-1.5e-3, ScalarType? dt=bfloat16, ...) -> ((int, Tensor)[] r, ...)",
      "f(__torch__.torch.classes.ns.Cls c, Union(int, None) u, Future(Tensor) fu, int[3]? n=None) -> "
      "(Tensor!, Tensor[]! ys)",
  };
  const std::string alphabet = "()[]<>?!*|,.:=-+'\"\\ \n#$0123456789abtTxje_";
  std::mt19937 rng(12345);
  for (const auto& seed : seeds) {
    for (size_t n = 0; n <= seed.size(); ++n) {
      auto parsed = parse_schema(seed.substr(0, n));
      if (auto* err = std::get_if<SchemaError>(&parsed)) {
        EXPECT_LE(err->column, n);
      }
    }
    for (int round = 0; round < 3000; ++round) {
      std::string text = seed;
      for (int edits = 1 + static_cast<int>(rng() % 3); edits > 0; --edits) {
        size_t at = rng() % (text.size() + 1);
        switch (rng() % 3) {
          case 0: text.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
          case 1: if (at < text.size()) text.erase(at, 1); break;
          default: if (at < text.size()) text[at] = static_cast<char>(rng() % 256); break;
        }
      }
      auto parsed = parse_schema(text);
      if (auto* schema = std::get_if<FunctionSchema>(&parsed)) {
        (void)schema->to_string();
        for (const auto& arg : schema->arguments) {
          if (arg.default_value) (void)arg.default_value->to_python();
        }
      } else {
        EXPECT_LE(std::get<SchemaError>(parsed).column, text.size()) << text;
      }
    }
  }
}

// The shared corpus of edge cases: every parser-layer row marked 'valid' must
// parse and every one marked 'invalid' must be rejected. Rows from other
// layers (torch.library API checks, codegen) are not the parser's business.
//
// One row is 'version_dependent': `at::foo(Tensor(!) self) -> Tensor`, an
// alias annotation without a set name. Older PyTorch accepted it; PyTorch 2.14
// (the version opgen tracks) rejects it with "expected ident but found '!'",
// and so does opgen. Name-less rows (`(Tensor x) -> Tensor`) are accepted, as
// torch.library.custom_op accepts them. Type variables stay off (the custom-op
// setting), which is what makes `foo12(asdf a) -> Tensor` invalid.
TEST(Schema, EdgeCaseCorpus) {
  const std::string path = OPGEN_SHARED_DIR "/corpus/schema_edge_cases.tsv";
  std::ifstream in(path);
  if (!in) GTEST_SKIP() << "no corpus at " << path;
  std::string line;
  std::getline(in, line);  // header
  int valid = 0, invalid = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream row(line);
    for (std::string field; std::getline(row, field, '\t');) fields.push_back(field);
    if (fields.size() < 3 || fields[1].rfind("parser", 0) != 0) continue;
    const std::string& expectation = fields[0];
    const std::string& schema = fields[2];
    auto parsed = parse_schema(schema);
    const bool accepted = std::holds_alternative<FunctionSchema>(parsed);
    if (expectation == "valid") {
      ++valid;
      EXPECT_TRUE(accepted) << schema << "\n  " << std::get<SchemaError>(parsed).message;
    } else if (expectation == "invalid" || expectation == "version_dependent") {
      ++invalid;
      EXPECT_FALSE(accepted) << schema;
    } else {
      ADD_FAILURE() << "unknown expectation '" << expectation << "'";
    }
  }
  EXPECT_GT(valid, 100);
  EXPECT_GT(invalid, 5);
}

}  // namespace
}  // namespace opgen::model
