"""The opgen runtime: what a generated `_ops.py` calls to register its ops
with PyTorch beyond the schemas themselves (the library file, host classes,
symmetric-memory arguments, CUDA-graph partitions, autocast rules).

This module is the one source. `opgen generate` writes a copy of it into
every package it generates, as `<package>/_opgen_runtime.py`, so a built or
installed package needs nothing of opgen at run time, torch alone; the copy
is byte-identical to this file and changes only with opgen. It imports only
the standard library and torch.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import os
import sys
import warnings

import torch

__all__ = [
    "handwritten",
    "host_fields",
    "import_handwritten",
    "load_library",
    "op_kernel",
    "partition_cudagraph_unsafe",
    "python_kernel",
    "register_autocast",
    "register_host_class",
    "register_symm_mem_args",
    "require_kernel",
    "require_meta_kernel",
    "triton_op",
]


# A torch.library.Library deregisters what it holds when it is collected.
_KEPT_LIBRARIES: list = []


def load_library(module_file: str, name: str, *, optional: bool = False) -> None:
    """Loads the op library `name`, which lies beside `module_file` (the
    generated _ops.py). `optional`: a library whose ops the package defines
    itself, loaded only where a build made it (the project's own kernels)."""
    path = os.path.join(os.path.dirname(os.path.abspath(module_file)), name)
    if optional and not os.path.exists(path):
        return
    torch.ops.load_library(path)


def require_kernel(qualname: str, key: str, what: str) -> None:
    """An op whose spec names a kernel registered outside it in place of a
    fake (`fake: {meta: ...}` or `{decomposes: ...}`, `what`): once the
    library is loaded, there must be one at `key`, or fake tensors and
    torch.compile fail far from the cause."""
    if not torch._C._dispatch_has_kernel_for_dispatch_key(qualname, key):
        raise ImportError(f"{what}: no {key} kernel of {qualname} is registered; build the source that registers "
                          "it into the library (its KERNELS), or give the op a fake of its own")


def require_meta_kernel(qualname: str, what: str) -> None:
    """require_kernel at Meta: `fake: {meta: ...}`."""
    require_kernel(qualname, "Meta", what)


def import_handwritten(target: str, what: str):
    """The function `target` (module:function) names, for `what` (an op's
    fake or compile replacement, and its spec)."""
    module, _, name = target.partition(":")
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        raise ImportError(f"{what} names {target}, which cannot be imported: {error}") from error


def handwritten(target: str, what: str):
    """The function `target` (module:function) names, for `what` (an op's fake and its spec), imported when it is
    first called, as a Python kernel is: its module may import this package (a project's module that registers
    kernels against the package's defs does), which importing it with the package would make a cycle. Fake
    tensors call it, not Dynamo's tracing, so the import is no graph break."""
    function = None

    def call(*args, **kwargs):
        nonlocal function
        if function is None:
            function = import_handwritten(target, what)
        return function(*args, **kwargs)

    call.__name__ = call.__qualname__ = target.rpartition(":")[2]
    return call


class OpKernel:
    """A Python kernel a spec names, under the name its module calls the op by: `@op_kernel("ns::op")`, in place
    of the `@torch.library.custom_op("ns::op", ...)` the project defined the op with (opgen import says where).
    The package defines the op and registers the function (`kernel`) as its kernel; a call of the name still
    calls the op, through the dispatcher (its autograd, autocast and fakes), as custom_op's object did."""

    def __init__(self, qualname: str, kernel) -> None:
        self.qualname = qualname
        self.kernel = kernel
        self.__name__ = getattr(kernel, "__name__", qualname)
        self.__qualname__ = getattr(kernel, "__qualname__", self.__name__)
        self.__doc__ = getattr(kernel, "__doc__", None)
        self.__module__ = getattr(kernel, "__module__", __name__)

    def __call__(self, *args, **kwargs):
        ns, _, name = self.qualname.partition("::")
        return getattr(getattr(torch.ops, ns), name)(*args, **kwargs)

    def __getattr__(self, attribute: str):
        # What the project called on its custom_op object (`fn.register_autograd(backward, setup_context=...)`,
        # `@fn.register_kernel("cpu")`, `fn.set_kernel_enabled(...)`): the object of the op the package defined
        # through custom_op (`define: custom_op`) has them all; on an op defined through Library, the
        # registrations go to torch.library's functions by the op's name.
        if attribute.startswith("__") or attribute in ("qualname", "kernel"):  # (before __init__: copy, pickle)
            raise AttributeError(attribute)
        from torch._library.custom_ops import _maybe_get_opdef

        opdef = _maybe_get_opdef(self.qualname)
        if opdef is not None:
            return getattr(opdef, attribute)
        by_name = {"register_fake", "register_autograd", "register_kernel", "register_autocast",
                   "register_torch_dispatch", "register_vmap"}
        if attribute in by_name:
            registration = getattr(torch.library, attribute)
            return lambda *args, **kwargs: registration(self.qualname, *args, **kwargs)
        raise AttributeError(f"{self.qualname} is not defined through custom_op ('define: custom_op' in its spec): "
                             f"its kernel's name has no {attribute}")

    def __repr__(self) -> str:
        return f"<the kernel of {self.qualname}: {self.__qualname__}>"


# Op -> its OpKernel, as its module's decorators made them: how a kernel is found whose module reuses its name
# (TorchMD-Net's warp ops are each `def _`, as are the fakes after them).
_OP_KERNELS: dict = {}


def op_kernel(qualname: str):
    """The decorator: see OpKernel."""

    def decorate(kernel):
        _OP_KERNELS[qualname] = OpKernel(qualname, kernel)
        return _OP_KERNELS[qualname]

    return decorate


def python_kernel(target: str, qualname: str):
    """The function a spec's `kernels: {KEY: {python: "module:name"}}` names for op `qualname`: the one an
    `@op_kernel(qualname)` in that module holds, else the module's `name` itself. A `_` is no name to find a
    function by (the module rebinds it), so it takes the decorator."""
    module, _, name = target.partition(":")
    imported = importlib.import_module(module)
    if qualname in _OP_KERNELS:
        return _OP_KERNELS[qualname].kernel
    if name == "_":
        raise ImportError(f"{qualname}'s kernel is {target}, which names no function of its own: decorate it "
                          f'@op_kernel("{qualname}") (from this package\'s _opgen_runtime) in place of its custom_op')
    found = getattr(imported, name)
    return found.kernel if isinstance(found, OpKernel) else found


def triton_op(qualname: str, kernel, *, mutates_args: tuple, schema: str):
    """torch.library.triton_op(qualname, kernel, ...) with the spec's schema (`define: triton_op`). torch 2.11's
    takes `schema=` and ignores it, inferring one from the function's type hints, which a generated kernel
    wrapper has none of: its inference is given the spec's for this one call."""
    from torch._library import triton as triton_library

    infer = getattr(triton_library, "infer_schema", None)
    if infer is not None:
        triton_library.infer_schema = lambda fn, mutates_args: schema
    try:
        return torch.library.triton_op(qualname, kernel, mutates_args=mutates_args, schema=schema)
    finally:
        if infer is not None:
            triton_library.infer_schema = infer


def register_host_class(path: str, kind: str, guarded: list) -> type:
    """Registers the class at `path` (module.Class) with PyTorch as an opaque
    type of `kind` (constant or symbolic; "value" or "reference" before 2.14),
    so ops take its objects whole; a symbolic one guarded on the fields
    opgen's fakes read (PyTorch >= 2.11). Returns the class."""
    try:
        from torch._library import opaque_object
    except ImportError as error:
        raise ImportError(f"torch {torch.__version__} has no opaque types (PyTorch >= 2.10): ops cannot take {path}") from error
    module, _, name = path.rpartition(".")
    try:
        cls = getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError) as error:
        raise ImportError(f"{path}, a host class ops take whole ('carry:'), cannot be imported: {error}") from error
    if f"{cls.__module__}.{cls.__qualname__}" != path:  # the type name PyTorch registers it under
        raise TypeError(f"{path} is {cls.__module__}.{cls.__qualname__}: 'class:' must name it where it is defined")
    is_registered = getattr(opaque_object, "is_custom_class", None) or opaque_object.is_opaque_type  # renamed in 2.14
    if is_registered(cls):
        return cls
    register = getattr(opaque_object, "register_custom_class", None)  # PyTorch >= 2.14
    if register is None:
        register, kind = opaque_object.register_opaque_type, {"constant": "value", "symbolic": "reference"}[kind]
    options = {}
    if guarded and kind in ("symbolic", "reference"):
        if hasattr(opaque_object, "MemberType"):
            options["guard_fn"] = lambda obj: [getattr(obj, field) for field in guarded]
            options["members"] = {field: opaque_object.MemberType.USE_REAL for field in guarded}
        else:
            warnings.warn(
                f"torch {torch.__version__} cannot read the fields {guarded} of a {path} while torch.compile traces "
                "(PyTorch >= 2.11): the ops taking one run eagerly, but cannot be compiled",
                RuntimeWarning,
                stacklevel=2,
            )
    register(cls, typ=kind, **options)
    return cls


