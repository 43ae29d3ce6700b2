// fmt's compiled part, built once for the tool's static build (the wheel).
//
// Debian ships fmt as headers plus a shared libfmt.so, and the wheel's tool
// must not need a shared fmt at run time. Header-only fmt (FMT_HEADER_ONLY)
// compiles fmt's implementation into every file that includes it: about 3 s
// a file at -O3. Instead every file sees fmt's declarations only, and this
// one file compiles the definitions (format-inl.h, which fmt's headers keep
// for exactly this) and instantiates the templates fmt's headers declare
// `extern` or leave undefined. A template missing here is a link error of the
// tool, never a silent difference; CMakeLists.txt uses this file only for
// the fmt major version it was written against.
#include <fmt/format-inl.h>

#if FMT_VERSION / 10000 != 9
#error "fmt_impl.cpp instantiates fmt 9's templates: codegen/CMakeLists.txt should have used header-only fmt"
#endif

FMT_BEGIN_NAMESPACE
namespace detail {

template FMT_API auto dragonbox::to_decimal(float x) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double x) noexcept -> dragonbox::decimal_fp<double>;

template FMT_API locale_ref::locale_ref(const std::locale& loc);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;

template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;

}  // namespace detail
FMT_END_NAMESPACE
