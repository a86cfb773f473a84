#!/usr/bin/env python3
"""Compares Client's public API (its symbol graph) with Alamofire 5.12's public declarations.

Usage: api-coverage.py REFERENCE EXCLUSIONS SYMBOLGRAPH_DIR

Both sides are reduced to a key: owner, kind, name, argument labels, parameter types, effects and
result type. Spelling is normalised so that equal declarations compare equal: `any`/`some`,
whitespace, default values, attributes other than `@Sendable`, module qualifiers, generic parameter
names (renamed by position) and `where` clauses (ignored, as are conformances and inheritance).
Prints the figure and the missing declarations grouped by Alamofire source file; exits non-zero
only when the script itself cannot do its job (a file is missing, nothing parses).
"""
import json
import os
import re
import sys

MODIFIERS = {
    "public", "open", "final", "override", "mutating", "nonmutating", "nonisolated", "required",
    "convenience", "dynamic", "lazy", "weak", "unowned", "indirect", "optional", "package",
    "internal", "private(set)", "internal(set)", "fileprivate(set)", "package(set)", "consuming",
    "borrowing",
}
TYPE_KINDS = {"struct", "class", "enum", "actor", "typealias"}


def is_arrow(text, i):
    """Whether the `>` at `i` belongs to `->`, which closes no bracket."""
    return text[i] == ">" and i > 0 and text[i - 1] == "-"


def split_top(text, sep=","):
    """Splits at `sep` outside brackets."""
    parts, depth, cur = [], 0, ""
    for i, ch in enumerate(text):
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}" and not is_arrow(text, i):
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur)
    return parts


def balanced(text, start):
    """Index just past the bracket group opening at `start`."""
    pairs = {"(": ")", "<": ">", "[": "]"}
    opening, closing, depth = text[start], pairs[text[start]], 0
    for i in range(start, len(text)):
        if text[i] == opening:
            depth += 1
        elif text[i] == closing and not is_arrow(text, i):
            depth -= 1
            if depth == 0:
                return i + 1
    return len(text)


def cut_where(text):
    """Drops a top-level ` where ...` clause."""
    depth = 0
    for i, ch in enumerate(text):
        if ch in "([<{":
            depth += 1
        elif ch in ")]>}" and not is_arrow(text, i):
            depth -= 1
        elif depth == 0 and text.startswith(" where ", i):
            return text[:i]
    return text


# Alamofire's own typealiases, expanded so either spelling matches.
ALIASES = {"AFDataResponse": "DataResponse<%s,AFError>", "AFDownloadResponse": "DownloadResponse<%s,AFError>",
           "AFResult": "Result<%s,AFError>"}


def expand_aliases(t):
    for alias, expansion in ALIASES.items():
        while True:
            m = re.search(r"\b%s<" % alias, t)
            if not m:
                break
            end = balanced(t, m.end() - 1)
            t = t[:m.start()] + expansion % t[m.end():end - 1] + t[end:]
    return t


def norm_type(t, generics):
    t = t.strip()
    t = re.sub(r"@(escaping|autoclosure)\b", "", t)
    t = re.sub(r"\b(any|some|inout)\s+", "", t)
    # Parameter names inside function types (`(_ response: X) -> Void`) are not part of the type.
    t = re.sub(r"(?<=[(,])\s*_\s+\w+\s*:\s*", "", t)
    t = re.sub(r"\b(Swift|Foundation|FoundationEssentials|Dispatch|Client|Alamofire)\.", "", t)
    t = re.sub(r"\s+", "", t)
    t = expand_aliases(t)
    for i, g in enumerate(generics):
        t = re.sub(r"\b%s\b" % re.escape(g), "T%d" % i, t)
    # Redundant parentheses around a whole type (`(@Sendable (A) -> B)`) are not part of it.
    while t.startswith("(") and balanced(t, 0) == len(t) and "->" in t[1:-1] and not t[1:-1].startswith("("):
        t = t[1:-1]
    t = t.replace("()", "Void")
    t = re.sub(r"\(([\w.<>\[\]:]+)\)\?", r"\1?", t)
    t = re.sub(r"\bOptional<([\w.]+)>", r"\1?", t)
    # Nested types are written qualified or not (`AFError.Reason` inside AFError): drop qualifiers.
    t = re.sub(r"\b[A-Z]\w*\.(?=[A-Z])(?!(Type|Protocol)\b)", "", t)
    # ... including a generic owner's (`StreamOf<Element>.Iterator` inside StreamOf).
    t = re.sub(r"\b[A-Z]\w*<\w+>\.(?=[A-Z])(?!(Type|Protocol)\b)", "", t)
    return t


