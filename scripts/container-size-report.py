#!/usr/bin/env python3
"""Where the container fetch's bytes go, from gold's link map (scripts/build-container-fetch.sh).

    container-size-report.py MAP [UNSTRIPPED-BINARY]

Prints the input sections the linker kept (after --gc-sections), summed per archive and per
Lariat module; the FoundationEssentials members that weigh most; which archive members pulled
in the regex engine and FoundationInternationalization (should be none); and how much of
Lariat's own code is generic specializations, by the generic function specialized.
.eh_frame is not listed per input file in gold's map: the section list above covers it.
"""
import bisect
import collections
import re
import subprocess
import sys

LARIAT = ("fetch", "Client", "Transport", "TLS", "Wire", "EventLoop")


def owner(obj):
    for module in LARIAT:
        if f"/{module}.build/" in obj:
            return "Lariat " + module
    return re.sub(r"\(.*", "", obj.split("/")[-1])


def read_map(path):
    """(section name, size, object) for every kept input section, and archive inclusion reasons."""
    kept, included = [], {}
    part, current, pending = "included", "", None
    for line in open(path, errors="replace"):
        if line.startswith("Discarded input sections"):
            part = "discarded"
            continue
        if line.startswith("Memory map"):
            part = "kept"
            continue
        if part == "included":
            member = re.match(r"^(\S+\.a)\((.+)\)$", line.rstrip("\n"))
            if member:
                pending = member.group(1).split("/")[-1] + "(" + member.group(2) + ")"
            elif pending and line.startswith(" "):
                included[pending] = line.strip()
                pending = None
            continue
        if part != "kept":
            continue
        # An input section's name may stand on its own line, its address and size on the next.
        named = re.match(r"^ ([.\w$]\S*)", line)
        if named:
            current = named.group(1)
        sized = re.match(r"^ (?:\S+)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+\.(?:o|a)\S*)", line)
        if not sized or current.startswith((".debug", ".comment")):
            continue
        kept.append((current, int(sized.group(2), 16), sized.group(3), int(sized.group(1), 16)))
    return kept, included


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
    kept, included = read_map(sys.argv[1])
    by_owner = collections.Counter()
    for _, size, obj, _ in kept:
        by_owner[owner(obj)] += size
    total = sum(by_owner.values())
    lariat = sum(size for name, size in by_owner.items() if name.startswith("Lariat "))
    print("by archive and Lariat module (kept input sections, before stripping):")
    for name, size in by_owner.most_common(16):
        print(f"  {size / 1e6:6.2f} MB  {name}")
    print(f"  {total / 1e6:6.2f} MB  total ({lariat / 1e6:.2f} MB Lariat's own)")

    members = collections.Counter()
    for _, size, obj, _ in kept:
        if "libFoundationEssentials.a(" in obj:
            members[obj.split("(")[-1].rstrip(")")] += size
    print("FoundationEssentials, heaviest members:")
    for name, size in members.most_common(8):
        print(f"  {size / 1e3:6.0f} KB  {name}")

    print("regex engine and FoundationInternationalization (why linked, from the map):")
    watched = [m for m in included if re.match(r"lib(swift_StringProcessing|swift_RegexParser|FoundationInternationalization|_FoundationICU)\.a", m)]
    for member in watched:
        print(f"  {member} <- {included[member][:160]}")
    if not watched:
        print("  none linked")

    # Lariat's functions sit in one .text input section per object, so the map cannot name them:
    # the unstripped binary's symbols (nm -S) are placed into those sections by address.
    if len(sys.argv) < 3:
        return
    ranges = sorted((address, address + size, owner(obj)) for section, size, obj, address in kept
                    if section.startswith(".text") and owner(obj).startswith("Lariat ") and address)
    starts = [start for start, _, _ in ranges]
    listing = subprocess.run(["nm", "-S", "--defined-only", sys.argv[2]], capture_output=True, text=True).stdout
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
