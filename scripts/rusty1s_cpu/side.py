"""One side of a comparison (build.sh): torch.ops.<package> as the package's own extensions register it, or as the
package opgen generated does (which loads the library built from the imported specs and the same kernels)."""
import glob
import importlib
import sys

import torch


def load_side(side, out_dir, package):
    if side == "project":
        for library in sorted(glob.glob(f"{out_dir}/build-project/_*_cpu.so")):
            torch.ops.load_library(library)
    else:
        sys.path.insert(0, f"{out_dir}/build-imported/python")
        importlib.import_module(f"{package}_ops")  # defines the ops, loads the library (their kernels)
    torch.set_num_threads(2)
    return getattr(torch.ops, package)
