/// @file lab_program.hpp
/// @brief What every lab's program shares: options, error reporting, the timeline summary.
#pragma once

#include <functional>
#include <string>

#include "streamlab/timeline.hpp"

namespace streamlab {

/// Command-line options every lab program accepts.
struct LabOptions {
    std::string trace_path;  ///< `--trace PATH`: where to write the main timeline (empty: none).
    bool no_trace = false;   ///< `--no-trace`: run without the tracer (for compute-sanitizer).
};

/// Runs a lab program's `body`: reads the options (`--trace PATH`, `--no-trace`,
/// `--help`), says clearly when there is no GPU, and turns any exception into one
/// line on stderr. With `--no-trace` the tracer is off for the whole run (see
/// tracing_off_reason): the student's code runs as usual, and every timeline
/// the program would show is reported as not recorded, with the reason.
/// Returns the process exit status (0 ok, 1 failure, 2 bad usage).
int run_lab_program(int argc, char** argv, const std::string& description,
                    const std::function<int(const LabOptions&)>& body);

/// Runs `body` where a GPU is usable and returns its status; otherwise prints
/// "PROGRAM: no GPU: why" on stderr and returns 1. An exception from `body`
/// becomes one line on stderr and status 1. Any program of the course can use it.
int run_with_gpu(const char* program, const std::function<int()>& body);

/// Prints the timeline's key numbers (makespan, busy time per unit, overlaps,
/// streams) under `title`, and writes the trace when the options ask for one.
/// For a timeline that was not recorded, prints one line that says so and why.
/// `variant` (e.g. "nonblocking") is added to the trace file's name.
void report_timeline(const Timeline& timeline, const std::string& title, const LabOptions& options,
                     const std::string& variant = "");

}  // namespace streamlab
