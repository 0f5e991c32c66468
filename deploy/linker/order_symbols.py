#!/usr/bin/env python3
"""Writes lld's --symbol-ordering-file for netvigil from callgrind profiles (see deploy/linker/generate-order.sh).

Usage: order_symbols.py BINARY OUTPUT STARTUP_PROFILE... -- CYCLE_PROFILE... [-- OCCASIONAL_PROFILE...]

Each profile is a callgrind.out file written with --demangle=no (dumps of one run are separate files); a function
counts as executed when the profile has a cost line for it in BINARY. CYCLE profiles are the daemon's steady probe
cycle alone (what an idle agent runs every minute); OCCASIONAL ones the steady work that comes now and then (feed
requests, scrapes). The order, in five groups:
  1. start-up only;  2. start-up and occasional, not the cycle;  3. start-up and the cycle;
  4. the cycle, not start-up;  5. occasional only.
So start-up's code (groups 1-3) and the cycle's code (groups 3-4) each lie in one stretch. Groups 3 and 4 are sorted by
how often the cycle profiles call each function, group 3 least first and group 4 most first, so the most called
functions of both meet in the middle: the code every probe runs shares pages, away from code one target kind or one
probe in a hundred needs. The kernel maps 64 KB around each page fault, so a sparse stretch keeps whole windows
resident for a few functions. Other groups: by the first profile (in the order given)
that ran them, then by name. After the functions, every Swift protocol conformance descriptor BINARY defines ($s...Mc),
in the order of the records that point to them: the runtime's first look-up of a (type, protocol) pair reads all of
them, so together they take 0.7 MB of .rodata instead of pages across 36 MB, and the look-up reads them front to back
(docs/performance.md, function order).
Output: a '#' comment header, then one mangled symbol name a line (lld ignores '#' lines).
"""
import os
import re
import struct
import subprocess
import sys


def executed(path, binary):
    """The mangled names of the functions of `binary` that `path` (a callgrind.out file) has costs for."""
    return profile(path, binary)[0]


def profile(path, binary):
    """(executed, calls): the functions of `binary` that `path` has costs for, and how many calls each received
    (summed over its callers' `calls=` lines, whichever object the caller is in)."""
    names, objects = {}, {}
    current_object = current_function = called = None
    found, calls = set(), {}
    binary = os.path.realpath(binary)
    for line in open(path, encoding="utf-8", errors="replace"):
        if line.startswith("cob="):
            _compressed(line[4:], objects)
        elif line.startswith("cfn="):
            called = re.sub(r"'\d+$", "", _compressed(line[4:], names))
        elif line.startswith("calls="):
            if called:
                calls[called] = calls.get(called, 0) + int(line[6:].split()[0])
            called = None
        elif line.startswith("ob="):
            current_object = _compressed(line[3:], objects)
        elif line.startswith("fn="):
            current_function = _compressed(line[3:], names)
            if current_object and os.path.realpath(current_object) == binary:
                name = re.sub(r"'\d+$", "", current_function)
                if name and not name.startswith("0x"):
                    found.add(name)
    return found, calls


def _compressed(text, table):
    """Callgrind's name compression: '(id) name' defines id, '(id)' refers back to it (ob/cob and fn/cfn share
    a table)."""
    text = text.strip()
    match = re.match(r"\((\d+)\)\s*(.*)$", text)
    if not match:
        return text
    key, name = match.groups()
    if name:
        table[key] = name
    return table.get(key, "")


def _symbol_table(command, types):
    """(address, name) of each symbol `command` (an nm listing) gives of one of `types` (nm's type letters), the name
    without @version."""
    listing = subprocess.run(command, check=True, capture_output=True, text=True).stdout
    rows = (line.split(None, 2) for line in listing.splitlines())
    return [(int(fields[0], 16), fields[2].split("@")[0]) for fields in rows if len(fields) == 3 and fields[1] in types]


def _symbols(command, types):
    """The names `command` (an nm listing) gives symbols of one of `types` (nm's type letters), without @version."""
    return {name for _, name in _symbol_table(command, types)}


def defined_code(binary):
    """The names of the functions `binary` defines (nm: text symbols) and no shared library it loads defines
    (a name such as __udivti3 resolves to libgcc_s at link time, which lld cannot order), so that callgrind's own
    names ("(below main)") stay out of the list too."""
    code = _symbols(["nm", "--defined-only", binary], "TtWwi")
    libraries = re.findall(r"=> (/\S+)", subprocess.run(["ldd", binary], capture_output=True, text=True).stdout)
    for library in libraries:
        code -= _symbols(["nm", "-D", "--defined-only", library], "TtWwi")
    return code


