#!/usr/bin/env bash
# The grader's own checks on a machine with NVIDIA GPUs, one part at a time
# (each part fits in a few minutes; run parts side by side on different GPUs
# with CUDA_VISIBLE_DEVICES). Logs land in OUTDIR/PART; OUTDIR/PART/summary.txt
# holds the key lines and tables.
#
#   tools/grader_gpu_checks.sh OUTDIR samples     # the grading samples: gradebook, isolation, leftover processes
#   tools/grader_gpu_checks.sh OUTDIR selfgrade   # solutions full, starters less, cheats 0, catalogue (one long run;
#                                                 # tools/gpu_suite.sh b and c1..c4 split it into parts)
#   tools/grader_gpu_checks.sh OUTDIR sandbox     # 10 submissions of lab 05 with and without the sandbox
#   tools/grader_gpu_checks.sh OUTDIR sanitizer   # the compute-sanitizer samples and their table
#   tools/grader_gpu_checks.sh OUTDIR scale N     # 10 submissions x every lab, on N GPUs
#
# LABS (e.g. "01 02") limits the samples and scale parts to those labs; COPIES
# (default 10) sets the class size of the scale part.
# Set STREAMLAB_BWRAP when bwrap is not on PATH. WORK (default /tmp/grader-gpu-checks)
# keeps the submissions and one course build shared by the parts.
set -uo pipefail
out=${1:?usage: tools/grader_gpu_checks.sh OUTDIR samples|selfgrade|sandbox|sanitizer|scale N}
part=${2:?usage: tools/grader_gpu_checks.sh OUTDIR samples|selfgrade|sandbox|sanitizer|scale N}
out=$(realpath -m "$out")
source "$(dirname "$0")/gpu_parts/common.sh"
work=${WORK:-/tmp/grader-gpu-checks}
log="$out/$part${3:+-$3}"
mkdir -p "$log" "$work"
summary="$log/summary.txt"

note "== $part ${3:-} $(date -u +%FT%TZ) $(machine) CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES:-all}"

# A class of `copies` submissions of every lab's solution, in $1.
make_class() {
  rm -rf "$1"
  for i in $(seq -w 1 "$2"); do mkdir -p "$1/student$i" && cp -r solutions "$1/student$i/labs"; done
}

case "$part" in
  samples)
    # The cheats are graded by selfgrade, on the lab they change.
    tools_python -m selfgrading.make_grading_samples "$work/samples" > "$log/make.log" 2>&1
    started=$(date +%s)
    ./course grade "$work/samples" -o "$work/samples-grades" --regrade --course-build "$work/course" \
      ${LABS:+--labs $LABS} > "$log/grade.log" 2>&1
    note "course grade samples: exit $? in $(seconds_since "$started") s"
    grep -E "^course: isolation" "$log/grade.log" | tee -a "$summary"
    cp "$work/samples-grades/gradebook.csv" "$log/" 2>/dev/null && cat "$log/gradebook.csv" >> "$summary"
    note "processes of uid 65534 left: $(leftovers | wc -l)"
    leftovers >> "$summary"
    # Each student's report: which test failed, and why, where a score is not the expected one.
    for report in "$work"/samples-grades/students/*/report.md; do
      cp "$report" "$log/$(basename "$(dirname "$report")").md"
    done
    ;;
  selfgrade)
    started=$(date +%s)
    tools_python -m selfgrading.selfgrade --work "$work/selfgrade" > "$log/selfgrade.log" 2>&1
    note "selfgrade: exit $? in $(seconds_since "$started") s"
    grep -E "^selfgrade:" "$log/selfgrade.log" | tail -60 >> "$summary"
    note "processes of uid 65534 left: $(leftovers | wc -l)"
    ;;
  sandbox)
    # --work "$work": the sandbox part shares the parts' course build, $work/course
    tools_python -m selfgrading.measure_sandbox --copies 10 --lab 05 --work "$work" > "$log/measure.log" 2>&1
    note "measure_sandbox: exit $?"
    grep -E "^measure_sandbox:" "$log/measure.log" | tee -a "$summary"
    ;;
  sanitizer)
    tools_python -m selfgrading.make_grading_samples --sanitizer "$work/sanitizer" > "$log/make.log" 2>&1
    started=$(date +%s)
    ./course grade "$work/sanitizer" -o "$work/sanitizer-grades" --sanitize --regrade \
      --course-build "$work/course" > "$log/grade.log" 2>&1
    note "course grade --sanitize: exit $? in $(seconds_since "$started") s"
    tools_python -m selfgrading.check_sanitizer_samples "$work/sanitizer/sanitizer-expected.json" "$work/sanitizer-grades" \
      > "$log/table.txt" 2>&1
    note "check_sanitizer_samples: exit $?"
    cat "$log/table.txt" >> "$summary"
    for report in "$work"/sanitizer-grades/students/*/report.md; do
      cp "$report" "$log/$(basename "$(dirname "$report")").md"
    done
    ;;
  scale)
    gpus=${3:?usage: tools/grader_gpu_checks.sh OUTDIR scale N}
    copies=${COPIES:-10}
    make_class "$work/class" "$copies"
    started=$(date +%s)
    ./course grade "$work/class" -o "$work/class-grades-$gpus" --regrade --gpus "$gpus" \
      --course-build "$work/course" ${LABS:+--labs $LABS} > "$log/grade.log" 2>&1
    status=$?
    note "$copies submissions x labs ${LABS:-$(ls labs | grep -oE '^[0-9]{2}' | xargs)} on $gpus GPU(s): exit $status in $(seconds_since "$started") s (wall)"
    grep -E "^course: (grading|isolation|built|[0-9]+ graded)|build per submission" "$log/grade.log" | tee -a "$summary"
    cp "$work/class-grades-$gpus/gradebook.csv" "$log/" 2>/dev/null
    ;;
  *)
    echo "tools/grader_gpu_checks.sh: unknown part $part" >&2
    exit 2
    ;;
esac
