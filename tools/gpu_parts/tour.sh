#!/usr/bin/env bash
# Everything a student and the course itself touch on a machine with an NVIDIA GPU, in one long run
# (longer than one of tools/gpu_suite.sh's parts): a demo, the whole test suite, compute-sanitizer over
# the common GPU tests, every lab's check (starter and solution), the lab programs' timelines, the
# Python labs, traces of the example programs, the tracer's overhead, the README's figures and the
# benchmark. Logs, traces and pictures land in OUTDIR; summary.txt holds the key lines.
#
#   tools/gpu_parts/tour.sh OUTDIR [PRESET]
set -uo pipefail
out=$(realpath -m "${1:?usage: tools/gpu_parts/tour.sh OUTDIR [PRESET]}")
preset=${2:-default}
source "$(dirname "$0")/common.sh"
mkdir -p "$out/traces" "$out/plots"
summary="$out/summary.txt"
: > "$summary"

note "== $(date -u +%FT%TZ) $(machine)"
build=$(tools_python -c "from coursecli.build import build_dir; print(build_dir('$preset'))")

./course demo --preset "$preset" > "$out/demo.log" 2>&1
note "course demo: exit $?"
grep -vE '^\$ |^\[|^--|^course:' "$out/demo.log" | tee -a "$summary"

./course test --preset "$preset" > "$out/course-test.log" 2>&1
note "course test: exit $?"
grep -E "tests passed|tests failed|not run|passed in|failed in|^course:" "$out/course-test.log" | tee -a "$summary"

# Left out: a test that provokes an out-of-memory error on purpose (the
# sanitizer reports every failing API call) and a timing comparison, which
# the sanitizer's instrumentation distorts.
compute-sanitizer --leak-check full --error-exitcode 99 "$build/common/tests/common_gpu_tests" \
  --gtest_filter=-HandlesGpu.ErrorsFromRealCallsThrow:WorkloadGpu.MoreIterationsTakeLonger > "$out/sanitizer.log" 2>&1
note "compute-sanitizer --leak-check full common_gpu_tests: exit $?"
grep -E "ERROR SUMMARY|LEAK SUMMARY|PASSED|FAILED" "$out/sanitizer.log" | tail -5 | tee -a "$summary"

for lab in $(ls labs | grep -E '^[0-9]{2}-' | cut -c1-2); do
  for variant in starter solution; do
    flag=""; [ "$variant" = solution ] && flag="--solution"
    ./course check "$lab" --preset "$preset" $flag > "$out/check-$lab-$variant.log" 2>&1
    note "course check $lab $flag: exit $?"
    sed -n '/graded tests$/,$p' "$out/check-$lab-$variant.log" >> "$summary"
  done
  ./course run "$lab" --solution --preset "$preset" > "$out/run-$lab.log" 2>&1
  note "course run $lab --solution: exit $?"
  cat "$out/run-$lab.log" | grep -vE '^\$ |^\[' >> "$summary"
  cp "$build"/plots/lab"$lab"-*.png "$out/plots/" 2>/dev/null
  cp "$build"/traces/lab"$lab"-solution*.json "$out/traces/" 2>/dev/null
done

# The Python labs: their own tests on solutions, starters and known-wrong samples, lab 05's
# program in Python, and what recording from Python costs.
tools_python -m selfgrading.python_selfgrade --build "$build" > "$out/python-selfgrade.log" 2>&1
note "python_selfgrade: exit $?"
grep -E "^python_selfgrade" "$out/python-selfgrade.log" >> "$summary"
./course run 05 --python --solution --preset "$preset" > "$out/run-05-python.log" 2>&1
note "course run 05 --python --solution: exit $?"
grep -vE '^\$ |^\[' "$out/run-05-python.log" >> "$summary"
cp "$build"/traces/lab05-python-solution*.json "$out/traces/" 2>/dev/null
PYTHONPATH="solutions/05-three-chunks/python:labs/05-three-chunks/python:$build/python:python" \
  python3 tools/examples/python_record_overhead.py > "$out/python-overhead.log" 2>&1
note "python_record_overhead: exit $?"
cat "$out/python-overhead.log" >> "$summary"

# The figures the lab READMEs show, from the solutions' traces.
t="$out/traces"
./course plot "$t/lab03-solution-bandwidth.json" -o "$out/plots/lab03-bandwidth.png" >> "$out/figures.log" 2>&1
./course plot "$t/lab04-solution.json" --compare "$t/lab04-solution-pageable.json" --labels pinned pageable \
  -o "$out/plots/lab04-pinned-vs-pageable.png" >> "$out/figures.log" 2>&1
./course plot "$t/lab05-solution-serial.json" --compare "$t/lab05-solution.json" --labels serial "three chunks" \
  -o "$out/plots/lab05-serial-vs-chunks.png" >> "$out/figures.log" 2>&1
./course plot "$t/lab05-solution.json" --model -o "$out/plots/lab05-model.png" >> "$out/figures.log" 2>&1
note "figures: $(ls "$out/plots" | tr '\n' ' ')"

./course trace --preset "$preset" -o "$out/traces/three_chunks.json" -- "$build/common/examples/three_chunks_example" > "$out/trace-cpp.log" 2>&1
note "course trace three_chunks_example: exit $?"
./course plot "$out/traces/three_chunks.json" -o "$out/plots/three_chunks.png" >> "$out/trace-cpp.log" 2>&1
./course trace --preset "$preset" -o "$out/traces/article_section3.json" -- python3 tools/examples/article_section3.py > "$out/trace-py.log" 2>&1
note "course trace article_section3.py: exit $?"
./course plot "$out/traces/article_section3.json" -o "$out/plots/article_section3.png" >> "$out/trace-py.log" 2>&1

"$build/common/examples/three_chunks_example" 512 --compare-tracing 21 > "$out/tracer-overhead.json" 2>&1
note "tracer overhead: $(cat "$out/tracer-overhead.json")"

./course bench --preset "$preset" > "$out/bench.log" 2>&1
note "course bench: exit $?"
grep -vE '^\$ |^\[' "$out/bench.log" | tail -40 >> "$summary"
./course bench --lab 06 --preset "$preset" > "$out/bench-lab06.log" 2>&1
note "course bench --lab 06: exit $?"
grep -vE '^\$ |^\[' "$out/bench-lab06.log" | tail -25 >> "$summary"
mkdir -p "$out/bench" && cp -r "$build"/bench/. "$out/bench/" 2>/dev/null
mkdir -p "$out/demo" && cp -r "$build"/demo/. "$out/demo/" 2>/dev/null
