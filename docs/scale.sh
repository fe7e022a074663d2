#!/usr/bin/env bash
# scale.sh measures the scale targets of docs/performance.md ("Targets")
# as whole processes on this machine and prints one
# line per target: the figures of every run, the target, and whether the
# median meets it. It builds prism and its fixtures once, in DIR.
#
#   docs/scale.sh [-n RUNS] [-d DIR] [-summeval data.json] [ROW...]
#
# ROW is any of fitws fitmem offline summeval http httprun realistic global
# dryrun score dryanswered (all but realistic by default, which takes about 90 s a run;
# summeval only with -summeval, the SummEval data.json
# published at https://github.com/Yale-LILY/SummEval). Run it on an
# otherwise idle machine: wall times and the HTTP rows follow the
# machine's load. Needs Go and GNU time at /usr/bin/time. -selftest
# checks the script's own server start-up (start_srv) and exits.
set -euo pipefail

runs=3
dir=${TMPDIR:-/tmp}/prism-scale
summeval=
selftest=
while [ $# -gt 0 ]; do
	case $1 in
	-n) runs=$2; shift 2 ;;
	-d) dir=$2; shift 2 ;;
	-summeval) summeval=$2; shift 2 ;;
	-h|--help) sed -n '2,15p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	-selftest) selftest=1; shift ;;
	-*) echo "scale.sh: unknown flag $1" >&2; exit 2 ;;
	*) break ;;
	esac
