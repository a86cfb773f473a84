#!/usr/bin/env python3
"""Where the container fetch's bytes go, from lld's link map (scripts/build-container-fetch.sh).

    container-size-report.py MAP WHY-EXTRACT [UNSTRIPPED-BINARY]

Prints the input sections the linker kept (after --gc-sections and --icf), summed per archive
and per Lariat module; the FoundationEssentials members that weigh most; which archive members
pulled in the regex engine and FoundationInternationalization (lld's --why-extract table); and
how much of Lariat's own code is generic specializations, by the generic function specialized.
"""
import bisect
import collections
import re
import subprocess
import sys

LARIAT = ("fetch", "Client", "Transport", "TLS", "Wire", "EventLoop")


# A section of the LTO object (the container build links Lariat as one LTO unit, with a section
# per function or global): `.text.$s6Client7RequestC...` names its module in the mangling.
LTO_OBJECT = re.compile(r"/[^/(]+\.lto(\.\d+)?\.o$")
MANGLED_MODULE = re.compile(r"^\.[a-z.]+\.\$s(\d+)")


def owner(obj, section=""):
    for module in LARIAT:
        if f"/{module}.build/" in obj:
            return "Lariat " + module
    if LTO_OBJECT.search(obj):
        match = MANGLED_MODULE.match(section)
        if match:
            name = section[match.end():match.end() + int(match.group(1))]
            if name in LARIAT:
                return "Lariat " + name
        return "Lariat other (LTO unit: metadata, C shims, stdlib specializations)"
    return re.sub(r"\(.*", "", obj.split("/")[-1])


# lld's map: "VMA LMA Size Align Out In Symbol" columns, hexadecimal; an output section at
# column 1 of the name field, its input sections (`file:(section)`, `archive(member):(section)`)
# 8 spaces further, their symbols 8 more.
INPUT = re.compile(r"^\s*([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)\s+\d+ {9}(\S.*):\((.+)\)$")


def read_map(path):
    """(input section name, size, object, address) for every input section the linker kept."""
    kept = []
    for line in open(path, errors="replace"):
        match = INPUT.match(line.rstrip("\n"))
        if not match:
            continue
        address, size, obj, section = int(match.group(1), 16), int(match.group(2), 16), match.group(3), match.group(4)
        if section.startswith((".debug", ".comment")) or obj.startswith("<internal>"):
            continue
        kept.append((section, size, obj, address))
    return kept


def read_why_extract(path):
    """lld's --why-extract table: archive member -> (the file that referenced it, the symbol)."""
    included = {}
    for line in open(path, errors="replace").read().splitlines()[1:]:
        fields = line.split("\t")
        if len(fields) == 3:
            reference, extracted, symbol = fields
            member = re.sub(r"^.*/", "", extracted)
            included.setdefault(member, f"{reference} ({symbol})")
    return included


def generic_name(name):
    """`generic specialization <Swift.Array<UInt8>> of Client.Request.emit<A>(...)` -> `Client.Request.emit`."""
    while "specialization <" in name:
        start = name.index("specialization <") + len("specialization <")
        depth, index = 1, start
        while index < len(name) and depth:
            depth += {"<": 1, ">": -1}.get(name[index], 0)
            index += 1
        rest = name[index:]
        name = rest[len(" of "):] if rest.startswith(" of ") else rest
    for prefix in ("closure #", "implicit closure #"):
        if name.startswith(prefix) and " in " in name:
            name = name.split(" in ", 1)[1]
    name = re.sub(r"^\(extension in [^)]*\):", "", name)
    cut = len(name)
    for mark in ("(", "<", " : "):
        if mark in name:
            cut = min(cut, name.index(mark))
    return name[:cut].strip()[:100] or "?"


def demangle(names):
    try:
        result = subprocess.run(["swift", "demangle", "--compact"], input="\n".join(names),
                                capture_output=True, text=True, check=True)
        return result.stdout.split("\n")
    except (OSError, subprocess.CalledProcessError):
        return names


def main():
    kept, included = read_map(sys.argv[1]), read_why_extract(sys.argv[2])
    by_owner = collections.Counter()
    for section, size, obj, _ in kept:
        by_owner[owner(obj, section)] += size
    total = sum(by_owner.values())
    lariat = sum(size for name, size in by_owner.items() if name.startswith("Lariat "))
    print("by archive and Lariat module (kept input sections, before stripping):")
    for name, size in by_owner.most_common(20):
        print(f"  {size / 1e6:6.2f} MB  {name}")
    print(f"  {total / 1e6:6.2f} MB  total ({lariat / 1e6:.2f} MB Lariat's own)")

    members = collections.Counter()
    for _, size, obj, _ in kept:
        if "libFoundationEssentials.a(" in obj:
            members[obj.split("(")[-1].rstrip(")")] += size
    print("FoundationEssentials, heaviest members:")
    for name, size in members.most_common(8):
        print(f"  {size / 1e3:6.0f} KB  {name}")

    print("regex engine and FoundationInternationalization (why linked, lld's --why-extract):")
    watched = [m for m in included if re.match(r"lib(swift_StringProcessing|swift_RegexParser|FoundationInternationalization|_FoundationICU)\.a", m)]
    for member in watched:
        print(f"  {member} <- {included[member][:160]}")
    if not watched:
        print("  none linked")

    # Lariat's functions sit in one .text input section per object, so the map cannot name them:
    # the unstripped binary's symbols (nm -S) are placed into those sections by address.
    if len(sys.argv) < 4:
        return
    ranges = sorted((address, address + size, module) for section, size, obj, address in kept
                    if section.startswith(".text") and address
                    for module in [owner(obj, section)] if module.startswith("Lariat "))
    starts = [start for start, _, _ in ranges]
    listing = subprocess.run(["nm", "-S", "--defined-only", sys.argv[3]], capture_output=True, text=True).stdout
    symbols = []
    for line in listing.splitlines():
        fields = line.split()
        if len(fields) != 4 or fields[2] not in "tTwW":
            continue
        address, size = int(fields[0], 16), int(fields[1], 16)
        index = bisect.bisect_right(starts, address) - 1
        if index >= 0 and address < ranges[index][1]:
            symbols.append((fields[3], size, ranges[index][2]))
    names = demangle([name for name, _, _ in symbols])
    specialized, modules = collections.Counter(), collections.Counter()
    for (_, size, module), name in zip(symbols, names):
        if "specialization <" in name:
            modules[module] += size
            specialized[generic_name(name)] += size
    code = sum(size for _, size, _ in symbols)
    print(f"Lariat's code: {code / 1e6:.2f} MB in named functions, {sum(modules.values()) / 1e6:.2f} MB of it"
          f" generic specializations ({', '.join(f'{m[7:]} {v / 1e3:.0f} KB' for m, v in modules.most_common())});"
          " the most specialized:")
    for name, size in specialized.most_common(8):
        print(f"  {size / 1e3:6.0f} KB  {name}")

if __name__ == "__main__":
    main()
