#!/usr/bin/env bash
# A clean debug build (`cargo build --locked`, empty target folder, crates already downloaded)
# of two commits, alternating round by round so load drifts hit both alike. Prints each
# build's wall time, the packages in its Cargo.lock and the load, then medians and after/before.
#
#   bench/build-time.sh BEFORE_REV AFTER_REV [ROUNDS]     (default 1 round)
#
# Each build uses every core (cargo's default jobs). Run it on an otherwise idle machine: a
# build of this size takes 10–20 minutes on 2 cores, and other work skews it.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BEFORE="$1"; AFTER="$2"; ROUNDS="${3:-1}"
WORK="$(mktemp -d /tmp/ghostlab-bench-build.XXXXXX)"
trap 'rm -rf "$WORK"' EXIT
declare -A times

for label in before after; do
  rev=$BEFORE; [ "$label" = after ] && rev=$AFTER
  mkdir "$WORK/$label"
  git -C "$ROOT" archive "$rev" | tar -x -C "$WORK/$label"
  # Fetch once, outside the timing: the build measures compiling, not downloading.
  (cd "$WORK/$label" && cargo fetch --locked -q)
done

one_build() { # label round
  local src="$WORK/$1" start end secs packages
  rm -rf "$src/target"
  packages=$(grep -c '^\[\[package\]\]' "$src/Cargo.lock")
  start=$(date +%s.%N)
  (cd "$src" && cargo build --locked --offline -q) >"$WORK/$1-$2.log" 2>&1 \
    || { echo "$1 round $2: build failed, see $WORK/$1-$2.log" >&2; trap - EXIT; exit 1; }
  end=$(date +%s.%N)
  secs=$(echo "$end - $start" | bc)
  echo "$1 round $2: ${secs}s  ($packages packages; load $(cut -d' ' -f1-3 /proc/loadavg))"
  times[$1]="${times[$1]:-} $secs"
}

for round in $(seq 1 "$ROUNDS"); do
  one_build before "$round"
  one_build after "$round"
done

median() { tr ' ' '\n' | sed '/^$/d' | sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
b=$(echo "${times[before]}" | median); a=$(echo "${times[after]}" | median)
echo "median: before ${b}s, after ${a}s, after/before $(echo "scale=2; $a / $b" | bc)"
