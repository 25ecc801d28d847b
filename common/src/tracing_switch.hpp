// Turning the tracer off for a whole process (`--no-trace`). Internal: the
// lab programs use it through run_lab_program; the labs' interfaces do not
// offer it, since a lab's own code has no business switching the grader's
// tracer off.
#pragma once

#include <string>

namespace streamlab::detail {

/// Turns the tracer off for the rest of the process: from now on CUPTI is not
/// touched (a Tracer cannot be made, record_timeline runs its work unrecorded),
/// so that compute-sanitizer and other CUPTI tools can watch the program.
/// `option` names what asked for it, e.g. "--no-trace"; it appears in
/// tracing_off_reason(). Call it before the first recording: CUPTI, once
/// attached, stays attached for the life of the process.
void turn_tracing_off(const std::string& option);

/// The value of environment variable `name` as the process was started ("" when
/// unset), read from /proc/self/environ, which the program's own setenv() cannot
/// change; where /proc is not mounted, from getenv().
[[nodiscard]] std::string start_environment(const std::string& name);

}  // namespace streamlab::detail