done
rows=("$@")
if [ ${#rows[@]} -eq 0 ]; then
	rows=(fitws fitmem offline http httprun global dryrun score dryanswered)
	[ -n "$summeval" ] && rows+=(summeval)
fi
[ -n "$selftest" ] || [ -x /usr/bin/time ] || { echo "scale.sh: needs GNU time at /usr/bin/time" >&2; exit 2; }
[ -z "$summeval" ] || summeval=$(realpath "$summeval")
mkdir -p "$dir"
dir=$(realpath "$dir")
cd "$(dirname "$0")/.."
p=$dir/p

say() { printf '%s\n' "$*" >&2; }

# srv is the fakejudge process of the httprun row while it runs: a failed
# run leaves none behind.
srv=
trap '[ -z "$srv" ] || kill "$srv" 2>/dev/null' EXIT

# start_srv FILE CMD...: starts the server CMD in the background, its
# output to FILE, and sets srv to its pid and url to the address it
# prints first. FILE is emptied before CMD starts and url read only from a
# whole first line: the shell truncates a redirect in the child, after the
# fork, so reading right after starting it could see the last run's
# address, of a server already stopped.
start_srv() {
	local out=$1; shift
	: >"$out"
	"$@" >"$out" 2>&1 &
	srv=$!
	url=
	for _ in $(seq 100); do
		if [ "$(wc -l <"$out")" -ge 1 ]; then
			url=$(head -n 1 "$out")
			break
		fi
		kill -0 "$srv" 2>/dev/null || break
		sleep 0.1
	done
	case $url in
	http://*) ;;
	*) kill "$srv" 2>/dev/null; say "scale.sh: $1 printed no address: $(head -c 200 "$out")"; exit 1 ;;
	esac
}

# -selftest: a server that starts slowly and writes its address in two
# pieces, over the address a stopped one left in the file, must be read
# as the new, whole address.
if [ -n "$selftest" ]; then
	echo http://127.0.0.1:1/stopped >"$dir/.srv-selftest"
	start_srv "$dir/.srv-selftest" bash -c 'sleep 0.3; printf http://127.0.0.1:2/; sleep 0.3; echo new; exec sleep 60'
	kill "$srv"; wait "$srv" 2>/dev/null || true; srv=
	[ "$url" = http://127.0.0.1:2/new ] || { say "scale.sh: selftest: read the address \"$url\", want http://127.0.0.1:2/new"; exit 1; }
	echo "scale.sh: selftest ok"
	exit 0
fi

# timed FILE CMD...: runs CMD under GNU time, its output dropped (its
# errors shown when it fails), appending "wall user sys peakKB" to FILE.
timed() {
	local out=$1; shift
	if ! /usr/bin/time -f '%e %U %S %M' -o "$dir/.t" "$@" >/dev/null 2>"$dir/.err"; then
		say "scale.sh: $* failed:"; cat "$dir/.err" >&2; exit 1
	fi
	tail -n 1 "$dir/.t" >>"$out"
}

# med FILE COL: the median of column COL (1-based) of FILE's lines.
med() { awk -v c="$2" '{print $c}' "$1" | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
# all FILE COL: column COL of FILE's lines, comma-separated.
all() { awk -v c="$2" '{printf "%s%s", (NR>1 ? ", " : ""), $c} END {print ""}' "$1"; }
allmb() { awk '{printf "%s%.0f", (NR>1 ? ", " : ""), $4/1024} END {print ""}' "$1"; }
met() { if awk "BEGIN {exit !($1)}"; then echo yes; else echo no; fi; }

say "building prism and the fixtures in $dir"
go build -o "$p" .
synth() { [ -f "$dir/$1" ] || go run ./model/synthstudy/synthgen "${@:2}"; }
synth d1k.jsonl -contexts 1000 -candidates 16 -dataset "$dir/d1k.jsonl"
synth s1k.csv -contexts 1000 -candidates 16 -attributes 8 -scores "$dir/s1k.csv" -labels "$dir/l1k.csv"
synth s5k.csv -contexts 5000 -candidates 16 -attributes 8 -scores "$dir/s5k.csv" -labels "$dir/l5k.csv"
if [ ! -f "$dir/base1k.db" ]; then
	"$p" data import jsonl "$dir/d1k.jsonl" --name d --workspace "$dir/base1k.db" >/dev/null
fi
fresh() { rm -f "$dir/$2" "$dir/$2-wal" "$dir/$2-shm"; cp "$dir/$1" "$dir/$2"; }
# ran1k.db: the 1,000-context study after one offline run, and its
# scores and labels exported for the CSV side of the fitws row.
ran() {
	if [ ! -f "$dir/ran1k.db" ]; then
		fresh base1k.db ran1k.db
		"$p" run --bank quality --workspace "$dir/ran1k.db" >/dev/null 2>&1
		"$p" export scores -o "$dir/ws.csv" --workspace "$dir/ran1k.db" 2>/dev/null
		"$p" export labels -o "$dir/wl.csv" --workspace "$dir/ran1k.db" 2>/dev/null
	fi
}

row_fitws() {
	ran
	local a=$dir/.fitws-ws b=$dir/.fitws-csv; : >"$a"; : >"$b"
	for _ in $(seq "$runs"); do
		timed "$a" "$p" fit --json --workspace "$dir/ran1k.db"
		timed "$b" "$p" fit --json --scores "$dir/ws.csv" --labels "$dir/wl.csv"
	done
	"$p" fit --json --workspace "$dir/ran1k.db" >"$dir/.fit-ws.json"
	"$p" fit --json --scores "$dir/ws.csv" --labels "$dir/wl.csv" >"$dir/.fit-csv.json"
	# The workspace's report names its study (what files cannot tell):
	# the rest must be the CSV fit's, byte for byte.
	local same=1
	python3 -c 'import json, sys; a, b = (json.load(open(f)) for f in sys.argv[1:]); a.pop("study", None); sys.exit(a != b)' \
		"$dir/.fit-ws.json" "$dir/.fit-csv.json" || same=0
	local r; r=$(awk -v a="$(med "$a" 1)" -v b="$(med "$b" 1)" 'BEGIN {printf "%.2f", a/b}')
	echo "fitws    fit --workspace vs CSV, 608,000 answers: $(all "$a" 1) s vs $(all "$b" 1) s (${r}×), peak $(allmb "$a") vs $(allmb "$b") MB, JSON $([ $same = 1 ] && echo identical || echo DIFFERENT) | target ≤ 1.5×, the same JSON | $(met "$r <= 1.5 && $same")"
}

row_fitmem() {
	local f=$dir/.fitmem g=$dir/.fitmem1k; : >"$f"; : >"$g"
	for _ in $(seq "$runs"); do
		timed "$f" "$p" fit --scores "$dir/s5k.csv" --labels "$dir/l5k.csv"
		timed "$g" "$p" fit --scores "$dir/s1k.csv" --labels "$dir/l1k.csv"
	done
	echo "fitmem   fit peak, 5,000 × 16 × 8: $(allmb "$f") MB ($(all "$f" 1) s; 1,000 contexts: $(allmb "$g") MB) | target ≤ 69 MB (3× the 22 MiB design) | $(met "$(med "$f" 4) <= 69*1024")"
}

row_offline() {
	local f=$dir/.offline; : >"$f"
	for _ in $(seq "$runs"); do
		fresh base1k.db run1k.db
		timed "$f" "$p" run --bank quality --workspace "$dir/run1k.db"
	done
	echo "offline  run, 1,000 × 16 × 38 (608,000 requests): $(all "$f" 1) s, $(allmb "$f") MB | target ≤ 20 s, ≤ 200 MB | $(met "$(med "$f" 1) <= 20 && $(med "$f" 4) <= 200*1024")"
}

row_summeval() {
	[ -n "$summeval" ] || { echo "summeval (skipped: no -summeval data.json)"; return; }
	if [ ! -f "$dir/se.db" ]; then
		"$p" data import summeval "$summeval" --workspace "$dir/se.db" >/dev/null
	fi
	local f=$dir/.summeval; : >"$f"
	for _ in $(seq "$runs"); do
		fresh se.db se-run.db
		timed "$f" "$p" run --bank quality --workspace "$dir/se-run.db"
	done
	echo "summeval run, SummEval × 38 (60,800 requests): $(all "$f" 1) s, $(allmb "$f") MB | target < 2 s | $(met "$(med "$f" 1) < 2")"
}

row_http() {
	go test -c -o "$dir/engine.test" ./judge/engine
	local f=$dir/.http; : >"$f"
	for _ in $(seq "$runs"); do
		(cd judge/engine && "$dir/engine.test" -test.run '^$' -test.bench 'BenchmarkHTTPEngine$/C=128$' -test.benchtime 1x) |
			awk '/^Benchmark/ {for (i = 1; i <= NF; i++) {
				if ($i == "%-of-bound") p = $(i-1); if ($i == "µs-cpu/req") c = $(i-1) }; print p, c}' >>"$f"
	done
	echo "http     engine at C = 128, L = 20 ms: $(all "$f" 1) % of bound, $(all "$f" 2) µs CPU/request | information only (no target)"
}

# realistic: prism run as a whole process against fakejudge answering
# after a real judge's latency, L = 300 ms and 1 s, at C = 16, 64 and 256.
# Each study is 19 full waves of C requests (38 conditions × C/2
# candidates; twice that, --repeats 2, at 300 ms), so the bound N·L/C is
# the whole run. Target: ≥ 98% of C/L for the whole process; CPU per
# request and the peak memory are reported (flat in requests: the 300 ms
# rows send twice the 1 s rows' requests).
row_realistic() {
	go build -o "$dir/fakejudge" ./judge/openai/openaitest/fakejudge
	local c lat reps ok=1 line=""
	for c in 16 64 256; do
		local nctx=$((c / 32)) ncand=16
		[ "$nctx" -ge 1 ] || { nctx=1; ncand=$((c / 2)); }
		synth "r$c.jsonl" -contexts "$nctx" -candidates "$ncand" -dataset "$dir/r$c.jsonl"
		[ -f "$dir/r$c.db" ] || "$p" data import jsonl "$dir/r$c.jsonl" --name d --workspace "$dir/r$c.db" >/dev/null
		for lat in 0.3 1; do
			reps=1; [ "$lat" = 0.3 ] && reps=2
			local f=$dir/.real-$c-$lat; : >"$f"
			for _ in $(seq "$runs"); do
				fresh "r$c.db" rr.db
				start_srv "$dir/.srv" "$dir/fakejudge" -latency "${lat}s"
				OPENAI_API_KEY=unused timed "$f" "$p" run --workspace "$dir/rr.db" --bank quality --repeats "$reps" \
					--backend openai --model m --base-url "$url" --concurrency "$c" --response-format none
				kill -INT $srv; wait $srv || true
				srv=
			done
			local n=$((38 * nctx * ncand * reps))
			awk -v n="$n" -v l="$lat" -v c="$c" '{printf "%.1f %.0f\n", 100 * n * l / c / $1, 1e6 * ($2 + $3) / n}' "$f" >"$f.pct"
			line+="  L=${lat}s C=$c, $n requests: $(all "$f.pct" 1) % of C/L, $(all "$f.pct" 2) µs CPU/request, $(allmb "$f") MB"$'\n'
			[ "$(met "$(med "$f.pct" 1) >= 98")" = yes ] || ok=0
		done
	done
	printf 'realistic prism run against fakejudge at a real judge'"'"'s latency | target ≥ 98%% of C/L | %s\n%s' "$([ $ok = 1 ] && echo yes || echo no)" "$line"
}

# httprun: prism run as a whole process against fakejudge (another
# process, answering after 20 ms) at concurrency 128: 200 contexts × 16
# candidates × 38 conditions, 121,600 requests. The bound is N·L/C.
row_httprun() {
	synth d200.jsonl -contexts 200 -candidates 16 -dataset "$dir/d200.jsonl"
	if [ ! -f "$dir/base200.db" ]; then
		"$p" data import jsonl "$dir/d200.jsonl" --name d --workspace "$dir/base200.db" >/dev/null
	fi
	go build -o "$dir/fakejudge" ./judge/openai/openaitest/fakejudge
	local f=$dir/.httprun; : >"$f"
	for _ in $(seq "$runs"); do
		fresh base200.db http200.db
		start_srv "$dir/.srv" "$dir/fakejudge" -latency 20ms
		OPENAI_API_KEY=unused timed "$f" "$p" run --workspace "$dir/http200.db" --bank quality \
			--backend openai --model m --base-url "$url" --concurrency 128 --response-format none
		kill -INT $srv; wait $srv || true
		srv=
	done
	local n; n=$("$p" export scores --workspace "$dir/http200.db" | tail -n +2 | wc -l)
	awk -v n="$n" '{printf "%.1f %.0f\n", 100 * n * 0.020 / 128 / $1, 1e6 * ($2 + $3) / n}' "$f" >"$dir/.httprun-pct"
	echo "httprun  prism run against fakejudge (another process), C = 128, L = 20 ms, $n answers: $(all "$dir/.httprun-pct" 1) % of bound ($(all "$f" 1) s), $(all "$dir/.httprun-pct" 2) µs CPU/request, $(allmb "$f") MB | information only (no target); $n answers | $(met "$n == 121600")"
}

row_global() {
	local f=$dir/.global; : >"$f"
	for _ in $(seq "$runs"); do timed "$f" "$p" fit --global --scores "$dir/s1k.csv" --labels "$dir/l1k.csv"; done
	echo "global   fit --global, 1,000 × 16: $(all "$f" 1) s wall, $(all "$f" 2) s user | target ≥ 6× the 31.8 s first measured (≤ 5.3 s), both cores (user > wall) | $(met "$(med "$f" 2) + $(med "$f" 3) <= 5.3 && $(med "$f" 2) > $(med "$f" 1)")"
}

row_dryrun() {
	[ -f "$dir/demo.db" ] || "$p" data import demo --workspace "$dir/demo.db" >/dev/null
	local a=$dir/.dry1 b=$dir/.dry100k; : >"$a"; : >"$b"
	for _ in $(seq "$runs"); do
		timed "$a" "$p" run --bank quality --repeats 1 --dry-run --workspace "$dir/demo.db"
		timed "$b" "$p" run --bank quality --repeats 100000 --dry-run --workspace "$dir/demo.db"
	done
	echo "dryrun   run --dry-run, demo × 1 and × 100,000 runs: $(allmb "$a") MB vs $(allmb "$b") MB ($(all "$b" 1) s) | target: memory independent of requests (within 10 MB) | $(met "$(med "$b" 4) - $(med "$a" 4) <= 10*1024")"
}

# score: prism score with a saved calibrator, end to end, from a CSV of
# 100,000 candidates (6,250 × 16 × 8 attributes, 1.7 million rows; the
# calibrator fitted on s1k.csv) and from the 608,000-answer workspace
# study of ran1k.db (16,000 candidates, nothing to send; the calibrator
# fitted on it).
row_score() {
	ran
	synth s100k.csv -contexts 6250 -candidates 16 -attributes 8 -scores "$dir/s100k.csv" -labels "$dir/l100k.csv"
	[ -f "$dir/calcsv.json" ] || "$p" fit --scores "$dir/s1k.csv" --labels "$dir/l1k.csv" --bootstrap 10 --save "$dir/calcsv.json" >/dev/null
	[ -f "$dir/calws.json" ] || "$p" fit --workspace "$dir/ran1k.db" --bootstrap 10 --save "$dir/calws.json" >/dev/null
	local a=$dir/.scorecsv b=$dir/.scorews; : >"$a"; : >"$b"
	for _ in $(seq "$runs"); do
		timed "$a" "$p" score --calibrator "$dir/calcsv.json" --scores "$dir/s100k.csv" -o "$dir/.scored-csv.csv"
		timed "$b" "$p" score --calibrator "$dir/calws.json" --workspace "$dir/ran1k.db" -o "$dir/.scored-ws.csv"
	done
	local ra rb
	ra=$(awk -v t="$(med "$a" 1)" 'BEGIN {printf "%.0f", 100000 / t}')
	rb=$(awk -v t="$(med "$b" 1)" 'BEGIN {printf "%.0f", 16000 / t}')
	echo "score    prism score, 100,000 candidates from CSV: $(all "$a" 1) s ($ra candidates/s), $(allmb "$a") MB | target ≥ 100,000 candidates/s | $(met "$ra >= 100000")"
	echo "scorews  prism score, 16,000 candidates of an answered workspace study: $(all "$b" 1) s ($rb candidates/s), $(allmb "$b") MB | target ≥ 100,000 candidates/s | $(met "$rb >= 100000")"
}

# dryanswered: run --dry-run on the fully answered 608,000-request study.
row_dryanswered() {
	ran
	local f=$dir/.dryanswered; : >"$f"
	for _ in $(seq "$runs"); do timed "$f" "$p" run --bank quality --dry-run --workspace "$dir/ran1k.db"; done
	echo "dryanswered run --dry-run, answered 608,000-request study: $(all "$f" 1) s, $(allmb "$f") MB | target < 0.3 s | $(met "$(med "$f" 1) < 0.3")"
}

for r in "${rows[@]}"; do
	case $r in
	fitws|fitmem|offline|summeval|http|httprun|realistic|global|dryrun|score|dryanswered) say "measuring $r ($runs runs)"; "row_$r" ;;
	*) echo "scale.sh: unknown row $r" >&2; exit 2 ;;
	esac
done
