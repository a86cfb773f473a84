"""Medians, per-run ratios, the printed tables and the machine-readable results file."""

import json
import statistics
from typing import Dict, List, Optional

from .cases import CASES_BY_NAME, ISSUE9_SUBJECT_TARGETS, ISSUE9_TARGETS, ISSUE12_TARGETS, TARGETS, Target

UNITS = {"rps": "req/s", "mbps": "MB/s", "sps": "runs/s"}


def summarize(runs: Dict[str, Dict[str, List[dict]]], subject: str) -> dict:
    """runs[case][client] is a list (one entry per interleaved run) of records:
    {"status": "ok"|"n/a"|"failed"|"timeout", "value": float, "fields": {...}, ...}."""
    summary = {}
    for case_name, by_client in runs.items():
        case = CASES_BY_NAME[case_name]
        clients = {}
        for client, records in by_client.items():
            ok = [r for r in records if r["status"] == "ok"]
            entry = {"runs": len(records), "ok": len(ok),
                     "status": "ok" if ok else (records[0]["status"] if records else "skipped")}
            if ok:
                values = [r["value"] for r in ok]
                entry.update(median=statistics.median(values), min=min(values), max=max(values))
                for key in ("p50_us", "p99_us"):
                    found = [r["fields"][key] for r in ok if key in r["fields"]]
                    if found:
                        entry[key] = statistics.median(found)
                rss = [r["rss_kib"] for r in ok if r.get("rss_kib")]
                if rss:
                    entry["peak_rss_kib"] = int(statistics.median(rss))
            clients[client] = entry
        ratios = {}
        mine = by_client.get(subject, [])
        for client, records in by_client.items():
            if client == subject:
                continue
            # Ratio of the same interleaved run: both ran back to back, under the same noise.
            per_run = [a["value"] / b["value"] for a, b in zip(mine, records)
                       if a["status"] == "ok" and b["status"] == "ok" and b["value"] > 0]
            if per_run:
                ratios[client] = {"median": statistics.median(per_run), "min": min(per_run),
                                  "max": max(per_run), "runs": len(per_run)}
        summary[case_name] = {"metric": case.metric, "clients": clients, "ratios": ratios,
                              "targets": target_checks(TARGETS.get(case_name), clients.get(subject), ratios),
                              "issue9_targets": target_checks(
                                  ISSUE9_SUBJECT_TARGETS.get(subject, {}).get(case_name, ISSUE9_TARGETS.get(case_name)),
                                  clients.get(subject), ratios),
                              "issue12_targets": target_checks(ISSUE12_TARGETS.get(case_name),
                                                               clients.get(subject), ratios)}
    return summary


def target_checks(target: Optional[Target], subject_entry: Optional[dict], ratios: dict) -> List[dict]:
    if target is None or subject_entry is None or subject_entry.get("ok", 0) == 0:
        return []
    checks = []
    for peer, floor in target.min_ratio.items():
        got = ratios.get(peer, {}).get("median")
        checks.append({"what": f">= {floor:g}x {peer}", "value": got,
                       "met": None if got is None else got >= floor})
    if target.max_rss_kib is not None:
        got = subject_entry.get("peak_rss_kib")
        checks.append({"what": f"peak RSS <= {target.max_rss_kib / 1024:.0f} MiB", "value": got,
                       "met": None if got is None else got <= target.max_rss_kib})
    return checks


def fmt(value: Optional[float]) -> str:
    if value is None:
        return "-"
    if value >= 100:
        return f"{value:,.0f}"
    if value >= 10:
        return f"{value:.1f}"
    return f"{value:.2f}"


def print_tables(summary: dict, clients: List[str], subject: str, notes: Dict[str, str]) -> None:
    header = f"{'case':<24} {'client':<11} {'median':>10} {'min':>10} {'max':>10} {'unit':<6} " \
             f"{'p50 us':>8} {'p99 us':>8} {'RSS KiB':>9}  ok"
    print(header)
    print("-" * len(header))
    for case_name, entry in summary.items():
        unit = UNITS[entry["metric"]]
        for client in clients:
            c = entry["clients"].get(client)
            if c is None:
                continue
            if c["ok"] == 0:
                print(f"{case_name:<24} {client:<11} {c['status']:>10}")
                continue
            print(f"{case_name:<24} {client:<11} {fmt(c['median']):>10} {fmt(c['min']):>10} "
                  f"{fmt(c['max']):>10} {unit:<6} {fmt(c.get('p50_us')):>8} {fmt(c.get('p99_us')):>8} "
                  f"{c.get('peak_rss_kib', '-'):>9}  {c['ok']}/{c['runs']}")
        print()
    for case_name, note in notes.items():
        print(f"  {case_name}: {note}")

    others = [c for c in clients if c != subject]
    has_ratios = any(entry["ratios"] for entry in summary.values())
    print()
    if not has_ratios:
        print(f"No ratios: '{subject}' has no successful runs (its peer binary may be missing; "
              f"see Benchmarks/README.md, or pass --subject ahc to compare other clients).")
        return
    print(f"Ratios {subject}/peer: median of per-run ratios (min-max); higher is better")
    print(f"{'case':<24} " + " ".join(f"{c:>20}" for c in others))
    for case_name, entry in summary.items():
        cells = []
        for client in others:
            r = entry["ratios"].get(client)
            cells.append(f"{r['median']:.2f} ({r['min']:.2f}-{r['max']:.2f})" if r else "-")
        print(f"{case_name:<24} " + " ".join(f"{cell:>20}" for cell in cells))
    for key, title in (("targets", "Issue 5"), ("issue9_targets", "Issue 9"),
                       ("issue12_targets", "Issue 12")):
        checks = [(name, check) for name, entry in summary.items() for check in entry.get(key, [])]
        if not checks:
            continue
        print()
        print(f"{title} targets for {subject}:")
        for name, check in checks:
            mark = {True: "met", False: "MISSED", None: "n/a"}[check["met"]]
            value = check["value"]
            shown = "-" if value is None else (f"{value:.2f}x" if "RSS" not in check["what"] else f"{value} KiB")
            print(f"  {name:<24} {check['what']:<22} {shown:>12}  {mark}")


def write_results(path, meta: dict, runs: dict, summary: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"meta": meta, "summary": summary, "runs": runs}, indent=1) + "\n")
