#!/usr/bin/env bash
# Builds netvigil_<version>_<arch>.deb with dpkg-deb from an already built binary.
#   deploy/debian/build-deb.sh BINARY OUTDIR
# `make deb` passes the release binary (swift build -c release --static-swift-stdlib). The binary must not need the
# Swift runtime from the toolchain (it is linked statically): the package depends only on Debian libraries (computed by dpkg-shlibdeps, and libmnl0, libssl3 and libsqlite3-0 must be among them). The file
# tree is what `make install PREFIX=/usr` installs.
set -euo pipefail

if [ $# -ne 2 ]; then
    echo "usage: $0 BINARY OUTDIR" >&2
    exit 64
fi
binary=$(realpath "$1")
outdir=$2
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
[ -x "$binary" ] || { echo "build-deb: $1 is not an executable (run make release)" >&2; exit 66; }

dynamic=$(readelf -d "$binary")
if grep -q 'NEEDED.*libswift' <<<"$dynamic"; then
    echo "build-deb: $1 links the Swift runtime dynamically; build it with swift build -c release --static-swift-stdlib" >&2
    exit 65
fi
if grep -Eq 'RPATH|RUNPATH' <<<"$dynamic"; then
    echo "build-deb: $1 has an RPATH/RUNPATH; a packaged binary must use the system library path" >&2
    exit 65
fi

version=$(sed -n 's/.*current = "\(.*\)".*/\1/p' "$top/Sources/NetVigilAgent/NetVigilVersion.swift")
arch=$(dpkg --print-architecture)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root="$work/netvigil"
mkdir -p "$root"
chmod 0755 "$root"

make --no-print-directory -C "$top" install-files DESTDIR="$root" PREFIX=/usr UNITDIR=/lib/systemd/system BINARY="$binary" >&2

doc="$root/usr/share/doc/netvigil"
install -d -m 0755 "$doc"
install -m 0644 "$here/copyright" "$doc/copyright"
sed -e "s/@VERSION@/$version/" -e "s/@DATE@/$(date -R -u -d @"${SOURCE_DATE_EPOCH:-$(git -C "$top" log -1 --format=%ct 2>/dev/null || date +%s)}")/" \
    "$here/changelog.in" | gzip -9n > "$doc/changelog.gz"
gzip -9n "$root/usr/share/man/man1/netvigil.1"
install -d -m 0755 "$root/usr/share/lintian/overrides"
install -m 0644 "$here/lintian-overrides" "$root/usr/share/lintian/overrides/netvigil"

# Runtime dependencies from the ELF NEEDED entries (dpkg-shlibdeps reads a control file for the package name).
mkdir -p "$work/debian"
printf 'Source: netvigil\n\nPackage: netvigil\nArchitecture: any\n' > "$work/debian/control"
shlibs=$(cd "$work" && dpkg-shlibdeps -O "$root/usr/bin/netvigil" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
for library in libmnl0 libssl3 libsqlite3-0; do
    case ", $shlibs" in
        *", $library "*|*", $library,"*|*", $library") ;;
        *) echo "build-deb: expected the binary to link $library; dpkg-shlibdeps found: $shlibs" >&2; exit 65 ;;
    esac
done
# The webpki profile reads the Public Suffix List (wildcards over public suffixes).
depends="$shlibs, adduser, publicsuffix"

install -d -m 0755 "$root/DEBIAN"
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s/@VERSION@/$version/" -e "s/@ARCH@/$arch/" -e "s/@SIZE@/$size/" -e "s/@DEPENDS@/$depends/" \
    "$here/control.in" > "$root/DEBIAN/control"
install -m 0644 "$here/conffiles" "$root/DEBIAN/conffiles"
for script in postinst prerm postrm; do
    install -m 0755 "$here/$script" "$root/DEBIAN/$script"
done
(cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 md5sum) > "$root/DEBIAN/md5sums"
chmod 0644 "$root/DEBIAN/md5sums"

mkdir -p "$outdir"
deb="$outdir/netvigil_${version}_${arch}.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
