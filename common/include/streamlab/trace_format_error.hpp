/// @file trace_format_error.hpp
/// @brief The error a malformed trace file, or a spelling inside one, raises.
///
/// A header of its own so that timeline.cpp (which reads the spellings of op,
/// memory and stream kinds) and trace_file.hpp (which reads whole files) can both
/// throw it without including each other.
#pragma once

#include <stdexcept>

namespace streamlab {

/// A trace file (or a spelling inside one) is not what TRACE_FORMAT.md describes.
/// The message is one line that says what is wrong, e.g.
/// `missing key args.start_ns in event 3` (events are counted from 0 in `traceEvents`).
class TraceFormatError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

}  // namespace streamlab
