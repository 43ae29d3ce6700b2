"""What an `opgen import` report says to take out of the build, done in a copy of the project's tree as its
maintainer would do it by hand: each range's lines emptied, so the copy's line numbers, and its compiler messages,
stay the original's. The report's forms:
  <file>:<first>-<last>: delete the block <head>
  <file>:<first>-<last>: in the block <head>, delete every registration but those of <ops>: lines <ranges>
  <file>:<first>-<last>: in the block <head>, delete the registrations of <ops>: lines <ranges>
  <file>:<lines>: delete <what> too, a Python module's init: ...
  drop <file> (nothing in it but those registrations)       (said, not done: the caller's build leaves it out)
A block the report gives no lines for (its registrations share lines with those that stay) is a person's edit:
an error here. So is a range that no longer begins with what the report names (the tree changed since the import),
rather than a build that silently differs.
  apply_deletions.py <import report> <tree> [<path prefix>]   (only the files under the prefix)"""
import re
import sys
from pathlib import Path

report, tree = Path(sys.argv[1]), Path(sys.argv[2])
prefix = sys.argv[3] if len(sys.argv) > 3 else ""
squeeze = lambda text: re.sub(r"\s+", "", text)  # noqa: E731 - the report prints a block's head without spaces
edits = {}  # file -> {(first, last, the text the range must hold, the lines to empty)}
for line in report.read_text().splitlines():
    if m := re.match(r" *drop (\S+) \(", line):
        if m[1].startswith(prefix):
            print(f"{m[1]}: left out of the build")
        continue
    m = re.match(r" *(\S+):(\d+)(?:-(\d+))?: (?:delete (?:the block )?(.+?)(?: too,| \(the rest)"
                 r"|in the block (.+?), delete (?:every registration but those of|the registrations of) [^:(]+"
                 r"(?:: lines? ([\d, -]+))?)", line)
    if not m or not m[1].startswith(prefix):
        continue
    file, first, last = m[1], int(m[2]), int(m[3] or m[2])
    if Path(file).is_absolute() or ".." in Path(file).parts:  # the copy is the only tree this edits
        sys.exit(f"{report}: '{file}' is not a path inside the tree")
    if m[4]:
        edits.setdefault(file, set()).add((first, last, m[4], ((first, last),)))
        continue
    if not m[6]:
        sys.exit(f"{file}:{first}-{last}: the report gives no lines to delete in the block {m[5]}: a person's edit")
    ranges = tuple(tuple(map(int, (r.split("-") * 2)[:2])) for r in m[6].replace(" ", "").split(","))
    if not all(first <= a <= b <= last for a, b in ranges):
        sys.exit(f"{file}:{first}-{last}: lines {m[6]} are not all in the block {m[5]}")
    edits.setdefault(file, set()).add((first, last, m[5], ranges))
if not edits:
    sys.exit(f"{report}: nothing to delete under '{prefix}'")
texts = {file: (tree / file).read_text().split("\n") for file in sorted(edits)}
for file, file_edits in sorted(edits.items()):  # every check before any edit, in any file
    for first, last, what, _ in sorted(file_edits):
        head_line = texts[file][first - 1].lstrip()  # the range begins with it, not a blank line before it
        if not (head_line.startswith(re.split(r"[\s(]", what)[0])
                and squeeze("".join(texts[file][first - 1:last])).startswith(squeeze(what))):
            sys.exit(f"{tree / file}:{first}-{last}: does not hold '{what}', which the report says to delete there")
for file, file_edits in sorted(edits.items()):
    lines = texts[file]
    for _, _, _, ranges in sorted(file_edits):
        for a, b in ranges:
            lines[a - 1:b] = [""] * (b - a + 1)
    (tree / file).write_text("\n".join(lines))
    print(f"{file}: {len(file_edits)} deleted")
