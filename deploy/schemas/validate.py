#!/usr/bin/env python3
"""Validate a netvigil export against deploy/schemas/export.schema.json (or another schema in this directory).

Usage: validate.py FILE [--ndjson] [--schema NAME]   (FILE may be - for stdin; NAME e.g. probe-result)
Prints one error line and exits 1 on the first invalid document or line; prints a count and exits 0 otherwise.
"""
import json
import os
import sys

import jsonschema

def main() -> int:
    argv = sys.argv[1:]
    schema_name = "export"
    if "--schema" in argv:
        index = argv.index("--schema")
        if index + 1 >= len(argv):
            print("validate.py: --schema needs a NAME (e.g. probe-result)", file=sys.stderr)
            return 64
        schema_name = argv[index + 1]
        del argv[index:index + 2]
    args = [a for a in argv if not a.startswith("--")]
    ndjson = "--ndjson" in argv
    if len(args) != 1:
        print("usage: validate.py FILE [--ndjson] [--schema NAME]", file=sys.stderr)
        return 64
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, schema_name + ".schema.json")) as f:
        schema = json.load(f)
    # Every schema of this directory by its $id, so that one may refer to another (fleet-endpoint uses fleet-status).
    store = {}
    for name in sorted(os.listdir(here)):
        if name.endswith(".schema.json"):
            with open(os.path.join(here, name)) as f:
                other = json.load(f)
            store[other.get("$id", name)] = other
    resolver = jsonschema.RefResolver.from_schema(schema, store=store)
    validator = jsonschema.Draft202012Validator(schema, resolver=resolver)
    stream = sys.stdin if args[0] == "-" else open(args[0])
    count = 0
    try:
        if ndjson:
            for number, line in enumerate(stream, start=1):
                instance = json.loads(line)
                if number == 1 and instance.get("type") != "header":
                    raise ValueError("line 1: expected the header object")
                validator.validate(instance)
                count += 1
        else:
            document = json.load(stream)
            validator.validate(document)
            count = sum(len(document.get(k, [])) for k in ("probes", "reachability", "alerts")) if schema_name == "export" else 1
    except (jsonschema.ValidationError, ValueError) as error:
        message = error.message if isinstance(error, jsonschema.ValidationError) else str(error)
        path = "/".join(str(p) for p in getattr(error, "absolute_path", []))
        print(f"invalid {schema_name} ({'line %d' % (count + 1) if ndjson else 'document'}) at /{path}: {message}", file=sys.stderr)
        return 1
    print(f"valid: {count} rows")
    return 0

if __name__ == "__main__":
    sys.exit(main())
