/// @file testing.hpp
/// @brief GoogleTest helpers shared by the graded tests: GPU checks and measured values.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "streamlab/device.hpp"

namespace streamlab::grading {

/// Prints a measured value next to its threshold in a form `course check` reads:
/// `STREAMLAB-MEASURE {"name": ..., "value": ..., "threshold": ..., "op": ">=", "unit": ...}`.
/// It is for display only; points come from whether the test passed.
void report_measure(const std::string& name, double value, const std::string& op, double threshold,
                    const std::string& unit);

/// Prints a hint `course check` shows when the test fails.
void report_hint(const std::string& hint);

}  // namespace streamlab::grading

/// Skips the current test, with the reason, when no CUDA device is usable.
#define SL_REQUIRE_GPU()                                                             \
    do {                                                                             \
        const ::streamlab::GpuPresence sl_presence = ::streamlab::query_gpu_presence(); \
        if (!sl_presence.available) {                                                \
            GTEST_SKIP() << "needs a GPU: " << sl_presence.reason;                  \
        }                                                                            \
    } while (false)