def parse_params(inner, generics, subscript=False):
    labels, types = [], []
    for p in split_top(inner):
        p = p.strip()
        if not p:
            continue
        head, colon, ty = p.partition(":")
        if not colon or re.search(r"[<(\[]", head):
            # An unlabelled associated value: `case x(Int)`.
            head, ty = "_", p
        ty = split_top(ty, "=")[0] if "=" in ty else ty
        names = head.split()
        if subscript:
            # A subscript parameter has an argument label only when two names are written.
            labels.append(names[0] if len(names) > 1 else "_")
        else:
            labels.append(names[0] if names else "_")
        types.append(norm_type(ty, generics))
    return labels, types


def generic_names(clause):
    return [g.split(":")[0].strip() for g in split_top(clause[1:-1])] if clause else []


def parse_decl(owner, decl):
    """Returns a comparable key for one declaration, or None if it is not understood."""
    decl = re.sub(r"\s+", " ", decl).strip()
    decl = re.sub(r"\s*=\s*$", "", decl)
    # The reference cuts a declaration whose default value spans lines after its `=`: close it.
    if decl.count("(") > decl.count(")"):
        decl += ")" * (decl.count("(") - decl.count(")"))
    decl = re.sub(r"@(?!Sendable\b)\w+(\([^)]*\))?\s*", "", decl)
    words = decl.split(" ")
    static = False
    while words and (words[0] in MODIFIERS or words[0] in ("static", "class") and len(words) > 1 and words[1] in ("func", "var", "let", "subscript")):
        if words[0] in ("static", "class"):
            static = True
        words.pop(0)
    if not words:
        return None
    kind, rest = words[0], " ".join(words[1:])
    if kind in ("init", "init?", "init!") or kind.startswith("init(") or kind.startswith("init<") or kind.startswith("init?("):
        rest = decl[decl.index("init"):][4:]
        kind = "init"
        if rest.startswith("?") or rest.startswith("!"):
            rest = rest[1:]
        return parse_callable(owner, "init", "init", rest, static)
    if kind.startswith("subscript"):
        rest = decl[decl.index("subscript"):][len("subscript"):]
        return parse_callable(owner, "subscript", "subscript", rest, static)
    if kind == "func":
        m = re.match(r"\s*(`?[^\s(<`]+`?|[^\s(<]+)\s*", rest)
        name = m.group(1).strip("`")
        return parse_callable(owner, "func", name, rest[m.end():], static)
    if kind in ("var", "let"):
        name, _, ty = rest.partition(":")
        ty = re.sub(r"\{.*\}$", "", ty)
        ty = split_top(ty, "=")[0] if "=" in ty else ty
        return (owner, "var", name.strip().strip("`"), static, norm_type(cut_where(ty), []))
    if kind == "case":
        m = re.match(r"`?(\w+)`?\s*(\(.*\))?", rest)
        if not m:
            return None
        labels, types = parse_params(m.group(2)[1:-1], []) if m.group(2) else ([], [])
        return (owner, "case", m.group(1), False, tuple(labels), tuple(types))
    if kind in TYPE_KINDS:
        name = re.match(r"`?(\w+)", rest).group(1)
        return (owner, "type", name, False)
    if kind in ("protocol", "associatedtype"):
        name = re.match(r"`?(\w+)", rest).group(1)
        return (owner, kind, name, False)
    return None


def parse_callable(owner, kind, name, rest, static):
    rest = rest.strip()
    generics = []
    if rest.startswith("<"):
        end = balanced(rest, 0)
        generics = generic_names(rest[:end])
        rest = rest[end:].strip()
    if not rest.startswith("("):
        return None
    end = balanced(rest, 0)
    labels, types = parse_params(rest[1:end - 1], generics, subscript=(kind == "subscript"))
    tail = cut_where(rest[end:]).strip()
    tail = re.sub(r"\{.*\}$", "", tail).strip()
    effects, result = tail, "Void"
    if "->" in tail:
        effects, _, result = tail.partition("->")
    effects = " ".join(w for w in effects.split() if w in ("async", "throws", "rethrows") or w.startswith("throws("))
    return (owner, kind, name, static, tuple(labels), tuple(types), effects, norm_type(result, generics))


