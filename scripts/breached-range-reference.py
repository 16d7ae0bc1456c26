#!/usr/bin/env python3
"""A plain reference for the breached-password range answers (BreachedPasswordsTests compares).

Reads Pwned Passwords files (`HEX40:COUNT` lines, either case, LF or CRLF, any order; a hash given
twice keeps its highest count) and prints, for each prefix read from stdin (one per line), one
JSON line {"prefix": P, "text": T}: T is the range API's answer, `SUFFIX:COUNT` lines for every
hash starting with the prefix, the suffix as 35 uppercase hex digits, sorted, joined by CRLF.
Standard library only. Usage: scripts/breached-range-reference.py FILE... < prefixes
"""
import json
import sys

counts = {}
for path in sys.argv[1:]:
    with open(path, "rb") as file:
        for raw in file.read().split(b"\n"):
            line = raw[:-1] if raw.endswith(b"\r") else raw
            if not line:
                continue
            digest, count = line.decode("ascii").split(":")
            digest = digest.upper()
            counts[digest] = max(counts.get(digest, 0), int(count))

by_prefix = {}
for digest, count in counts.items():
    by_prefix.setdefault(digest[:5], []).append((digest[5:], count))
for prefix in sys.stdin.read().split():
    lines = sorted(by_prefix.get(prefix.upper(), []))
    text = "\r\n".join(f"{suffix}:{count}" for suffix, count in lines)
    print(json.dumps({"prefix": prefix, "text": text}))
