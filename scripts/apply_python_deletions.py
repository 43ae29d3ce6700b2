"""What an `opgen import` report says to change in the project's Python, done in a copy of its tree as its maintainer
would do it by hand, line numbers kept but for one import line a custom_op switch adds at the top. The report's forms:
  next: take out the project's defs of the N ops the specs define (...): <file>:<line>[-<last>], ...
  next: take out the project's registrations of the N fakes the specs take (...): <file>:<line>, ...
      each statement's lines emptied, the functions they decorated or named left in place (the package registers them)
  next: replace the custom_op and triton_op decorators and calls of the N functions ... with op_kernel("<ns>::<op>")
        (...), `from <package>._opgen_runtime import op_kernel` (...): <file>:<line>[-<last>], ...
      each decorator's first line `@op_kernel("<the op it named>")`, each call's `op_kernel("<the op>")(<its function>)`
      (`name = ` kept), their other lines emptied; the import added to the file
  next: import the package where the project's Python imported <module>, ... (`import <package> as <module>`): ...
      each of those import statements that statement
  next: import the package where direct_register_custom_op is defined, ... (`import <package>  # noqa: F401`): <file>:<line>
      that statement added to the file, as op_kernel's import is
A statement taken out of a block it was the only statement of leaves `pass` in its place, so the block stays one.
A location that does not begin a decorator or a call the report means (the tree changed since the import), one
whose statement goes on past the lines given, or a changed file that no longer parses, is an error: a person's edit,
not a silently different program (nothing is written then).
  apply_python_deletions.py <import report> <tree>"""
import ast
import re
import sys
from pathlib import Path

report, tree = Path(sys.argv[1]), Path(sys.argv[2])
TAKE_OUT = re.compile(r" *next: take out the project's (?:defs of the \d+ ops|registrations of the \d+ fakes)"
                      r"[^(]*\([^)]*\): (.*)$")
SWITCH = re.compile(r" *next: replace the custom_op (?:decorators|and triton_op decorators and calls) of the \d+ functions "
                    r".*?`from (\S+) import op_kernel`"
                    r" \([^)]*\): (.*)$")
HELPER = re.compile(r" *next: import the package where direct_register_custom_op is defined, .*?\(`(import \S+  # noqa: F401)`\)"
                    r": (.*)$")
MODULE = re.compile(r" *next: import the package where the project's Python imported (\w+), .*?\(`(import \S+ as \w+)`\)"
                    r": (.*)$")
WHAT = re.compile(r"\s*@?(\w+\s*=\s*)?[\w.]*(define|register_fake|impl_abstract|custom_op|triton_op|register_custom_op)\b")
# A custom_op (triton_op) the switch replaces: decorating a def, or called, `name = custom_op("ns::op", fn, ...)` or
# `custom_op("ns::op", ...)(fn)`.
DEFINER = re.compile(r"(\s*)(@|\w+\s*=\s*)?[\w.]*\b(?:custom_op|triton_op)\(\s*(\"[^\"]*\")")
edits = {}  # file -> [(first, last, the package whose op_kernel replaces a custom_op decorator, or None)]
imports = {}  # file -> {line: (the module it imported, the statement that replaces it)}
added = {}  # file -> statements added before its first import


def places(listed, runtime):
    for where in listed.split(", "):
        file, _, lines = where.rpartition(":")
        if not file.endswith(".py"):
            sys.exit(f"{report}: '{where}' is not a place in a Python file")
        if Path(file).is_absolute() or ".." in Path(file).parts:  # the copy is the only tree this edits
            sys.exit(f"{report}: '{file}' is not a path inside the tree")
        first, last = (int(n) for n in (lines.split("-") * 2)[:2])
        edits.setdefault(file, []).append((first, last, runtime))


for line in report.read_text().splitlines():
    if m := TAKE_OUT.match(line):
        places(m[1], None)
    elif m := SWITCH.match(line):
        places(m[2], m[1])
    elif m := HELPER.match(line):
        file = m[2].rpartition(":")[0]
        if not file.endswith(".py") or Path(file).is_absolute() or ".." in Path(file).parts:
            sys.exit(f"{report}: '{m[2]}' is not a place in a Python file of the tree")
        added.setdefault(file, []).append(m[1])
    elif m := MODULE.match(line):
        for where in m[3].split(", "):
            file, _, number = where.rpartition(":")
            if not file.endswith(".py") or Path(file).is_absolute() or ".." in Path(file).parts:
                sys.exit(f"{report}: '{where}' is not a place in a Python file of the tree")
            imports.setdefault(file, {})[int(number)] = (m[1], m[2])
