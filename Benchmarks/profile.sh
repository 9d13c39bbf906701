#!/usr/bin/env bash
# Profiles one scenario of one system with callgrind, counting only the timed region, and prints
# the top functions by inclusive and by self instruction count (Swift names demangled; the costs
# callgrind splits by source file, for inlined code, are summed per function).
#
#   Benchmarks/profile.sh insert objdb 20000 [TOP]
#   Benchmarks/profile.sh query:count-scan objdb 20000 [TOP]    # a --queries scenario, at N objects
#
# Needs valgrind and python3. Builds the release binary first. Output files go to $OUT
# (default /tmp/objdb-callgrind).
set -eu
scenario=${1:?scenario (insert, read-all, lookup, …)}
system=${2:?system (objdb, lmdb, grdb)}
n=${3:-20000}
top=${4:-15}
here=$(cd "$(dirname "$0")" && pwd)
out=${OUT:-/tmp/objdb-callgrind}
mkdir -p "$out"
swift build -c release --package-path "$here" >&2
binary=$(swift build -c release --package-path "$here" --show-bin-path)/objdb-bench
case $scenario in
query:*) args=(--query-only "${scenario#query:}" --n "$n" --count-n "$n" --lookup-sizes "$n") ;;
*) args=(--only "$scenario" --n "$n") ;;
esac
file="$out/${scenario/:/-}.$system.callgrind"
# Valgrind cannot reserve the 64-256 GiB maps the systems ask for; 4 GiB is plenty here.
OBJDB_BENCH_MAP_GIB=4 valgrind --tool=callgrind --collect-atstart=no --callgrind-out-file="$file" \
    "$binary" "${args[@]}" --system "$system" --repetitions 1 >/dev/null 2>"$file.log"

# Reads callgrind_annotate's "Ir (pct)  file:function [object]" lines. Callgrind splits a function
# by source file where code was inlined: self costs are summed per function, inclusive costs
# take the largest piece (the pieces overlap). "components" sums self costs by library.
summarize() {
    mode=$1
    shift
    callgrind_annotate --auto=no --threshold=100 "$@" "$file" | python3 -c '
import re, sys
mode, top = sys.argv[1], int(sys.argv[2])
costs, parts, total = {}, {}, None
# The frames above the scenario (process start, runner, timer) are 100% in every profile.
harness = r"__libc_start_main|\(below main\)|objdb_bench_main|objdb_bench6RunnerO|objdb_bench11timedRegion|ld-linux|\(objdb-bench\)|ConformanceAA11BenchSystem|AA11BenchSystemA2aDP"
def component(name, where, obj):
    if "liblmdb" in obj: return "liblmdb"
    if "libswiftCore" in obj: return "libswiftCore (runtime: retain/release, metadata, generic stdlib)"
    if "libc.so" in obj: return "libc (malloc, free, memcpy, memcmp)"
    if "Foundation" in obj: return "Foundation"
    if "/Sources/ObjDB/" in where or name.startswith("$s5ObjDB"): return "ObjDB code"
    if "Benchmarks/" in where or name.startswith("$s11objdb_bench"): return "benchmark code"
    return "other code in the binary (specialized stdlib)"
for line in sys.stdin:
    m = re.match(r"\s*([\d,]+) \(\s*[\d.]+%\)\s+(.*)$", line)
    if not m: continue
    ir, rest = int(m.group(1).replace(",", "")), m.group(2)
    if rest.startswith("PROGRAM TOTALS"): total = ir; continue
    obj = re.search(r" \[([^]]*)\]$", rest)
    obj = obj.group(1) if obj else ""
    rest = re.sub(r" \[[^]]*\]$", "", rest)
    where, name = rest.split(":", 1) if ":" in rest else ("", rest)
    key = name if not name.startswith("0x") else name + " (" + obj.rsplit("/", 1)[-1] + ")"
    if mode == "inclusive" and re.search(harness, key): continue
    costs[key] = max(costs.get(key, 0), ir) if mode == "inclusive" else costs.get(key, 0) + ir
    part = component(name, where, obj)
    parts[part] = parts.get(part, 0) + ir
rows = parts if mode == "components" else costs
for name, ir in sorted(rows.items(), key=lambda kv: -kv[1])[:top]:
    print(f"{ir:>13,} {100 * ir / total:5.1f}%  {name}")
' "$mode" "$top" | swift demangle --simplified | cut -c1-200
}
echo "== $scenario / $system, N=$n: $file"
callgrind_annotate --auto=no "$file" | grep -m1 'PROGRAM TOTALS' || true
echo "-- inclusive"
summarize inclusive --inclusive=yes
echo "-- self"
summarize self --inclusive=no
echo "-- self, by component"
summarize components --inclusive=no
