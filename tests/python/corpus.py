"""The shared corpus of real custom-op schemas (../shared/corpus/), as the
tests read it."""

import csv
import os

SHARED_DIR = os.environ.get(
    "OPGEN_SHARED_DIR", os.path.join(os.path.dirname(__file__), "..", "..", "..", "shared")
)
CORPUS = os.path.join(SHARED_DIR, "corpus", "custom_schemas.tsv")
EDGE_CASES = os.path.join(SHARED_DIR, "corpus", "schema_edge_cases.tsv")


def read_tsv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))


def unique_schemas():
    """Every distinct schema of the corpus, as its project wrote it, in file order."""
    return list(dict.fromkeys(row["schema"] for row in read_tsv(CORPUS)))


def qualified(schema):
    """The schema with a namespace (torch needs one), `ns::` where it had none."""
    return schema if "::" in schema.split("(", 1)[0] else "ns::" + schema
