#!/bin/sh
# Build rdma-core's rxe provider with rrxe's doorbell (README in this directory).
#
#   tools/provider/build.sh VERSION DOWNLOADS WORKDIR
#
# VERSION is a Debian rdma-core version (the target's libibverbs1, e.g. 56.1-1).
# Its source is fetched with apt-get (deb-src lines needed) into DOWNLOADS,
# unpacked with Debian's patches into WORKDIR, patched with this directory's
# patch and rrxe's uapi header, and only the rxe provider is built. Prints the
# path of the library. Needs build-essential, cmake, ninja-build, pkgconf and
# python3; scripts/provider runs it in the build root.
set -eu
[ $# = 3 ] || { echo "usage: $0 VERSION DOWNLOADS WORKDIR" >&2; exit 2; }
ver=$1 dl=$2 work=$3
here=$(cd "$(dirname "$0")" && pwd)
upver=${ver#*:}
upver=${upver%-*}

# The .dsc is not needed: the tarballs are checked by apt against the signed
# Sources index, and unpacked here as dpkg-source would (some mirrors lack .dsc
# files). apt-get skips files it already has with the right checksum.
mkdir -p "$dl" "$work"
cd "$dl"
apt-get source -q --only-source --tar-only rdma-core="$ver" >&2
apt-get source -q --only-source --diff-only rdma-core="$ver" >&2
set -- "$dl"/rdma-core_"$upver".orig.tar.*
orig=$1
debian=$dl/rdma-core_${ver#*:}.debian.tar.xz
if [ ! -f "$orig" ] || [ ! -f "$debian" ]; then
	echo "$0: no source tarballs for rdma-core $ver" >&2
	exit 1
fi

src=$work/rdma-core-$upver
rm -rf "$src" "$work/build"
mkdir -p "$src"
tar -xf "$orig" -C "$src" --strip-components=1
tar -xf "$debian" -C "$src"
if [ -f "$src/debian/patches/series" ]; then
	sed 's/#.*//' "$src/debian/patches/series" | while read -r p opt; do
		[ -n "$p" ] || continue
		patch -d "$src" -s -p1 ${opt:+"$opt"} <"$src/debian/patches/$p"
	done
fi
cp "$here/../../uapi/rdma/rdma_user_rrxe.h" "$src/kernel-headers/rdma/"
patch -d "$src" -s -p1 <"$here/0001-rxe-rrxe-doorbell.patch"

pabi=$(sed -n 's/^set(IBVERBS_PABI_VERSION "\([0-9]*\)")$/\1/p' "$src/CMakeLists.txt")
[ -n "$pabi" ] || { echo "$0: no IBVERBS_PABI_VERSION in $src/CMakeLists.txt" >&2; exit 1; }

# Debian's flags (hardening=+all as debian/rules), without the parts that
# need more packages: pyverbs (cython3), man pages (pandoc), netlink neighbour
# resolution (libnl) and valgrind annotations. No RPATH: the library must bind
# the system's libibverbs, not the one built beside it.
eval "$(DEB_BUILD_MAINT_OPTIONS=hardening=+all dpkg-buildflags --export=sh)"
cmake -S "$src" -B "$work/build" -GNinja -Wno-dev \
	-DCMAKE_BUILD_TYPE=Release -DDISTRO_FLAVOUR=Debian -DCMAKE_SKIP_RPATH=ON \
	-DNO_PYVERBS=1 -DNO_MAN_PAGES=1 -DENABLE_RESOLVE_NEIGH=0 -DENABLE_VALGRIND=0 \
	-DENABLE_STATIC=0 >"$work/configure.log" 2>&1 ||
	{ tail -n 20 "$work/configure.log" >&2; exit 1; }
ninja -C "$work/build" "rxe-rdmav$pabi" >"$work/build.log" 2>&1 ||
	{ tail -n 30 "$work/build.log" >&2; exit 1; }

lib=$work/librxe-rdmav$pabi.so
strip --strip-unneeded -o "$lib" "$work/build/lib/librxe-rdmav$pabi.so"
echo "$lib"
