#!/usr/bin/env python3
"""Summarizes an Autobahn|Testsuite client report (reports/clients/index.json) for one agent.

Usage: summary.py INDEX_JSON AGENT [EXPECTED_CASES]
Prints a Markdown table (per section: cases, OK, NON-STRICT, INFORMATIONAL, FAILED), then every
case that is not acceptable. Acceptable: behaviour OK, NON-STRICT or INFORMATIONAL (the verdicts
the suite itself allows), and close behaviour OK or INFORMATIONAL. Exit status 1 when a case is
not acceptable (FAILED, UNIMPLEMENTED, a wrong close) or when fewer than EXPECTED_CASES ran."""
import collections
import json
import sys

SECTIONS = {
    "1": "Framing", "2": "Pings/Pongs", "3": "Reserved bits", "4": "Opcodes",
    "5": "Fragmentation", "6": "UTF-8 handling", "7": "Close handling",
    "9": "Limits/performance", "10": "Auto-fragmentation", "12": "permessage-deflate (payloads)",
    "13": "permessage-deflate (parameters)",
}
ACCEPTED = {"OK", "NON-STRICT", "INFORMATIONAL"}
ACCEPTED_CLOSE = {"OK", "INFORMATIONAL"}


def main():
    path, agent = sys.argv[1], sys.argv[2]
    expected = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    cases = json.load(open(path)).get(agent, {})
    table = collections.defaultdict(collections.Counter)
    bad = []
    for case_id, result in cases.items():
        section = case_id.split(".")[0]
        behavior, close = result["behavior"], result["behaviorClose"]
        table[section]["cases"] += 1
        table[section][behavior if behavior in ACCEPTED else "FAILED"] += 1
        if behavior not in ACCEPTED or close not in ACCEPTED_CLOSE:
            bad.append((case_id, behavior, close, result.get("remoteCloseCode")))
    print("| Section | Cases | OK | NON-STRICT | INFORMATIONAL | FAILED |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    total = collections.Counter()
    for section in sorted(table, key=int):
        row = table[section]
        total.update(row)
        print(f"| {section} {SECTIONS.get(section, '')} | {row['cases']} | {row['OK']} | "
              f"{row['NON-STRICT']} | {row['INFORMATIONAL']} | {row['FAILED']} |")
    print(f"| **All** | {total['cases']} | {total['OK']} | {total['NON-STRICT']} | "
          f"{total['INFORMATIONAL']} | {total['FAILED']} |")
    key = lambda item: [int(part) for part in item[0].split(".")]
    for case_id, behavior, close, code in sorted(bad, key=key):
        print(f"NOT ACCEPTABLE {case_id}: behavior {behavior}, close {close}, peer's close code {code}")
    if len(cases) < expected:
        print(f"only {len(cases)} of {expected} selected cases are in the report")
        return 1
    return 1 if bad else 0


sys.exit(main())
