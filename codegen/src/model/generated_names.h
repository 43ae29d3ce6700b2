// The names generated code binds, in one place (the model: both the checker
// and the emitters need them). The emitters take every per-op name from here,
// and the checker claims all of them (and the fixed names of the generated
// modules) up front, so that two ops, or an op and the module around it,
// never bind the same name.
#pragma once

#include <string>
#include <vector>

#include "model/spec.h"

namespace opgen::model {

// "rms_norm" / "add_Tensor": the op name usable as an identifier; the op's
// binding in the generated Python module and its .pyi.
std::string op_identifier(const model::OpSpec& op);
// "rms_norm_cpu": the kernel function for a dispatch key, in <ns>::kernels.
std::string kernel_name(const model::OpSpec& op, const std::string& dispatch_key);
// "_rms_norm_fake", "_rms_norm_setup_context", "_rms_norm_backward": the
// module-level functions of the generated Python module.
std::string fake_function(const model::OpSpec& op);
// An op that wraps its flat C++ op (OpSpec::wraps_flat_op): "_<op>_flat_fake",
// the flat op's fake, and "_<op>_wrapper", the op's kernel that calls it.
std::string flat_fake_function(const model::OpSpec& op);
std::string flat_op_wrapper_function(const model::OpSpec& op);
std::string setup_context_function(const model::OpSpec& op);
std::string backward_function(const model::OpSpec& op);
// Computes the backward arguments `autograd: bind:` gives, from the forward's arguments.
std::string backward_bindings_function(const model::OpSpec& op);
// "_rms_norm_flops": the FLOP formula FlopCounterMode calls (`flops:`).
std::string flops_function(const model::OpSpec& op);
// "_quantize_result_meta": the metadata of an op's tensor-subclass results.
std::string result_meta_function(const model::OpSpec& op);
// `compile:`: the public reason function, and the private fallback, its
// islands by reason and the imported traceable replacement.
std::string compile_reason_function(const model::OpSpec& op);
std::string compile_fallback_function(const model::OpSpec& op);
std::string compile_islands(const model::OpSpec& op);
std::string compile_replacement(const model::OpSpec& op);
// "_rms_norm_cpu_kernel": the wrapper the package registers for a Python kernel.
std::string python_kernel_function(const model::OpSpec& op, const std::string& dispatch_key);
// "opgen_<arg>": where autograd's ctx keeps a non-tensor input, a name no
// ctx attribute (saved_tensors, needs_input_grad, ...) can take, since
// arguments may not start with `opgen_`.
std::string ctx_attribute(const std::string& argument);

// `__all__ = ["rms_norm", ...]`: every op's binding, the same line in the
// generated module and its stub (so a type checker sees the star-import too).
std::string python_all_assignment(const model::Library& lib);

// Module-level names of the generated _ops.py and _ops.pyi that are not an
// op's: imports and helpers. A unit test holds the emitted modules to this list.
const std::vector<std::string>& fixed_module_names();

// The modules the .pyi imports for the annotations of the host classes and
// tensor subclasses the ops take or return ("mylib.quant" for mylib.quant.Float8Quantizer), sorted; an
// import binds the first part of each, which no op may take.
std::vector<std::string> host_class_modules(const model::Library& lib);

// A name one op makes the generated code bind.
struct BoundName {
  std::string name;
  const char* what;  // "the Python binding", "the fake", "a kernel function", ...
};
// Every name `op` binds: in the Python module (its binding, fake, autograd
// functions) and in C++ (its kernel functions).
std::vector<BoundName> names_bound_by(const model::OpSpec& op);

}  // namespace opgen::model
