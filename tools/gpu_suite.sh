#!/usr/bin/env bash
# What a GPU must verify, in parts that each fit one run of about nine minutes on one H100 or H200 with
# 16 cores, the build included. Each part prints a summary of its acceptance figures and leaves it, with
# its logs, in $OUT/PART/ (OUT defaults to build-ci/gpu-out).
#
#   tools/gpu_suite.sh PART
#
#   a        the build (preset ci) and the whole suite: ctest --preset ci --label-exclude 'yours|selfgrade';
#            then where each recording's time went (selfgrading.recording_time)
#   b        selfgrade's cheats (each scores 0) and attacking samples (they harm nobody), then what a
#            submission that never returns costs (measure_batch --count 1 --labs 01)
#   c1..c4   the C++ catalogue, each sample failing exactly its named tests: labs 01-04, 05, 06-08, 09
#   d1..d3   the Python track: solutions pass, starters fail, each catalogue sample fails exactly its
#            tests (python_selfgrade), the catalogue's records kept: labs 01-04, 05-07, 09
#   e        the class: COUNT (default 20) submissions of labs 01-07 graded and timed (measure_batch)
#   all      every part above, one after another
#
# and the grader's own checks, outside `all` (each takes a few minutes; run them side by side on different
# GPUs with CUDA_VISIBLE_DEVICES; LABS, e.g. "01 02", limits samples and scale to those labs):
#   samples    the grading samples (make_grading_samples): gradebook, isolation, leftover processes
#   sandbox    10 submissions of lab 05 with and without the sandbox (measure_sandbox)
#   sanitizer  the compute-sanitizer samples and their table (check_sanitizer_samples)
#   scale      COPIES (default 10) submissions of every lab's solution on GPUS (default 1) GPUs
#
# Parts a and d build into build-ci; b, c, e and the checks grade through `course grade`, which builds the course in
# $WORK/course (WORK defaults to /tmp/streamlab-gpu-work, which the sandbox's user can reach). Every build
# is incremental: a part that follows another on the same machine finds the build done. Run e after b or
# c, or it spends its first minutes building. The records a part keeps come back as
# $OUT/PART/records.tar.gz; unpacked in the repository's root, they land where the course commits them,
# common/tests/records/NN-topic/ (coursecli/records.py, committed_record).
set -uo pipefail
source "$(dirname "$0")/gpu_parts/common.sh"
out_root=${OUT:-$PWD/build-ci/gpu-out}
work=${WORK:-/tmp/streamlab-gpu-work}
parts="a b c1 c2 c3 c4 d1 d2 d3 e"
checks="samples sandbox sanitizer scale"

# Runs a command into $log/NAME.log, then notes its exit status and time and the lines of the log that
# match PATTERN (an extended regular expression, anchored at the line's start) or say it skipped.
step() {
  local name=$1 pattern=$2 started status
  shift 2
  started=$(date +%s)
  "$@" > "$log/$name.log" 2>&1
  status=$?
  note "$name: exit $status in $(seconds_since "$started") s"
  grep -E "^($pattern|SKIPPED)" "$log/$name.log" | head -n 40 | tee -a "$summary"
  return $status
}

