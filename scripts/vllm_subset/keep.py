"""The ops whose every bound kernel the compiled objects define, and the kernel sources each namespace's
library then needs (the objects that define its ops' kernels).
  keep.py <objects dir> <schemas dir> <keep.txt> <sources.txt>
keep.txt: `<ns> <op>` per line; sources.txt: `<ns> <source>.cu` per line."""
import re
import subprocess
import sys
from pathlib import Path

objects, schemas, keep_file, sources_file = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
defined_in = {}  # function -> the object files that define it
for obj in sorted(objects.glob("*.o")):
    symbols = subprocess.run(["nm", "-C", "--defined-only", obj], capture_output=True, text=True, check=True).stdout
    for line in symbols.splitlines():
        if " T " in line:
            defined_in.setdefault(line.split(" T ", 1)[1].split("(")[0], set()).add(obj.stem)
kept, sources = [], set()
for spec in sorted(schemas.glob("*/*.yaml")):
    kernels = [kernel for key, kernel in re.findall(r'^  (\w+): "([^"]+)"$', spec.read_text(), re.M) if key != "include"]
    if kernels and all(kernel in defined_in for kernel in kernels):
        kept.append(f"{spec.parent.name} {spec.stem}")
        sources |= {(spec.parent.name, source) for kernel in kernels for source in defined_in[kernel]}
Path(keep_file).write_text("".join(line + "\n" for line in kept))
Path(sources_file).write_text("".join(f"{ns} {source}\n" for ns, source in sorted(sources)))
