"""The ops whose every bound kernel the project side's compiled kernels define, and the kernel sources each
namespace's library then needs: the sources whose objects define its ops' kernels, and those defining what
they call (the kernel entries of vLLM's GEMMs call kernels in files of their own).
  keep.py <objects dir> <schemas dir> <keep.txt> <sources.txt> <vLLM's csrc>
The objects are CMake's, anywhere under the directory (`.../csrc/libtorch_stable/<path>.cu.o`); a kernel the
spec's header defines inline (`weak_ref_tensor` in ops.h) needs none.
keep.txt: `<ns> <op>` per line; sources.txt: `<ns> <path under csrc/libtorch_stable, without .cu>` per line."""
import re
import subprocess
import sys
from pathlib import Path

objects, schemas, keep_file, sources_file, csrc = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4], Path(sys.argv[5])


def symbols(obj, *options):
    """(type, name) of each symbol nm lists."""
    listing = subprocess.run(["nm", *options, obj], capture_output=True, text=True, check=True).stdout
    return re.findall(r"^[0-9a-f]* +(\w) (.+)$", listing, re.M)


functions = {}  # a function, demangled without its parameters -> the sources that define it
defines, needs = {}, {}  # source -> the (mangled) symbols it defines strongly / leaves undefined
for obj in sorted(objects.rglob("*.o")):
    if "/csrc/libtorch_stable/" not in obj.as_posix() or "_subset.cpp" in obj.name:  # CMake's probes, the bindings
        continue
    source = re.sub(r"\.cu\.o$|\.o$", "", obj.as_posix().split("/csrc/libtorch_stable/", 1)[1])
    for kind, name in symbols(obj, "-C", "--defined-only"):
        if kind == "T":
            functions.setdefault(name.split("(")[0], set()).add(source)
    # Explicit template instantiations are weak definitions (W): the GEMM entries call them.
    defines[source] = {name for kind, name in symbols(obj, "--defined-only") if kind in "TDBRWV"}
    needs[source] = {name for _, name in symbols(obj, "--undefined-only")}
definer = {}  # a symbol -> the first source (in path order) defining it
for source in sorted(defines):
    for name in defines[source]:
        definer.setdefault(name, source)


def closure(chosen):
    """`chosen` and the sources defining what they leave undefined, transitively."""
    todo, found = list(chosen), set(chosen)
    while todo:
        for name in needs[todo.pop()]:
            if (source := definer.get(name)) and source not in found:
                found.add(source)
                todo.append(source)
    return found


kept, sources = [], set()
for spec in sorted(schemas.glob("*/*.yaml")):
    entries = dict(re.findall(r'^  (\w+): "([^"]+)"$', spec.read_text(), re.M))
    header = csrc / entries.pop("include", "")  # vLLM's header, or one import copied beside the specs
    header = header.read_text() if header.is_file() else ""
    inline = {kernel for kernel in entries.values() if re.search(rf"\binline\b[^;{{}}]*\b{kernel}\s*\(", header)}
    kernels = [kernel for kernel in entries.values() if kernel not in inline]
    if entries and all(kernel in functions for kernel in kernels):
        kept.append(f"{spec.parent.name} {spec.stem}")
        sources |= {(spec.parent.name, source) for kernel in kernels for source in closure(functions[kernel])}
Path(keep_file).write_text("".join(line + "\n" for line in kept))
Path(sources_file).write_text("".join(f"{ns} {source}\n" for ns, source in sorted(sources)))