if not edits and not imports and not added:
    sys.exit(f"{report}: no Python to change")
texts = {file: (tree / file).read_text().split("\n") for file in sorted(set(edits) | set(imports) | set(added))}
for file in texts:  # the report's lines inside the file
    last_line = max([last for _, last, _ in edits.get(file, [])] + list(imports.get(file, {})) + [0])
    if last_line > len(texts[file]):
        sys.exit(f"{tree / file}: has no line {last_line}, which the report names")
for file, statements in sorted(imports.items()):
    for number, (module, _) in sorted(statements.items()):
        text = texts[file][number - 1].strip()
        if not re.fullmatch(rf"(from [\w.]+ import {module}|import [\w.]+\.{module})", text):
            sys.exit(f"{tree / file}:{number}: imports no module {module}: '{text}'")
for file, ranges in sorted(edits.items()):  # every check before any edit, in any file
    for first, last, runtime in ranges:
        statement = "\n".join(texts[file][first - 1:last])
        if not WHAT.match(statement) or (runtime and not DEFINER.match(statement)):
            sys.exit(f"{tree / file}:{first}: holds no registration the report names: '{texts[file][first - 1]}'")
        if statement.count("(") != statement.count(")"):
            sys.exit(f"{tree / file}:{first}-{last}: the statement goes on past these lines: a person's edit")
def indent(line):
    return len(line) - len(line.lstrip())


def pass_where_a_block_empties(lines, first, last):
    """`pass` on the first of lines first..last (emptied) where they held the only statement of a block: the line
    before them opens it (ends with ':', less indented) and none after them is indented deeper than that opener."""
    before = next((lines[i] for i in range(first - 2, -1, -1) if lines[i].strip()), None)
    after = next((lines[i] for i in range(last, len(lines)) if lines[i].strip()), None)
    if before is not None and before.rstrip().endswith(":") and indent(lines[first - 1]) > indent(before) and \
            (after is None or indent(after) <= indent(before)):
        lines[first - 1] = " " * indent(lines[first - 1]) + "pass"
        return True
    return False


changed = {}  # file -> its new text, written once every file parses
for file, statements in sorted(imports.items()):
    for number, (_, statement) in sorted(statements.items()):
        line = texts[file][number - 1]
        texts[file][number - 1] = line[:len(line) - len(line.lstrip())] + statement
    if file not in edits:
        changed[file] = (texts[file], len(statements))


def insert_before_first_import(lines, statement):
    """After the module's docstring and __future__ imports: before its first import."""
    at = next((i for i, text in enumerate(lines) if re.match(r"(import|from) (?!__future__)", text)), 0)
    lines.insert(at, statement)
for file, ranges in sorted(edits.items()):
    lines = texts[file]
    runtimes = set()
    for first, last, runtime in ranges:
        head, statement = lines[first - 1], "\n".join(lines[first - 1:last])
        keeps_block = not runtime and pass_where_a_block_empties(lines, first, last)
        lines[first - 1:last] = ([lines[first - 1]] if keeps_block else [""]) + [""] * (last - first)
        if runtime:
            margin, lead, qualname = DEFINER.match(statement).groups()
            if lead == "@":
                lines[first - 1] = f"{margin}@op_kernel({qualname})"
            else:  # called: on the function it names second, or on the one it is applied to
                function = (re.match(r"[^,]*,\s*(\w+)\s*[,)]", statement[statement.index(qualname):]) or
                            re.search(r"\)\s*\(\s*(\w+)\s*\)\s*$", statement))
                if not function:
                    sys.exit(f"{tree / file}:{first}: names no function to switch: '{head}'")
                lines[first - 1] = f"{margin}{lead or ''}op_kernel({qualname})({function[1]})"
            runtimes.add(runtime)
    for runtime in sorted(runtimes):
        insert_before_first_import(lines, f"from {runtime} import op_kernel")
    changed[file] = (lines, len(ranges) + len(imports.get(file, {})))
for file, statements in sorted(added.items()):
    lines = changed[file][0] if file in changed else texts[file]
    for statement in statements:
        insert_before_first_import(lines, statement)
    changed[file] = (lines, (changed[file][1] if file in changed else 0) + len(statements))
for file, (lines, count) in sorted(changed.items()):
    try:
        ast.parse("\n".join(lines), filename=str(tree / file))
    except SyntaxError as error:
        sys.exit(f"{tree / file}:{error.lineno}: the changed file does not parse ({error.msg}): a person's edit; "
                 "nothing was written")
for file, (lines, count) in sorted(changed.items()):
    (tree / file).write_text("\n".join(lines))
    print(f"{file}: {count} changed")
