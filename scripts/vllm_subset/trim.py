"""vLLM's torch_bindings.cpp with the registrations of the ops outside `keep` blanked out (lines kept, so
line numbers hold): the project's own binding layer for the kernels built here, nothing else changed."""
import re, sys
# Comments blanked first: they quote registrations too (`ops.impl("op_name", &func)`).
text = re.sub(r"//[^\n]*", lambda m: " " * len(m.group(0)), open(sys.argv[1]).read())
keep = {}
for line in open(sys.argv[2]):
    ns, op = line.split()
    keep.setdefault(ns, set()).add(op)
out, i = [], 0
block_ns = None
pattern = re.compile(r'STABLE_TORCH_LIBRARY(?:_FRAGMENT|_IMPL)?\(\s*(\w+)|\b\w+\.(def|impl)\(')
pos = 0
result = []
while True:
    m = pattern.search(text, pos)
    if not m:
        result.append(text[pos:]); break
    if m.group(1):
        block_ns = m.group(1)
        result.append(text[pos:m.end()]); pos = m.end(); continue
    # a statement: to its `);` at depth 0
    depth, j = 0, m.end() - 1
    while j < len(text):
        c = text[j]
        if c == '"':
            j = text.index('"', j + 1) if True else j
            while text[j - 1] == '\\': j = text.index('"', j + 1)
        elif c == '(': depth += 1
        elif c == ')':
            depth -= 1
            if depth == 0: break
        j += 1
    end = text.index(';', j) + 1
    statement = text[m.start():end]
    literal = "".join(re.findall(r'"((?:[^"\\]|\\.)*)"', statement.split(',')[0] if m.group(2) == 'impl' else statement))
    name = re.match(r'\s*(?:\w+::)?([\w.]+)', literal).group(1).split('.')[0]
    kept = name in keep.get(block_ns, ())
    result.append(text[pos:m.start()])
    result.append(statement if kept else re.sub(r'[^\n]', ' ', statement))
    pos = end
open(sys.argv[3], 'w').write("".join(result))
