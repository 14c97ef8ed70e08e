#!/usr/bin/python3
"""Validates JSON documents against a JSON Schema (python3-jsonschema, Draft 2020-12). Exit 0 when all valid."""
import json
import sys

import jsonschema

def main() -> int:
    if len(sys.argv) < 3:
        print("usage: validate_json.py SCHEMA FILE...", file=sys.stderr)
        return 2
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    validator = jsonschema.Draft202012Validator(schema)
    bad = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        for err in validator.iter_errors(doc):
            bad += 1
            print(f"{path}: {'/'.join(str(p) for p in err.absolute_path)}: {err.message}")
    return 1 if bad else 0

if __name__ == "__main__":
    sys.exit(main())
