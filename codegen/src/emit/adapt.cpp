// Existing functions as kernels (`kernels:`): include/<ns>/opgen_adapt.h,
// the adapter that calls a function with the schema's arguments converted to
// its own parameter types, and per kernel the static_asserts that name, in
// the spec's words, what cannot be converted.
#include <fmt/format.h>

#include "emit/common.h"
#include "emit/emit.h"
#include "model/types.h"
#include "support/printer.h"

namespace opgen::emit {

namespace {

// Plain C++20, no torch header: both ABIs include it.
constexpr const char* kAdaptHeader = R"cc(//
// Calls an existing function as an op's kernel (`kernels:` in a spec): each
// argument, as the generated wrapper holds it, is converted to the type of
// the function's parameter and passed as that parameter wants it (T, T&,
// const T&, T&&). What converts: what direct-initialization does (at::Tensor
// to at::Tensor&, int64_t to int, double to float, std::optional<T> to
// std::optional<U>), an ArrayRef to std::vector through its vec(), and a
// list of lists element by element (c10::List<c10::List<int64_t>> to
// std::vector<std::vector<int64_t>>); not
// an integer to a floating-point type or to bool, nor the reverse. A kernel
// that takes a tensor by non-const reference gets a handle on the same
// tensor: writes to its data are seen, a reassignment of the handle is not.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace $ns$::opgen_detail {

template <class T>
struct is_vector : std::false_type {};
template <class E, class A>
struct is_vector<std::vector<E, A>> : std::true_type {};

template <class F>
struct function_traits;
template <class R, class... A>
struct function_traits<R (*)(A...)> {
  using result = R;
  using params = std::tuple<A...>;
};
template <class R, class... A>
struct function_traits<R (*)(A...) noexcept> : function_traits<R (*)(A...)> {};

template <auto F>
inline constexpr std::size_t arity = std::tuple_size_v<typename function_traits<decltype(F)>::params>;
template <auto F, std::size_t I>
using param_t = std::tuple_element_t<I, typename function_traits<decltype(F)>::params>;

template <class To, class From>
constexpr bool converts() {
  if constexpr (std::is_arithmetic_v<To> && std::is_arithmetic_v<From>) {
    return std::is_same_v<To, bool> == std::is_same_v<From, bool> &&
           std::is_floating_point_v<To> == std::is_floating_point_v<From>;
  } else if constexpr (std::is_constructible_v<To, const From&>) {
    return true;
  } else if constexpr (requires(const From& from) { To(from.vec()); }) {
    return true;
  } else if constexpr (is_vector<To>::value && requires { typename From::value_type; }) {
    // A list of lists: each element as the list's own element type (c10::List hands out references).
    return requires(const From& from) { from.begin(); from.end(); } &&
           converts<typename To::value_type, typename From::value_type>();
  } else {
    return false;
  }
}

// Called qualified: unqualified, argument-dependent lookup would also find
// c10::convert for an ATen argument.
template <class To, class From>
To convert(const From& from) {
  if constexpr (std::is_constructible_v<To, const From&>) {
    return To(from);
  } else if constexpr (requires { To(from.vec()); }) {
    return To(from.vec());
  } else {
    To to;
    for (const auto& element : from)
      to.push_back(opgen_detail::convert<typename To::value_type>(static_cast<typename From::value_type>(element)));
    return to;
  }
}

// Whether F's parameter I can be given a From (false past F's arity).
template <auto F, std::size_t I, class From>
constexpr bool takes() {
  if constexpr (I < arity<F>)
    return converts<std::remove_cvref_t<param_t<F, I>>, From>();
  else
    return false;
}

// Whether F's result can be returned as R (anything can be dropped for void).
template <auto F, class R>
constexpr bool returns() {
  return std::is_void_v<R> || std::is_convertible_v<typename function_traits<decltype(F)>::result, R>;
}

template <auto F, class R, class... Given>
constexpr bool callable() {
  return arity<F> == sizeof...(Given) && returns<F, R>() &&
         []<std::size_t... I>(std::index_sequence<I...>) { return (takes<F, I, Given>() && ...); }(
             std::index_sequence_for<Given...>{});
}

template <auto F, class R, class... Given>
R call(const Given&... given) {
  if constexpr (callable<F, R, Given...>()) {
    return [&]<std::size_t... I>(std::index_sequence<I...>) -> R {
      std::tuple<std::remove_cvref_t<param_t<F, I>>...> locals{
          opgen_detail::convert<std::remove_cvref_t<param_t<F, I>>>(given)...};
      if constexpr (std::is_void_v<R>)
        static_cast<void>(F(std::forward<param_t<F, I>>(std::get<I>(locals))...));
      else
        return F(std::forward<param_t<F, I>>(std::get<I>(locals))...);
    }(std::index_sequence_for<Given...>{});
  } else {
    std::abort();  // never runs: the generated static_asserts have failed the build, naming what
  }
}

}  // namespace $ns$::opgen_detail
)cc";

}  // namespace

