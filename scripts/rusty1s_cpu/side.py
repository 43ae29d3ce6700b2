"""One side of a comparison (build.sh): torch.ops.<package> as the package's own extensions register it, or as the
package opgen generated does (which loads the library built from the imported specs and the same kernels)."""
import glob
import importlib
import os
import sys

import torch

KEYS = ("CPU", "CUDA", "Meta", "CompositeImplicitAutograd", "CompositeExplicitAutograd", "Autograd")


def load_side(side, out_dir, package):
    if side == "project":
        for library in sorted(glob.glob(f"{out_dir}/build-project/_*_cpu.so")):
            torch.ops.load_library(library)
    else:
        sys.path.insert(0, f"{out_dir}/build-imported/python")
        importlib.import_module(f"{package}_ops")  # defines the ops, loads the library (their kernels)
    torch.set_num_threads(2)
    ops = getattr(torch.ops, package)
    write_registrations(ops, side, out_dir)
    return ops


def write_registrations(ops, side, out_dir):
    """$OUT/<side>-registered.txt: each imported op's schema as torch holds it, and the keys it has kernels at, to
    diff against the other side's."""
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(f"{out_dir}/imported/schemas/*.yaml"))
    with open(f"{out_dir}/{side}-registered.txt", "w") as out:
        for name in names:
            handle = getattr(ops, name).default
            keys = [k for k in KEYS if torch._C._dispatch_has_kernel_for_dispatch_key(handle.name(), k)]
            out.write(f"{handle._schema} {keys}\n")