def read_reference(path):
    """Yields (file, line, condition, key) for each declaration in the reference list."""
    current = None
    with open(path) as f:
        for raw in f:
            line = raw.rstrip("\n")
            if line.startswith("## "):
                current = line[3:].split("  (")[0]
                continue
            if not line.strip() or line.startswith("#"):
                continue
            cond = ""
            m = re.search(r"\s+\[#if (.*)\]$", line)
            if m:
                cond, line = m.group(1), line[:m.start()]
            owner, decl = "", line
            m = re.match(r"^([A-Za-z_][\w.]*): (.*)$", line)
            if m and not re.match(r"^(public|open|@)", line):
                owner, decl = m.group(1), m.group(2)
            yield current, raw.rstrip("\n"), cond, owner, parse_decl(owner, decl)


def read_symbol_graphs(directory):
    keys = set()
    for fname in os.listdir(directory):
        if not fname.endswith(".symbols.json"):
            continue
        with open(os.path.join(directory, fname)) as f:
            graph = json.load(f)
        for sym in graph.get("symbols", []):
            if sym.get("accessLevel") not in ("public", "open"):
                continue
            path = sym["pathComponents"]
            owner = ".".join(path[:-1])
            text = "".join(fr["spelling"] for fr in sym.get("declarationFragments", []))
            kind = sym["kind"]["identifier"]
            if kind in ("swift.type.method", "swift.type.property", "swift.type.subscript") and not re.search(r"\b(static|class)\b", text):
                text = "static " + text
            key = parse_decl(owner, text)
            if key:
                keys.add(key)
    return keys


def read_exclusions(path):
    rules = []
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            pattern, _, reason = line.partition("|")
            kind, _, value = pattern.strip().partition(":")
            if kind not in ("file", "owner", "contains", "condition") or not reason.strip():
                sys.exit("api-coverage: bad exclusion line (want 'file|owner|contains|condition:VALUE | reason'): " + line)
            rules.append((kind, value.strip(), reason.strip()))
    return rules


def excluded(rules, file, raw, cond, owner):
    for kind, value, reason in rules:
        if kind == "file" and file == value:
            return reason
        if kind == "owner" and (owner == value or owner.startswith(value + ".") or re.search(r"\b(class|struct|enum|protocol) %s\b" % re.escape(value), raw) and not owner):
            return reason
        if kind == "contains" and value in raw:
            return reason
        if kind == "condition" and value in cond:
            return reason
    return None


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    reference, exclusions, graphs = sys.argv[1:]
    ours = read_symbol_graphs(graphs)
    if not ours:
        sys.exit("api-coverage: no public symbols in " + graphs)
    rules = read_exclusions(exclusions)
    # Declarations listed without a type (`public let AF`) match by name.
    names = {k[:4] for k in ours if k[1] == "var"}
    # The reference drops some result types (`@discardableResult` functions written over several
    # lines): a function listed as returning nothing matches ours whatever we return.
    calls = {k[:7] for k in ours if k[1] == "func"}
    total = provided = impossible = unparsed = 0
    missing, impossible_by_reason = {}, {}
    for file, raw, cond, owner, key in read_reference(reference):
        total += 1
        if key is None:
            unparsed += 1
        if key is not None and (key in ours
                                or key[1] == "var" and key[4] == "" and key[:4] in names
                                or key[1] == "func" and key[7] == "Void" and key[:7] in calls):
            provided += 1
            continue
        reason = excluded(rules, file, raw, cond, owner)
        if reason:
            impossible += 1
            impossible_by_reason[reason] = impossible_by_reason.get(reason, 0) + 1
            continue
        missing.setdefault(file, []).append(raw)
    if total < 1000 or unparsed > total // 20:
        sys.exit("api-coverage: reference not understood (%d declarations, %d unparsed)" % (total, unparsed))
    possible = total - impossible
    print("Alamofire 5.12 public declarations: %d" % total)
    print("Cannot exist on Linux (scripts/api-coverage-linux.txt): %d" % impossible)
    for reason, n in sorted(impossible_by_reason.items(), key=lambda kv: -kv[1]):
        print("  %4d  %s" % (n, reason))
    print("Provided by Client with the same name, labels and types: %d of %d possible (%.1f%%)" % (provided, possible, 100.0 * provided / possible))
    print("Missing: %d" % (possible - provided))
    for file in sorted(missing):
        print("\n## %s  (%d missing)" % (file, len(missing[file])))
        for raw in missing[file]:
            print("  " + raw)
    print("\nAPI coverage: %d/%d (%.1f%%) of what can exist on Linux" % (provided, possible, 100.0 * provided / possible))


if __name__ == "__main__":
    main()
