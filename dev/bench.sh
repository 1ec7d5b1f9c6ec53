#!/usr/bin/env bash
# make bench: every area's benchmarks against a real local RocketMQ, then a short table.
#
# Uses the cluster named by RMQC_TEST_NAMESRV, or starts the local one (rmqdev up) and
# stops it at the end. Raw `go test -bench` output goes to $BENCH_OUT (default
# /tmp/rmqconsole-bench), one file per area, ready for benchstat.
#
# Each area appends one section below: it runs its benchmarks with run_bench, which
# records them for the table printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
OUT=${BENCH_OUT:-${TMPDIR:-/tmp}/rmqconsole-bench}
COUNT=${BENCH_COUNT:-3}
mkdir -p "$OUT"

started=0
if [ -z "${RMQC_TEST_NAMESRV:-}" ]; then
	$GO run ./dev/cmd/rmqdev up
	started=1
	export RMQC_TEST_NAMESRV=127.0.0.1:19876
fi

finish() {
	rc=$?
	if [ -n "$(ls "$OUT"/*.txt 2>/dev/null)" ]; then
		echo
		echo "== summary ($COUNT runs each; raw output in $OUT/) =="
		# One line per benchmark run: its name, then every custom metric (value unit).
		awk '/^Benchmark/ {
			line = sprintf("%-48s", $1)
			for (i = 5; i < NF; i += 2) line = line sprintf("  %s %s", $i, $(i + 1))
			print line
		}' "$OUT"/*.txt
	fi
	if [ "$started" = 1 ]; then $GO run ./dev/cmd/rmqdev down; fi
	exit $rc
}
trap finish EXIT

# run_bench NAME PACKAGE REGEX [go test flags...] runs benchmarks into $OUT/NAME.txt.
run_bench() {
	local name=$1 pkg=$2 re=$3
	shift 3
	echo "== $name: $pkg $re"
	$GO test -run='^$' -bench="$re" -count="$COUNT" -timeout 30m "$@" "$pkg" 2>&1 |
		grep -v -E '^time=|level=' | tee "$OUT/$name.txt"
}

# ---- rocketmq client: pulling and decoding 2000 messages --------------------------------
#   Pull2000: the console's pull of 2000 x 1 KiB against bare frames of the same requests;
#   DecodeMessages against rocketmq-client-go's decoder.
run_bench rocketmq ./rocketmq/ 'BenchmarkPull2000|BenchmarkDecodeMessages'

# ---- messages (lookup): the issue's Performance section ---------------------------------
# The first run seeds topic bench-lookup-1k (8 queues, 100 000 messages of 1 KiB, about a
# minute; RMQC_BENCH_MESSAGES changes the count); later runs reuse it.
# Targets: RangeNewest2000 console/bare <= 1.3; KeyQuery and IDQuery console/bare <= 1.2;
# RangeMemory held/messages <= 3; MessagesPageRender ms/page <= 15.
run_bench messages-lookup ./lookup/ 'BenchmarkRangeNewest2000|BenchmarkRangeMemory|BenchmarkKeyQuery|BenchmarkIDQuery' -benchtime=200x

# ---- deep scan: the whole seeded topic (>= 100 000 messages) against bare pulls ----------
# Target: scan/bare >= 0.8 (throughput); msgs/s-scan and msgs/s-bare are the rates.
run_bench messages-scan ./lookup/ 'BenchmarkDeepScan' -benchtime=4x
run_bench messages-render ./handlers/ 'BenchmarkMessagesPageRender' -benchtime=200x

# ---- a client message id without its topic, on a cluster of 1 000 topics ----------------
# The first run creates topics bench-anytopic-0000..0999 (one queue each); later runs reuse
# them. Target: ms-without-topic <= 2000 for "nowhere" (every topic's index read).
run_bench messages-anytopic ./lookup/ 'BenchmarkUniqueKeyWithoutTopic' -benchtime=6x

# ---- live tail: store → frame while a real producer sends 200 messages at 50 a second ----
# Target: ms-p95 <= 1000 (store → row visible); ack-ms-p95 is store → SendSync returned.
run_bench messages-tail ./lookup/ 'BenchmarkTailLatency' -benchtime=1x

