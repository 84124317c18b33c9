#!/usr/bin/env python3
"""Writes the hostile-input corpus of tools/tests/hostile.rs into cases/.

Each case is one file: the tool's name on the first line, then the raw input bytes (often not
JSON at all). Every case must be refused with a clear error. The huge inputs (50 MB strings,
100 000 levels of nesting, huge batches) are built by the test itself, not stored.

Run from anywhere: python3 tools/tests/hostile/generate.py (needs `tools schema` output on stdin
only when regenerating the per-tool cases: `cargo run -q -p tools -- schema | python3 ...`).
"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "cases")

WRONG = {
    "string": [12345, True, None, ["a"]],
    "integer": ["NaN", "7", 1.5, 18446744073709551616, -9223372036854775809, "Infinity"],
    "number": ["NaN", "-Infinity", "1e400"],
    "boolean": ["true", 0],
    "array": [{"a": 1}, "[]"],
    "object": [[1, 2], "{}"],
}


def main():
    tools = json.load(sys.stdin)
    cases = []

    def add(label, tool, raw):
        if isinstance(raw, str):
            raw = raw.encode("utf-8")
        cases.append((label, tool, raw))

    for tool in tools:
        name = tool["name"]
        schema = tool["inputSchema"]
        props = schema.get("properties", {})
        required = schema.get("required") or []
        add(f"{name}-unknown-field", name, json.dumps({"zz_unknown": 1}))
        if required:
            add(f"{name}-missing-required", name, "{}")
        for prop, sub in props.items():
            kind = sub.get("type")
            if isinstance(kind, list):
                kind = next((k for k in kind if k != "null"), None)
            for i, wrong in enumerate(WRONG.get(kind, [])):
                if wrong is None and prop not in required:
                    continue
                add(f"{name}-{prop}-wrong-type-{i}", name, json.dumps({prop: wrong}))

    target = "scene_open"
    malformed = {
        "truncated-object": '{"path": "Assets/Scenes/Main.scene"',
        "truncated-string": '{"path": "Assets/Sce',
        "truncated-key": '{"pa',
        "trailing-comma": '{"path": "a",}',
        "single-quotes": "{'path': 'a'}",
        "comment": '{"path": "a" /* c */}',
        "nan-literal": '{"path": NaN}',
        "infinity-literal": '{"path": Infinity}',
        "huge-exponent": '{"path": 1e99999}',
        "bare-word": "scene",
        "empty": "",
        "whitespace": "   \n\t ",
        "bom": "\ufeff{\"path\": \"a\"}",
        "control-char-in-string": '{"path": "a\u0001b"}',
        "lone-surrogate": '{"path": "\\ud800"}',
        "bad-escape": '{"path": "\\q"}',
        "two-values": '{"path": "a"} {"path": "b"}',
        "duplicate-key-wrong": '{"path": "a", "path": 3}',
        "array-top": "[]",
        "string-top": '"Assets/Scenes/Main.scene"',
        "number-top": "42",
        "bool-top": "true",
        "big-int-top": "340282366920938463463374607431768211456",
        "unclosed-array": "[[[[",
        "closing-only": "]]]]}}}}",
        "null-byte": '{"path": "a\u0000"}',
    }
    for label, raw in malformed.items():
        add(f"malformed-{label}", target, raw)
    for label, raw in {
        "invalid-utf8-in-string": b'{"path": "\xff\xfe"}',
        "invalid-utf8-bare": b"\xc3\x28",
        "overlong-utf8": b'{"path": "\xc0\xaf"}',
        "truncated-utf8": b'{"path": "\xe2\x82"}',
    }.items():
        add(f"malformed-{label}", target, raw)
    for depth in (65, 100, 128, 129, 1000):
        add(f"deep-array-{depth}", target, "[" * depth + "]" * depth)
        add(f"deep-object-{depth}", target, '{"a":' * depth + "1" + "}" * depth)
        add(f"deep-in-property-{depth}", target, '{"path": ' + "[" * depth + "]" * depth + "}")
    for label, tool in {
        "upper-case": "SCENE_OPEN",
        "mixed-case": "Scene_Open",
        "glob": "scene_*",
        "glob-all": "*",
        "trailing-space": "scene_open ",
        "homoglyph": "sc\u0435ne_open",
        "empty-family": "_open",
        "dangerous-by-case": "ASSET_DELETE",
        "path-like": "../scene_open",
    }.items():
        add(f"name-{label}", tool, '{"path": "Assets/Scenes/Main.scene"}')
    add("dangerous-asset-delete", "asset_delete", '{"path": "Assets/Scenes"}')

    os.makedirs(OUT, exist_ok=True)
    for old in os.listdir(OUT):
        os.remove(os.path.join(OUT, old))
    for index, (label, tool, raw) in enumerate(cases):
        path = os.path.join(OUT, f"{index:03}-{label}.case")
        with open(path, "wb") as f:
            f.write(tool.encode("utf-8") + b"\n" + raw)
    print(f"{len(cases)} cases in {OUT}")


if __name__ == "__main__":
    main()