def conformance_descriptors(binary):
    """The Swift protocol conformance descriptors `binary` defines (data symbols $s...Mc), in the order of the
    records that point to them, so that the runtime's scan reads them front to back; any no record points to follow,
    by name. The records keep the order of the link's input files, which the ordering file does not change."""
    by_address = {address: name for address, name in _symbol_table(["nm", "--defined-only", binary], "DdRr")
                  if name.startswith("$s") and name.endswith("Mc")}
    ordered, seen = [], set()
    for address in conformance_records(binary):
        name = by_address.get(address)
        if name and name not in seen:
            ordered.append(name)
            seen.add(name)
    return ordered + sorted(name for name in by_address.values() if name not in seen)


def conformance_records(binary):
    """The descriptor addresses of `binary`'s protocol conformance records, in their order: section
    swift5_protocol_conformances holds one 32-bit offset from each record to its descriptor."""
    sections = subprocess.run(["readelf", "-SW", binary], check=True, capture_output=True, text=True).stdout
    match = re.search(r"\]\s+swift5_protocol_conformances\s+\S+\s+([0-9a-f]+)\s+([0-9a-f]+)\s+([0-9a-f]+)", sections)
    if not match:
        return []
    address, offset, size = (int(field, 16) for field in match.groups())
    with open(binary, "rb") as file:
        file.seek(offset)
        data = file.read(size)
    return [address + index + struct.unpack_from("<i", data, index)[0] for index in range(0, size - size % 4, 4)]


def main(arguments):
    if len(arguments) < 4 or "--" not in arguments:
        sys.exit(__doc__)
    binary, output = arguments[0], arguments[1]
    split = arguments.index("--")
    startup_files, rest = arguments[2:split], arguments[split + 1:]
    cycle_files, occasional_files = (rest[:rest.index("--")], rest[rest.index("--") + 1:]) if "--" in rest else (rest, [])
    code = defined_code(binary)
    profiles, cycle_calls = [], {}
    for index, path in enumerate(startup_files + cycle_files + occasional_files):
        names, calls = profile(path, binary)
        profiles.append(names & code)
        if len(startup_files) <= index < len(startup_files) + len(cycle_files):
            for name, count in calls.items():
                cycle_calls[name] = cycle_calls.get(name, 0) + count
    first_seen = {}
    for index, names in enumerate(profiles):
        for name in names:
            first_seen.setdefault(name, index)
    startup = set().union(set(), *profiles[:len(startup_files)])
    cycle = set().union(set(), *profiles[len(startup_files):len(startup_files) + len(cycle_files)])
    occasional = set().union(set(), *profiles[len(startup_files) + len(cycle_files):])

    def group(name):
        if name in cycle:
            return 2 if name in startup else 3
        if name in startup:
            return 1 if name in occasional else 0
        return 4

    def key(name):
        g = group(name)
        # Group 2 ascending and group 3 descending: the most called functions of both meet where the groups do.
        if g == 2:
            return (g, cycle_calls.get(name, 0), first_seen[name], name)
        if g == 3:
            return (g, -cycle_calls.get(name, 0), first_seen[name], name)
        return (g, 0, first_seen[name], name)

    ordered = sorted(first_seen, key=key)
    counts = [sum(1 for name in ordered if group(name) == g) for g in range(5)]
    descriptors = conformance_descriptors(binary)
    with open(output, "w") as file:
        file.write("# netvigil's hot functions for lld --symbol-ordering-file (generated by deploy/linker/generate-order.sh;\n")
        file.write("# docs/performance.md). Start-up only: %d, start-up and occasional: %d, start-up and cycle: %d, "
                   "cycle only: %d, occasional only: %d; then %d conformance descriptors.\n"
                   % (*counts, len(descriptors)))
        for name in ordered + descriptors:
            file.write(name + "\n")
    print(f"{output}: {len(ordered)} symbols (start-up only {counts[0]}, start-up and occasional {counts[1]}, "
          f"start-up and cycle {counts[2]}, cycle only {counts[3]}, occasional only {counts[4]}) "
          f"and {len(descriptors)} conformance descriptors")


if __name__ == "__main__":
    main(sys.argv[1:])