# The ci preset's build, configured where it is not yet and brought up to date: the targets named, or all.
build_ci() {
  local targets=()
  [ $# -gt 0 ] && targets=(--target "$@")
  step build ".*error:|CMake Error|g?make.*Error|FAILED:" sh -c \
    'cmake --preset ci && cmake --build --preset ci -j "$(nproc)" "$@"' build_ci "${targets[@]}"
}

# The records kept under $1, laid out as in the repository (selfgrade's --keep-records), packed into
# $log/records.tar.gz with their paths from $1: unpacked in the repository's root, each lands in its place.
pack_records() {
  [ -d "$1" ] || return 0
  tar -czf "$log/records.tar.gz" -C "$1" .
  note "kept $(find "$1" -name '*.record.jsonl' | wc -l) record(s): $log/records.tar.gz"
}

part_a() {
  build_ci || return 1
  step ctest "[0-9]+% tests passed|Total Test time|\s+[0-9]+ - .*\((Failed|Timeout|SEGFAULT|Not Run|Exception)" \
    ctest --preset ci --label-exclude 'yours|selfgrade' -j8
  local status=$?
  note "not run (skipped, with the reason): $(grep -c '(Skipped)' "$log/ctest.log")"
  # Where each recording's time went (issue 53), from the records the suite just made.
  step recording_time "recording_time:" tools_python -m selfgrading.recording_time build-ci/records "$log/ctest.log"
  return $status
}

part_b() {
  local status=0
  step selfgrade "selfgrade:" tools_python -m selfgrading.selfgrade --cheats-only --work "$work" || status=1
  note "processes of uid 65534 left: $(leftovers | wc -l)"
  step measure_batch "measure_batch:" \
    tools_python -m selfgrading.measure_batch --count 1 --labs 01 --work "$work" || status=1
  return $status
}

part_c() {  # the catalogue samples of labs "$@"
  local kept="$work/kept-$part" status
  rm -rf "$kept"
  step selfgrade "selfgrade:" \
    tools_python -m selfgrading.selfgrade --catalogue-only "$@" --work "$work" --keep-records "$kept"
  status=$?
  pack_records "$kept"
  return $status
}

part_d() {  # the Python track of labs "$@"
  local kept="$work/kept-$part" judges status
  judges=$(printf 'lab%s_judge ' "$@")
  # shellcheck disable=SC2086  # one target per judge
  build_ci streamlab_python streamlab_record $judges || return 1
  rm -rf "$kept"
  step python_selfgrade "python_selfgrade:" \
    tools_python -m selfgrading.python_selfgrade --labs "$@" --build build-ci --keep-records "$kept"
  status=$?
  pack_records "$kept"
  return $status
}

part_e() {
  step measure_batch "measure_batch:" tools_python -m selfgrading.measure_batch --count "${COUNT:-20}" --work "$work"
}

# Each student's report under $1/students (which test failed, and why), copied into $log.
copy_reports() {
  for report in "$1"/students/*/report.md; do
    [ -f "$report" ] && cp "$report" "$log/$(basename "$(dirname "$report")").md"
  done
}

part_samples() {  # the cheats are graded by selfgrade (part b), on the lab they change
  tools_python -m selfgrading.make_grading_samples "$work/samples" > "$log/make.log" 2>&1
  # shellcheck disable=SC2086  # LABS is a list of labs
  step grade "course: isolation" ./course grade "$work/samples" -o "$work/samples-grades" --regrade \
    --course-build "$work/course" ${LABS:+--labs $LABS}
  local status=$?
  cp "$work/samples-grades/gradebook.csv" "$log/" 2>/dev/null && cat "$log/gradebook.csv" >> "$summary"
  note "processes of uid 65534 left: $(leftovers | wc -l)"
  leftovers >> "$summary"
  copy_reports "$work/samples-grades"
  return $status
}

part_sandbox() {
  step measure_sandbox "measure_sandbox:" \
    tools_python -m selfgrading.measure_sandbox --copies 10 --lab 05 --work "$work"
}

part_sanitizer() {
  tools_python -m selfgrading.make_grading_samples --sanitizer "$work/sanitizer" > "$log/make.log" 2>&1
  step grade "course:" ./course grade "$work/sanitizer" -o "$work/sanitizer-grades" --sanitize --regrade \
    --course-build "$work/course"
  step check_sanitizer_samples "" tools_python -m selfgrading.check_sanitizer_samples \
    "$work/sanitizer/sanitizer-expected.json" "$work/sanitizer-grades"
  local status=$?
  copy_reports "$work/sanitizer-grades"
  return $status
}

part_scale() {  # a class of COPIES submissions of every lab's solution, on GPUS GPUs
  local class="$work/class" gpus=${GPUS:-1} status
  rm -rf "$class"
  for i in $(seq -w 1 "${COPIES:-10}"); do mkdir -p "$class/student$i" && cp -r solutions "$class/student$i/labs"; done
  # shellcheck disable=SC2086  # LABS is a list of labs
  step grade "course: (grading|isolation|built|[0-9]+ graded)|build per submission" ./course grade "$class" \
    -o "$work/class-grades-$gpus" --regrade --gpus "$gpus" --course-build "$work/course" ${LABS:+--labs $LABS}
  status=$?
  cp "$work/class-grades-$gpus/gradebook.csv" "$log/" 2>/dev/null
  return $status
}

run_part() {
  part=$1
  log="$out_root/$part"
  summary="$log/summary.txt"
  rm -rf "$log"
  mkdir -p "$log" "$work"
  note "== part $part on $(machine), $(date -u +%FT%TZ)"
  local started status
  started=$(date +%s)
  case "$part" in
    a) part_a ;;
    b) part_b ;;
    c1) part_c 01 02 03 04 ;;
    c2) part_c 05 ;;
    c3) part_c 06 07 08 ;;
    c4) part_c 09 ;;
    d1) part_d 01 02 03 04 ;;
    d2) part_d 05 06 07 ;;
    d3) part_d 09 ;;
    e) part_e ;;
    samples | sandbox | sanitizer | scale) "part_$part" ;;
  esac
  status=$?
  note "== part $part: exit $status in $(seconds_since "$started") s"
  return $status
}

chosen=${1:-}
if [ "$chosen" = all ]; then
  failed=""
  for part in $parts; do run_part "$part" || failed="$failed $part"; done
  echo "tools/gpu_suite.sh all: ${failed:+failed:}${failed:-every part passed}"
  [ -z "$failed" ]
elif [[ " $parts $checks " == *" $chosen "* ]]; then
  run_part "$chosen"
else
  echo "tools/gpu_suite.sh: '${chosen}' is no part: name one of $parts $checks, or all" >&2
  exit 2
fi