def host_fields(classes: dict, cls: str, obj, op: str, arg: str) -> tuple:
    """The declared fields of `obj`, a host object of class `cls`, in the
    registered op's order. `classes` maps each class to its Python class, its
    fields and the function that reads them (the generated _HOST_CLASSES)."""
    python_class, fields, read = classes[cls]
    try:
        return read(obj)
    except AttributeError as error:
        raise TypeError(
            f"{op}: argument '{arg}' must be a {python_class} (with the fields {fields}), not {type(obj).__name__}"
        ) from error


def register_symm_mem_args(ns: str, args: dict) -> None:
    """Tells Inductor which arguments of the ops of `ns` (op -> argument
    names) it must allocate in symmetric memory (PyTorch >= 2.13); warns on
    an older torch, which cannot."""
    library = torch.library.Library(ns, "FRAGMENT")
    if not hasattr(library, "register_symm_mem_args"):
        warnings.warn(
            f"torch {torch.__version__} has no Library.register_symm_mem_args (PyTorch >= 2.13): the "
            f"symmetric-memory arguments of {ns} ops {args} are NOT registered, so Inductor "
            "will not allocate them in symmetric memory",
            RuntimeWarning,
            stacklevel=2,
        )
        return
    for op, names in args.items():
        library.register_symm_mem_args(op, names)
    _KEPT_LIBRARIES.append(library)


