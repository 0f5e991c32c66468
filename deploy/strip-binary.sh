#!/usr/bin/env bash
# Writes the binary that `make install` and the .deb ship: BINARY without its symbol tables and debug info, plus the
# names of its functions, xz-compressed, in a `.gnu_debugdata` section ("MiniDebugInfo").
#   deploy/strip-binary.sh BINARY OUTPUT
# The release link exports no symbols (`--no-export-dynamic`, Package.swift), so without that section a stack trace
# of the installed binary would show bare addresses; gdb and systemd-coredump (elfutils) read it and name every
# function. Line numbers and variables stay in the separate debug symbols (deploy/debug-symbols.sh).
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 BINARY OUTPUT" >&2
    exit 64
fi
binary=$1
output=$2
[ -x "$binary" ] || { echo "strip-binary: $binary is not an executable (run make release)" >&2; exit 66; }
for tool in nm objcopy readelf strip xz; do
    command -v "$tool" >/dev/null || { echo "strip-binary: $tool not found (apt-get install binutils xz-utils)" >&2; exit 69; }
done
sections=$(readelf -S -W "$binary")
grep -q '\.symtab' <<<"$sections" || { echo "strip-binary: $binary has no symbol table (already stripped?)" >&2; exit 65; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# The function symbols (text, global or local), by name.
nm --format=posix --defined-only "$binary" | awk '$2 == "T" || $2 == "t" { print $1 }' | sort -u > "$work/functions"
# An ELF file with those symbols and nothing else of use: no code, data or DWARF.
objcopy --only-keep-debug "$binary" "$work/debug"
objcopy --strip-all --remove-section .comment --remove-section .gdb_index --keep-symbols="$work/functions" \
    "$work/debug" "$work/functions.elf"
xz --threads=1 "$work/functions.elf"
strip --strip-all --remove-section .comment -o "$work/stripped" "$binary"
objcopy --add-section .gnu_debugdata="$work/functions.elf.xz" "$work/stripped" "$output"
chmod 0755 "$output"
