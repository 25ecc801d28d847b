#include "streamlab/testing.hpp"

#include <atomic>
#include <cstdio>
#include <nlohmann/json.hpp>

#include "streamlab/grader_words.hpp"

namespace streamlab::grading {

namespace {
std::atomic<bool> gpu_seen{false};
}  // namespace

bool gpu_seen_before() noexcept {
    return gpu_seen.load();
}

void note_gpu_seen() noexcept {
    gpu_seen.store(true);
}

void report_measure(const std::string& name, double value, const std::string& op, double threshold,
                    const std::string& unit) {
    const nlohmann::json line = {
        {"name", name}, {"value", value}, {"op", op}, {"threshold", threshold}, {"unit", unit}};
    std::printf("%s%s\n", words::kLineMeasure, line.dump().c_str());
    std::fflush(stdout);
}

void report_hint(const std::string& hint) {
    std::printf("%s%s\n", words::kLineHint, nlohmann::json(hint).dump().c_str());
    std::fflush(stdout);
}

::testing::AssertionResult none_found(const std::vector<std::string>& problems, const std::string& measure,
                                      const std::string& what, const std::string& hint) {
    report_measure(measure, static_cast<double>(problems.size()), "==", 0, "");
    if (problems.empty()) {
        return ::testing::AssertionSuccess();
    }
    report_hint(hint);
    ::testing::AssertionResult failure = ::testing::AssertionFailure();
    failure << problems.size() << " " << what << ":";
    for (std::size_t i = 0; i < problems.size() && i < 5; ++i) {
        failure << "\n  " << problems[i];
    }
    return failure;
}

::testing::AssertionResult share_of_model_reached(const std::string& measure, double yours, double model,
                                                  double min_share, const std::string& hint) {
    report_measure(measure, yours / model, ">=", min_share, "");
    if (yours >= min_share * model) {
        return ::testing::AssertionSuccess();
    }
    report_hint(hint);
    return ::testing::AssertionFailure() << measure << ": " << yours / model << ", less than " << min_share;
}

void report_note(const std::string& name, const std::string& text) {
    const nlohmann::json line = {{"name", name}, {"text", text}};
    std::printf("%s%s\n", words::kLineNote, line.dump().c_str());
    std::fflush(stdout);
}

}  // namespace streamlab::grading
