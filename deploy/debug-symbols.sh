#!/usr/bin/env bash
# Splits a binary's debug symbols off, for the stripped binary that `make install` and the .deb ship.
#   deploy/debug-symbols.sh BINARY ROOT
# Writes ROOT/usr/lib/debug/.build-id/XX/YYYYYYYY.debug (compressed DWARF, matched by the binary's GNU build id):
# copy ROOT's usr/ over / on the host (or point gdb's debug-file-directory at ROOT/usr/lib/debug) and gdb,
# systemd-coredump and perf find the symbols of the installed netvigil by its build id.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 BINARY ROOT" >&2
    exit 64
fi
binary=$1
root=$2
[ -x "$binary" ] || { echo "debug-symbols: $binary is not an executable (run make release)" >&2; exit 66; }
id=$(readelf -n "$binary" | sed -n 's/^ *Build ID: *//p')
id=${id%%$'\n'*}
[ -n "$id" ] || { echo "debug-symbols: $binary has no GNU build id" >&2; exit 65; }
sections=$(readelf -S -W "$binary")
grep -q '\.debug_info' <<<"$sections" || { echo "debug-symbols: $binary carries no debug symbols (already stripped?)" >&2; exit 65; }
out="$root/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
install -d -m 0755 "$(dirname "$out")"
objcopy --only-keep-debug --compress-debug-sections=zlib "$binary" "$out"
chmod 0644 "$out"
echo "$out ($(du -k "$out" | cut -f1) KiB; build id $id)"
