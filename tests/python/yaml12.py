"""YAML as the YAML 1.2 core schema reads it (YAML 1.2.2, section 10.3.2),
the one rule opgen, its JSON Schema and editors share: PyYAML's safe loader
with YAML 1.1's implicit types (`yes`, `on`, `010` in octal, timestamps,
`1_000`, merge keys) replaced by the core schema's.

    yaml12.load(text) -> the document as Python values
"""

import re

import yaml

# (tag, pattern): the core schema's resolution of a plain scalar, in order.
CORE_SCHEMA = (
    ("null", r"null|Null|NULL|~|"),
    ("bool", r"true|True|TRUE|false|False|FALSE"),
    ("int", r"[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+"),
    ("float", r"[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?|[-+]?(\.inf|\.Inf|\.INF)|\.nan|\.NaN|\.NAN"),
)


class Loader(yaml.SafeLoader):
    yaml_implicit_resolvers = {}


for _tag, _pattern in CORE_SCHEMA:
    Loader.add_implicit_resolver(f"tag:yaml.org,2002:{_tag}", re.compile(rf"^(?:{_pattern})$"), None)


def _construct_int(loader, node):
    text = loader.construct_scalar(node)
    if text.startswith(("0o", "0x")):
        return int(text[2:], 8 if text[1] == "o" else 16)
    return int(text, 10)  # 010 is ten (YAML 1.1 read it as octal)


def _construct_float(loader, node):
    text = loader.construct_scalar(node)
    if text.lower().endswith(".inf"):
        return float("-inf") if text.startswith("-") else float("inf")
    if text.lower() == ".nan":
        return float("nan")
    return float(text)


def _construct_bool(loader, node):
    return loader.construct_scalar(node) in ("true", "True", "TRUE")


Loader.add_constructor("tag:yaml.org,2002:int", _construct_int)
Loader.add_constructor("tag:yaml.org,2002:float", _construct_float)
Loader.add_constructor("tag:yaml.org,2002:bool", _construct_bool)


def load(text):
    return yaml.load(text, Loader=Loader)
