/// @file grader_words.hpp
/// @brief The words the grader trusts, stated once: how the course's own skips
/// begin, and how the lines `course check` reads from a test's output begin.
///
/// The C++ tests and programs use these constants; the Python side reads them
/// from here: the module `streamlab` offers them as `streamlab.words` (the Python
/// labs' programs), tools/coursecli/grader_words.py reads this file itself
/// (the grader, which must work without the module), and so does CMake
/// (streamlab_grader_word, cmake/StreamLab.cmake). So the format below is a
/// contract too; both readers refuse a file that breaks it:
///
///   - one constant per line: `inline constexpr char kName[] = "text";`
///   - kName is `k` and CamelCase words; Python calls it NAME in upper snake
///     case (kSkipNoGpu is SKIP_NO_GPU);
///   - the text has no quote and no backslash;
///   - a `kSkip` constant begins a skip reason the grader counts as "not graded"
///     (tools/coursecli/scoring.py, GRADER_SKIPS is every one of them); a `kLine`
///     constant begins a line of a test's output that `course check` reads; a
///     `kFail` constant begins a failure whose cause `course check` tells apart.
#pragma once

/// The words the grader trusts, one constant each.
namespace streamlab::words {

// ---- skips the grader counts neither for nor against ("not graded")

/// No usable GPU here: "no GPU: " and why (no driver, no device).
inline constexpr char kSkipNoGpu[] = "no GPU: ";
/// The tracer could not start before the code under test ran (another CUPTI
/// user such as Nsight or compute-sanitizer, or STREAMLAB_NO_TRACE).
inline constexpr char kSkipTimelineUnavailable[] = "timeline unavailable: ";
/// The device cannot show what the test measures (its facts or the test's own
/// reference runs say so).
inline constexpr char kSkipDeviceCannotShow[] = "this device cannot show it: ";
/// Fewer GPUs than the lab needs: "not graded: needs two GPUs (this machine has 1)".
inline constexpr char kSkipNeedsGpus[] = "not graded: needs ";

// ---- lines of a test's output that `course check` reads (display only)

/// A measured value next to its threshold, then JSON: {"name", "value", "op", "threshold", "unit"}.
inline constexpr char kLineMeasure[] = "STREAMLAB-MEASURE ";
/// A hint shown when the test fails, then a JSON string.
inline constexpr char kLineHint[] = "STREAMLAB-HINT ";
/// An observation shown whatever the verdict, then JSON: {"name", "text"}.
inline constexpr char kLineNote[] = "STREAMLAB-NOTE ";

// ---- failures `course check` tells apart (display only: every one is a failed test)

/// A judge refused the record itself (unreadable, malformed or inconsistent): every test fails with
/// these words and the reason, and there is no judged run to draw.
inline constexpr char kFailRecordRefused[] = "the record cannot be judged: ";

}  // namespace streamlab::words
