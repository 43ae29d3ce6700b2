// The schema model's tables (model/schema.cpp, model/schema_print.cpp):
// PyTorch's base types, the identifiers a default may name, the device
// types and the parser's limits. Internal to the schema model.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace opgen::model::detail {

// How an argument of a base type takes a default value (PyTorch's
// parseDefaultValue switches on the "fake" type kind).
enum class DefaultRule {
  NoneOnly,     // Tensor, Generator, Quantizer: only `=None`
  Constant,     // a single constant: number, True/False/None, string, known identifier
  Float,        // like Constant, but numbers always parse as float
  Complex,      // like Constant, but numbers parse as complex (not supported by opgen)
  Device,       // a device string: "cpu", "cuda:0"
  Unsupported,  // no default at all
};

// What a list of this element type may hold as a default (convertToList).
enum class ListElem { Int, Float, Bool, Complex, Unsupported };

struct BaseTypeInfo {
  std::string_view spelling;  // as written
  std::string_view name;      // as PyTorch prints it
  DefaultRule rule;
  ListElem list_elem;
  bool fake_int;  // parsed as `int` inside Dict/Tuple/Future/... (PyTorch's fake type)
};

// PyTorch's SchemaTypeParser::parseBaseType type_map, plus Tensor.
inline constexpr std::array kBaseTypes = {
    BaseTypeInfo{"Tensor", "Tensor", DefaultRule::NoneOnly, ListElem::Unsupported, false},
    BaseTypeInfo{"Generator", "Generator", DefaultRule::NoneOnly, ListElem::Unsupported, false},
    BaseTypeInfo{"Quantizer", "Quantizer", DefaultRule::NoneOnly, ListElem::Unsupported, false},
    BaseTypeInfo{"int", "int", DefaultRule::Constant, ListElem::Int, false},
    BaseTypeInfo{"ConstQuantizerPtr", "int", DefaultRule::Constant, ListElem::Int, false},
    BaseTypeInfo{"DeviceIndex", "int", DefaultRule::Constant, ListElem::Int, false},
    BaseTypeInfo{"SymInt", "SymInt", DefaultRule::Constant, ListElem::Int, true},
    BaseTypeInfo{"ScalarType", "ScalarType", DefaultRule::Constant, ListElem::Int, true},
    BaseTypeInfo{"Layout", "Layout", DefaultRule::Constant, ListElem::Int, true},
    BaseTypeInfo{"MemoryFormat", "MemoryFormat", DefaultRule::Constant, ListElem::Int, true},
    BaseTypeInfo{"bool", "bool", DefaultRule::Constant, ListElem::Bool, false},
    BaseTypeInfo{"float", "float", DefaultRule::Float, ListElem::Float, false},
    BaseTypeInfo{"complex", "complex", DefaultRule::Complex, ListElem::Complex, false},
    BaseTypeInfo{"str", "str", DefaultRule::Constant, ListElem::Unsupported, false},
    BaseTypeInfo{"Scalar", "Scalar", DefaultRule::Constant, ListElem::Unsupported, false},
    BaseTypeInfo{"Device", "Device", DefaultRule::Device, ListElem::Unsupported, false},
    BaseTypeInfo{"Storage", "Storage", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"QScheme", "QScheme", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"Stream", "Stream", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"SymBool", "SymBool", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"None", "NoneType", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"NoneType", "NoneType", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"Capsule", "Capsule", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"Any", "Any", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"AnyClassType", "AnyClassType", DefaultRule::Unsupported, ListElem::Unsupported, false},
    BaseTypeInfo{"AnyEnumType", "AnyEnumType", DefaultRule::Unsupported, ListElem::Unsupported, false},
};

// Looked up by printed name, which is what Type::name holds.
inline const BaseTypeInfo* find_base_type(std::string_view spelling) {
  for (const auto& info : kBaseTypes)
    if (info.spelling == spelling) return &info;
  return nullptr;
}

// Identifiers allowed as default values. PyTorch stores them as the integer
// value of the enum they name, and prints that integer.
struct NamedDefault {
  std::string_view name;
  int64_t value;
  std::string_view python;
};

// Accepted for any int-like argument (PyTorch keeps these for BC).
inline constexpr std::array kAnyTypeNamedDefaults = {
    NamedDefault{"float", 6, "torch.float32"},
    NamedDefault{"complex", 9, "torch.complex64"},
    NamedDefault{"long", 4, "torch.int64"},
    NamedDefault{"strided", 0, "torch.strided"},
    NamedDefault{"Mean", 1, "1"},  // at::Reduction::Mean; reductions are plain ints in Python
    NamedDefault{"contiguous_format", 0, "torch.contiguous_format"},
};

