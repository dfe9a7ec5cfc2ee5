# shellcheck shell=bash
# Common settings for rrxe's scripts. Sourced, never executed.
#
# Everything heavy lives in $RRXE_CACHE, outside the clone, so that re-runs
# are incremental and a fresh clone on the same machine reuses the work.
set -euo pipefail

RRXE_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RRXE_CACHE=${RRXE_CACHE:-$HOME/.cache/rrxe}
RRXE_SUITE=trixie
BUILDROOT=$RRXE_CACHE/buildroot     # toolchain chroot (debootstrap minbase)
GUESTROOT=$RRXE_CACHE/guestroot     # guest user space (debootstrap minbase)
GUESTIMG=$RRXE_CACHE/guest.img      # raw ext4 image of GUESTROOT
KSRC=$RRXE_CACHE/linux              # extracted kernel source with rust/ overlay
LOGDIR=$RRXE_CACHE/logs
# Paths as seen from inside the build root (the cache is bind-mounted there).
IN_CACHE=/cache
IN_TOP=/src
# bindgen 0.71 (trixie) mis-parses with libclang 22 (rust-bindgen PR 3278), so it
# is pointed at libclang 19 while clang-22 compiles: bindgen only reads headers.
BINDGEN_LIBCLANG=/usr/lib/x86_64-linux-gnu/libclang-19.so.1

mkdir -p "$RRXE_CACHE" "$LOGDIR"

log() { printf '[rrxe %s] %s\n' "$(date +%H:%M:%S)" "$*" >&2; }
die() { printf '[rrxe] error: %s\n' "$*" >&2; exit 1; }

# The Debian mirror is taken from the host's own apt configuration so that no
# archive host name is written into the project. RRXE_MIRROR overrides it.
host_apt_uris() {
	{
		grep -hE '^[[:space:]]*deb[[:space:]]' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
			awk '{ for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; break } }'
		grep -hE '^[[:space:]]*URIs:' /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '{ print $2 }'
	} | sed 's:/*$::'
}
debian_mirror() {
	if [ -n "${RRXE_MIRROR:-}" ]; then echo "$RRXE_MIRROR"; return; fi
	host_apt_uris | grep -E '/debian$' | head -n1
}
debian_security_mirror() {
	if [ -n "${RRXE_SECURITY_MIRROR:-}" ]; then echo "$RRXE_SECURITY_MIRROR"; return; fi
	host_apt_uris | grep -E '/debian-security$' | head -n1
}

# Run a command inside a root directory in a private mount namespace: the
# proc/sys/dev mounts and the bind mounts of the cache and the repo vanish
# with the namespace, so nothing is ever left mounted on the host.
in_root() {
	local root=$1; shift
	unshare --mount --propagation private --fork -- bash -euc '
		root=$1; cache=$2; top=$3
		mount -t proc proc "$root/proc"
		mount --rbind /sys "$root/sys"
		mount --rbind /dev "$root/dev"
		mkdir -p "$root/cache" "$root/src"
		mount --bind "$cache" "$root/cache"
		mount --bind "$top" "$root/src"
		cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
		exec chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
			PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin LIBCLANG_PATH="$4" "${@:5}"
	' in_root "$root" "$RRXE_CACHE" "$RRXE_TOP" "$BINDGEN_LIBCLANG" "$@"
}

in_buildroot() { in_root "$BUILDROOT" "$@"; }

# Content-addressed stamps: a step is redone only when the content of its inputs
# changed, so a fresh clone (new mtimes) of an unchanged tree redoes nothing.
# usage: stale STAMP INPUT...   returns 0 (true) when the step must run
#        stamp STAMP INPUT...   records the inputs' digest after the step ran
inputs_digest() {
	local f
	for f in "$@"; do
		if [ -d "$f" ]; then
			find "$f" -type f -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum
		elif [ -e "$f" ]; then
			sha256sum "$f"
		else
			echo "missing $f"
		fi
	done | sed "s|$RRXE_TOP/||; s|$RRXE_CACHE/||" | sha256sum | cut -d' ' -f1
}
stale() {
	local st=$1; shift
	[ -f "$st" ] || return 0
	[ "$(cat "$st")" != "$(inputs_digest "$@")" ]
}
stamp() {
	local st=$1; shift
	inputs_digest "$@" >"$st"
}
