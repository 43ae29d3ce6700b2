"""Every result of one side against the other's, bit for bit (floats compared as their bytes, so NaNs and
signed zeros count).
  compare.py <project.pt> <imported.pt>"""
import sys

import torch


def as_bytes(t):
    return t.contiguous().view(torch.uint8) if t.is_floating_point() else t


def parts(value):
    return value if isinstance(value, tuple) else (value,)


project, imported = torch.load(sys.argv[1]), torch.load(sys.argv[2])
assert project.keys() == imported.keys(), set(project) ^ set(imported)
differ = [name for name in project
          if not all(torch.equal(as_bytes(a), as_bytes(b)) for a, b in zip(parts(project[name]), parts(imported[name])))]
print(f"{len(project) - len(differ)} of {len(project)} results bit-identical", *differ)
sys.exit(1 if differ else 0)
