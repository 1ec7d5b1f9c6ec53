#!/bin/sh
# Regenerates rocketmq/testdata/java/ from the real RocketMQ 5.3.3 Java
# libraries that dev/ fetches into .cache/rocketmq/5.3.3/lib (JDK 17).
# Run from anywhere: sh rocketmq/testdata/javagen/gen.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
lib="$here/../../../.cache/rocketmq/5.3.3/lib"
[ -d "$lib" ] || { echo "missing $lib: start the dev cluster once (make run) to fetch RocketMQ" >&2; exit 1; }
# RocketMQ's logback config writes under ~/logs; keep that out of $HOME.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
java -Duser.timezone=UTC -Duser.home="$tmp" -cp "$lib/*" "$here/GenFixtures.java" "$here/.." >"$tmp/out.log" 2>&1 ||
	{ grep -v '|-INFO\||-WARN' "$tmp/out.log" >&2; exit 1; }