def partition_cudagraph_unsafe(ops: list) -> None:
    """Puts `ops` ("ns::op") on Inductor's partition list, so that it runs
    them outside CUDA graphs: what the cudagraph_unsafe tag does, for a
    stable-ABI target whose defs carry no tags (before 2.12). Importing
    torch._inductor.config costs seconds, so the ops are added when something
    else imports it (Inductor does before it schedules anything), or at once
    when it already was. Assigned, not appended, so config.patch() scopes
    still see them."""

    def partition(config) -> None:
        if not hasattr(config, "custom_should_partition_ops"):
            warnings.warn(
                f"torch {torch.__version__} has no torch._inductor.config.custom_should_partition_ops "
                f"(PyTorch >= 2.10): {ops} may be captured in CUDA graphs",
                RuntimeWarning,
                stacklevel=2,
            )
            return
        listed = config.custom_should_partition_ops
        config.custom_should_partition_ops = [*listed, *(op for op in ops if op not in listed)]

    class AfterInductorConfigImport(importlib.abc.MetaPathFinder):
        """Calls partition once torch._inductor.config is imported."""

        def find_spec(self, fullname, path, target=None):
            if fullname != "torch._inductor.config":
                return None
            sys.meta_path.remove(self)
            spec = importlib.util.find_spec(fullname)
            if spec is not None and spec.loader is not None:
                exec_module = spec.loader.exec_module

                def exec_and_partition(module):
                    exec_module(module)
                    partition(module)

                spec.loader.exec_module = exec_and_partition
            return spec

    if "torch._inductor.config" in sys.modules:
        partition(sys.modules["torch._inductor.config"])
    else:
        sys.meta_path.insert(0, AfterInductorConfigImport())


# torch 2.10 and 2.11's register_autocast installs each rule's Python-
# dispatcher kernel (the one torch.compile traces) under every Autocast key,
# with that rule's device type: an op's last rule replaced the others under
# torch.compile, so a `cuda` rule followed by a `cpu` one left CUDA inputs
# uncast in compiled code (seen on an H200). Each key gets its own back, the
# way later releases register it.
_AUTOCAST_KEYS = {"cpu": torch._C.DispatchKey.AutocastCPU, "cuda": torch._C.DispatchKey.AutocastCUDA}


def register_autocast(qualname: str, rules: list) -> None:
    """torch.library.register_autocast for each (device type, dtype), and each
    Autocast key's traced kernel its own rule's, where torch shared one."""
    for device_type, cast_inputs in rules:
        torch.library.register_autocast(qualname, device_type, cast_inputs)
    op = torch._library.utils.lookup_op(qualname)
    traced = [op.py_kernels.get(_AUTOCAST_KEYS[device_type]) for device_type, _ in rules]
    if len(rules) < 2 or traced[0] is None or any(kernel is not traced[0] for kernel in traced):
        return
    for device_type, cast_inputs in rules:
        key = _AUTOCAST_KEYS[device_type]

        def kernel(*args, _key=key, _device_type=device_type, _cast_inputs=cast_inputs):
            with torch._C._ExcludeDispatchKeyGuard(torch._C.DispatchKeySet(_key)):
                return op(*torch.amp.autocast_mode._cast(args, _device_type, _cast_inputs))

        op.py_kernels.pop(key)
        op.py_impl(key)(kernel)
