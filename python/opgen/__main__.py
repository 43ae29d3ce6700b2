"""`python -m opgen --cmake-dir | --json-schema | --version`, and the `opgen`
console script, which runs the tool the package carries."""

from __future__ import annotations

import argparse
import os
import sys

import opgen


def run_tool() -> None:
    """The `opgen` command: the bundled executable, with this process's arguments."""
    tool = str(opgen.executable())
    os.execv(tool, [tool, *sys.argv[1:]])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m opgen", description=opgen.__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    what = parser.add_mutually_exclusive_group(required=True)
    what.add_argument("--cmake-dir", action="store_true", help="print the directory holding opgenConfig.cmake")
    what.add_argument("--json-schema", action="store_true", help="print the path of the specs' JSON Schema")
    what.add_argument("--executable", action="store_true", help="print the path of the opgen tool")
    what.add_argument("--version", action="store_true", help="print the package's version")
    args = parser.parse_args(argv)
    try:
        if args.version:
            print(opgen.__version__)
        else:
            print(opgen.cmake_dir() if args.cmake_dir else opgen.json_schema() if args.json_schema
                  else opgen.executable())
    except FileNotFoundError as e:
        print(f"python -m opgen: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