// Accepted only for ScalarType / ScalarType? arguments (c10::getStringToDtypeMap).
inline constexpr std::array kDtypeNamedDefaults = {
    NamedDefault{"uint8", 0, "torch.uint8"},
    NamedDefault{"int8", 1, "torch.int8"},
    NamedDefault{"int16", 2, "torch.int16"},
    NamedDefault{"short", 2, "torch.int16"},
    NamedDefault{"int32", 3, "torch.int32"},
    NamedDefault{"int", 3, "torch.int32"},
    NamedDefault{"int64", 4, "torch.int64"},
    NamedDefault{"float16", 5, "torch.float16"},
    NamedDefault{"half", 5, "torch.float16"},
    NamedDefault{"float32", 6, "torch.float32"},
    NamedDefault{"float64", 7, "torch.float64"},
    NamedDefault{"double", 7, "torch.float64"},
    NamedDefault{"complex32", 8, "torch.complex32"},
    NamedDefault{"chalf", 8, "torch.complex32"},
    NamedDefault{"complex64", 9, "torch.complex64"},
    NamedDefault{"cfloat", 9, "torch.complex64"},
    NamedDefault{"complex128", 10, "torch.complex128"},
    NamedDefault{"cdouble", 10, "torch.complex128"},
    NamedDefault{"bool", 11, "torch.bool"},
    NamedDefault{"qint8", 12, "torch.qint8"},
    NamedDefault{"quint8", 13, "torch.quint8"},
    NamedDefault{"qint32", 14, "torch.qint32"},
    NamedDefault{"bfloat16", 15, "torch.bfloat16"},
    NamedDefault{"quint4x2", 16, "torch.quint4x2"},
    NamedDefault{"quint2x4", 17, "torch.quint2x4"},
    NamedDefault{"bits1x8", 18, "torch.bits1x8"},
    NamedDefault{"bits2x4", 19, "torch.bits2x4"},
    NamedDefault{"bits4x2", 20, "torch.bits4x2"},
    NamedDefault{"bits8", 21, "torch.bits8"},
    NamedDefault{"bits16", 22, "torch.bits16"},
    NamedDefault{"float8_e5m2", 23, "torch.float8_e5m2"},
    NamedDefault{"float8_e4m3fn", 24, "torch.float8_e4m3fn"},
    NamedDefault{"float8_e5m2fnuz", 25, "torch.float8_e5m2fnuz"},
    NamedDefault{"float8_e4m3fnuz", 26, "torch.float8_e4m3fnuz"},
    NamedDefault{"uint16", 27, "torch.uint16"},
    NamedDefault{"uint32", 28, "torch.uint32"},
    NamedDefault{"uint64", 29, "torch.uint64"},
    NamedDefault{"uint1", 30, "torch.uint1"},
    NamedDefault{"bit", 30, "torch.uint1"},
    NamedDefault{"uint2", 31, "torch.uint2"},
    NamedDefault{"uint3", 32, "torch.uint3"},
    NamedDefault{"uint4", 33, "torch.uint4"},
    NamedDefault{"uint5", 34, "torch.uint5"},
    NamedDefault{"uint6", 35, "torch.uint6"},
    NamedDefault{"uint7", 36, "torch.uint7"},
    NamedDefault{"int1", 37, "torch.int1"},
    NamedDefault{"int2", 38, "torch.int2"},
    NamedDefault{"int3", 39, "torch.int3"},
    NamedDefault{"int4", 40, "torch.int4"},
    NamedDefault{"int5", 41, "torch.int5"},
    NamedDefault{"int6", 42, "torch.int6"},
    NamedDefault{"int7", 43, "torch.int7"},
    NamedDefault{"float8_e8m0fnu", 44, "torch.float8_e8m0fnu"},
    NamedDefault{"float4_e2m1fn_x2", 45, "torch.float4_e2m1fn_x2"},
    NamedDefault{"bcomplex32", 46, "torch.bcomplex32"},
};

template <size_t N>
inline const NamedDefault* find_named(const std::array<NamedDefault, N>& table, std::string_view name) {
  for (const auto& entry : table)
    if (entry.name == name) return &entry;
  return nullptr;
}

// Device types c10::Device accepts in a string, as they print.
inline constexpr std::array<std::string_view, 20> kDeviceTypes = {
    "cpu", "cuda", "ipu", "xpu",  "mkldnn", "opengl", "opencl", "ideep", "hip",  "ve",
    "fpga", "maia", "xla", "lazy", "vulkan", "mps",    "meta",   "hpu",   "mtia", "privateuseone"};

// Guards against stack exhaustion on hostile input such as `((((...` or
// `int[][][]...`; real schemas nest a handful of levels.
inline constexpr int kMaxTypeDepth = 64;
// `int[N] x=1` repeats the value N times; refuse absurd N instead of
// allocating it (PyTorch would try).
inline constexpr int64_t kMaxRepeatedDefault = 1024;

}  // namespace opgen::model::detail
