"""The ops whose every bound kernel the compiled objects define: `<ns> <op>` per line, from the specs' kernels."""
import re
import subprocess
import sys
from pathlib import Path

objects, schemas = Path(sys.argv[1]), Path(sys.argv[2])
defined = set()
for obj in sorted(objects.glob("*.o")):
    symbols = subprocess.run(["nm", "-C", "--defined-only", obj], capture_output=True, text=True, check=True).stdout
    defined |= {line.split(" T ", 1)[1].split("(")[0] for line in symbols.splitlines() if " T " in line}
for spec in sorted(schemas.glob("*/*.yaml")):
    kernels = [kernel for key, kernel in re.findall(r'^  (\w+): "([^"]+)"$', spec.read_text(), re.M) if key != "include"]
    if kernels and all(kernel in defined for kernel in kernels):
        print(spec.parent.name, spec.stem)
