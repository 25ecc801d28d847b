/// @file answers.hpp
/// @brief A lab's answer file (a student's prediction, `prediction.txt`), read by a
/// graded test and scored against the timeline the same test recorded.
///
/// The format, for people: one answer per line, `key: value`; `#` starts a comment;
/// a value of `?` (the template's) means not answered yet. The grader reads the
/// file itself, from the folder the lab's ctest tests get in `STREAMLAB_ANSWER_DIR`
/// (the answer_files of lab.json); nothing the student's program prints is used.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "streamlab/timeline.hpp"

namespace streamlab::answers {

/// The answers of one file, or why there are none.
struct AnswerFile {
    std::string path;                           ///< Where it was read from (for messages).
    std::map<std::string, std::string> values;  ///< key -> value, both trimmed.
    std::string problem;                        ///< Empty when the file was read and parsed.

    /// The answer to `key`; sets `why` (one sentence) and returns "" when it is
    /// missing or still `?`.
    [[nodiscard]] std::string answer(const std::string& key, std::string& why) const;
};

/// Parses an answer file's text (see the file comment). A line that is neither
/// blank, a comment nor `key: value`, or a key given twice, is a problem.
[[nodiscard]] AnswerFile parse_answer_file(const std::string& text);

/// Reads `name` from the folder in the environment variable STREAMLAB_ANSWER_DIR.
/// A missing variable, a missing or unreadable file, or a malformed one sets `problem`.
[[nodiscard]] AnswerFile read_answer_file(const std::string& name);

/// A predicted order of named ops: groups separated by `<`, each group one or more
/// names joined by `+` that run at the same time. `A < B < C`: one after another;
/// `A+B+C`: all at the same time; `A < B+C`: A first, then B and C together.
/// Spaces are free; two names with only a space between them are a problem.
struct PredictedOrder {
    std::map<char, int> rank;  ///< Each name's group, counted from 0.
    std::string problem;       ///< Empty when every name appears exactly once.
};

/// Parses `text` as an order of exactly the single-letter names in `names` (e.g. "ABC").
[[nodiscard]] PredictedOrder parse_order(const std::string& text, const std::string& names);

/// The measured order of `ops`, named by `names` (ops[i] is names[i]), in the same
/// notation: sorted by start, an op joins the group before it when it starts
/// before every op of that group has ended.
[[nodiscard]] std::string measured_order(const std::vector<DeviceOp>& ops, const std::string& names);

/// When the host launched each kernel of `kernels` (in launch order), on the
/// timeline's clock: the recorded cudaLaunchKernel calls of `calls`, paired in
/// order. Empty when the two cannot be paired one to one.
[[nodiscard]] std::vector<std::uint64_t> launch_times(const std::vector<StreamCall>& calls,
                                                      const std::vector<DeviceOp>& kernels);

/// Whether `predicted` says, for every pair of ops, what the timeline shows: one
/// ended before the other started, or they ran at the same time for a while.
/// `mismatch` gets the first pair that differs, in a sentence.
///
/// With `launched_ns` (launch_times), a pair predicted to run together that ran
/// one after the other is not held against the prediction when the later one was
/// launched only after the earlier had ended: the host was late (a busy machine),
/// and the streams never had the chance to run them together.
[[nodiscard]] bool order_matches(const PredictedOrder& predicted, const std::vector<DeviceOp>& ops,
                                 const std::string& names, std::string& mismatch,
                                 const std::vector<std::uint64_t>& launched_ns = {});

}  // namespace streamlab::answers