# ---- topics: the first page of the topic list on 1 000 more topics -----------------------
#   The way before (every broker's configs, then GET_TOPIC_STATS_INFO per topic and broker)
#   against now (configs alone, figures from the collector's memory), in the same run:
#   ms/page and requests/page for both, before/now; requests/round of one round of
#   the figure collector against its budget/round. Creates bench-topics-* and deletes them.
run_bench topics-list ./topics/ 'BenchmarkTopicList1000Cold' -benchtime=5x

# ---- consumer groups: the issue's Performance section ------------------------------------
# The first run seeds 1000 subscription groups bench-grp-NNNN with committed offsets
# (RMQC_BENCH_GROUPS changes the count; about ten seconds); later runs reuse them.
#   GroupList cold vs sequential: a full pass over every group, bounded concurrency against
#     one call at a time (the baseline); warm: from the cache (0 broker calls).
#   GroupsPage: GET /groups on the real binary, cold (refresh=1) and warm.
#   LiveViewers: requests/poll must be the same for 1 and 200 viewers; rss-MiB < 80.
#   JoinToBrowser: consumer Start → its row in Chromium, at a 1 s poll (median, p95).
#   GroupList also runs at 10 000 groups by default (RMQC_BENCH_GROUPS=1000,10000; seeding
#     10 000 takes over ten minutes once), against the way before (per-group).
#   MessageGroups: a message's consumers with 1 000 groups on its topic, before and now.
run_bench groups-list ./groups/ 'BenchmarkGroupList' -benchtime=3x
#   SweepRotation: the rebalance sweep on simulated clusters of 100, 1 000 and 10 000 groups:
#     collections until every online group was read once; broker calls of the largest sweep
#     (a sweep over its budget fails). No RocketMQ needed.
run_bench groups-sweep ./groups/ 'BenchmarkSweepRotation' -benchtime=1x
run_bench groups-message ./lookup/ 'BenchmarkMessageGroups' -benchtime=20x
run_bench groups-page ./e2e/ 'BenchmarkGroupsPage' -benchtime=5x
#   GroupListTenThousandGroups: a private broker seeded with 10 000 groups and 5 000 topics
#     (in its config files, at no broker call): the group list's first rows in Chromium
#     (goal: 300 ms), and the API's first page afresh and kept.
run_bench groups-10k ./e2e/ 'BenchmarkGroupListTenThousandGroups' -benchtime=5x
run_bench groups-live ./e2e/ 'BenchmarkLiveViewers' -benchtime=10x
run_bench groups-latency ./e2e/ 'BenchmarkJoinToBrowser' -benchtime=20x

# ---- resets: preview and apply of an offline group on an 8-queue topic ------------------
#   consume-stats-baseline: one GET_CONSUME_STATS, the least any preview must ask;
#   preview / apply: time and broker calls per operation (apply includes its 1 s settle).
run_bench resets ./resets/ 'BenchmarkResetRealBroker' -benchtime=20x

# ---- access control: a request's session check, against no access control -------------
run_bench auth ./server/ 'BenchmarkAccessCheck'

# ---- scale simulation: the real console against a simulated cluster (dev/cmd/rmqfake) ----
#   Sizes (RMQC_BENCH_SCALE, default 1x,10x,100x; "max" adds 64 brokers x 100 000 groups x
#   50 000 topics): 1x = 1 broker x 500 groups x 200 topics, 10x = 4 x 5 000 x 2 000, 100x =
#   16 x 50 000 x 20 000. Latency per broker call: RMQC_BENCH_LATENCY (default 1ms; e.g.
#   1ms,5ms). Per page and collector: broker calls (counted by the simulation by request
#   code), time, answer bytes, console RSS; a table is printed at the end of the run.
#   Goals (first page of each list <= 100 ms at 100x with 1 ms calls, a message page <=
#   50 ms, console RSS <= 150 MiB at the largest size) are read off that table.
run_bench scale ./e2e/ 'BenchmarkScale' -benchtime=1x -count=1 -timeout 90m
