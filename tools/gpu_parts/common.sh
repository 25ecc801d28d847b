# What the GPU scripts share (tools/gpu_suite.sh, tools/gpu_parts/tour.sh):
# sourced, never run. Leaves the shell in the repository's root.
cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
export PYTHONUNBUFFERED=1
# The tools' Python packages (coursecli, selfgrading), imported by name from tools/.
tools_python() { PYTHONPATH="$PWD/tools" python3 "$@"; }
# Appends its words to $summary and prints them.
note() { echo "$*" | tee -a "$summary"; }
seconds_since() { echo $(($(date +%s) - $1)); }
# The GPUs and the commit, for a summary's first line.
machine() {
  local gpus
  gpus=$(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null | sort | uniq -c | xargs)
  echo "${gpus:-no GPU that nvidia-smi sees} at $(git rev-parse --short HEAD 2>/dev/null || echo 'an unknown commit')"
}
# Processes of uid 65534 (the sandbox's user) still alive: a step that outlived itself.
leftovers() { ps -u 65534 -o pid=,etimes=,cmd= 2>/dev/null | head -20 || true; }  # ps fails when there are none
