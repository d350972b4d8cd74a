"""A JSON Schema validator for the keywords our schemas use, nothing more.

Why here: the test must run on a fresh Debian 12 with only python3, and a
schema keyword this code does not know is an error (never silently passed),
so a schema cannot grow a rule the test does not check.

  check_json_schema.py SCHEMA INSTANCE...   exit 0 when every INSTANCE is valid
"""

import json
import re
import sys

KNOWN = {"$schema", "$id", "$defs", "$ref", "title", "description", "type", "required", "properties",
         "additionalProperties", "items", "enum", "minimum", "maximum", "pattern"}

TYPES = {
    "object": lambda v: isinstance(v, dict),
    "array": lambda v: isinstance(v, list),
    "string": lambda v: isinstance(v, str),
    "boolean": lambda v: isinstance(v, bool),
    "null": lambda v: v is None,
    "integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
    "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
}


def resolve(root, ref):
    if not ref.startswith("#/"):
        raise ValueError(f"only local $ref supported: {ref}")
    node = root
    for part in ref[2:].split("/"):
        node = node[part]
    return node


def errors(root, schema, value, where="$"):
    """Yields 'path: problem' for every violation of `schema` by `value`."""
    unknown = set(schema) - KNOWN
    if unknown:
        raise ValueError(f"schema keyword(s) {sorted(unknown)} not supported (at {where})")
    if "$ref" in schema:
        yield from errors(root, resolve(root, schema["$ref"]), value, where)
    if "type" in schema:
        types = schema["type"] if isinstance(schema["type"], list) else [schema["type"]]
        if not any(TYPES[t](value) for t in types):
            yield f"{where}: {type(value).__name__} is not {'/'.join(types)}"
            return
    if "enum" in schema and value not in schema["enum"]:
        yield f"{where}: {value!r} not one of {schema['enum']}"
    if TYPES["number"](value):
        if "minimum" in schema and value < schema["minimum"]:
            yield f"{where}: {value} < minimum {schema['minimum']}"
        if "maximum" in schema and value > schema["maximum"]:
            yield f"{where}: {value} > maximum {schema['maximum']}"
    if isinstance(value, str) and "pattern" in schema and not re.search(schema["pattern"], value):
        yield f"{where}: {value!r} does not match {schema['pattern']}"
    if isinstance(value, dict):
        for key in schema.get("required", []):
            if key not in value:
                yield f"{where}: required key '{key}' missing"
        props = schema.get("properties", {})
        extra = schema.get("additionalProperties", True)
        for key, v in value.items():
            if key in props:
                yield from errors(root, props[key], v, f"{where}.{key}")
            elif extra is False:
                yield f"{where}: key '{key}' is not documented in the schema"
            elif isinstance(extra, dict):
                yield from errors(root, extra, v, f"{where}.{key}")
    if isinstance(value, list) and "items" in schema:
        for i, v in enumerate(value):
            yield from errors(root, schema["items"], v, f"{where}[{i}]")


def validate(schema, value):
    return list(errors(schema, schema, value))


def main():
    schema = json.load(open(sys.argv[1]))
    bad = 0
    for path in sys.argv[2:]:
        for e in validate(schema, json.load(open(path, encoding="utf-8"))):
            print(f"{path}: {e}", file=sys.stderr)
            bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