std::string adapt_header_path(const model::Library& lib) { return fmt::format("include/{}/opgen_adapt.h", lib.ns); }

std::string adapt_header(const model::Library& lib) {
  Printer p;
  p.emit(generated_header("//", std::string("opgen itself (the same for every library)")));
  p.emit(kAdaptHeader, {{"ns", lib.cpp_ns()}});
  return p.str();
}

std::string existing_kernel_adapter(const model::Library& lib, const model::OpSpec& op,
                                    const model::ExistingKernel& kernel) {
  const bool stable = op.abi.value == model::Abi::Stable;
  const auto& s = op.schema;
  const std::string function = kernel.function.value;
  const std::string fn = "&" + function;
  const std::string detail = lib.cpp_ns() + "::opgen_detail";
  const std::string ret = model::kernel_return_type(s, stable);
  const std::string who = fmt::format("{}: the {} kernel {} ({}, kernels:)", qualified_name(lib, op),
                                      kernel.dispatch_key.value, function, op.display_path);
  Printer p;
  p.line();
  p.line(fmt::format("// {}: the existing function {}, called with each argument converted", kernel.dispatch_key.value,
                     function));
  p.line("// to its parameter's type (" + lib.ns + "/opgen_adapt.h).");
  p.line(fmt::format("static_assert({}::arity<{}> == {}, {});", detail, fn, s.arguments.size(),
                     cpp_string_literal(fmt::format("{} must take the schema's {} argument{}, in its order", who,
                                                    s.arguments.size(), s.arguments.size() == 1 ? "" : "s"))));
  std::vector<std::string> params, names;
  for (size_t i = 0; i < s.arguments.size(); ++i) {
    const auto& a = s.arguments[i];
    const std::string type = model::kernel_param_type(a, stable);
    std::string value_type = type;
    if (value_type.starts_with("const ")) value_type.erase(0, 6);
    while (!value_type.empty() && value_type.back() == '&') value_type.pop_back();
    p.line(fmt::format("static_assert({}::takes<{}, {}, {}>(), {});", detail, fn, i, value_type,
                       cpp_string_literal(fmt::format("{}: its parameter {} cannot take argument '{}' ({}, passed as {})",
                                                      who, i, a.name, a.type ? a.type->to_string() : "", value_type))));
    params.push_back(type + " " + a.name);
    names.push_back(a.name);
  }
  p.line(fmt::format("static_assert({}::returns<{}, {}>(), {});", detail, fn, ret,
                     cpp_string_literal(fmt::format("{}: its result cannot be returned as {}, the schema's", who, ret))));
  p.line(fmt::format("{} {}_adapted({}) {{", ret, kernel_name(op, kernel.dispatch_key.value), fmt::join(params, ", ")));
  p.line(fmt::format("  {}{}::call<{}, {}>({});", ret == "void" ? "" : "return ", detail, fn, ret,
                     fmt::join(names, ", ")));
  p.line("}");
  return p.str();
}

// What the generated wrapper calls for a dispatch key: the adapter of an
// existing function, or the kernel opgen declared.
std::string kernel_callee(const model::Library& lib, const model::OpSpec& op, const std::string& dispatch_key) {
  if (op.existing_kernel(dispatch_key)) return kernel_name(op, dispatch_key) + "_adapted";
  return fmt::format("{}::kernels::{}", lib.cpp_ns(), kernel_name(op, dispatch_key));
}

}  // namespace opgen::emit
