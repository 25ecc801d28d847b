// streamlab_analyze: the C++ analysis of a trace, or the pipeline model, as JSON on stdout.
//
//   streamlab_analyze TRACE.json
//       Prints the TimelineSummary of the trace's device ops (analysis.hpp).
//   streamlab_analyze --model H K D CHUNKS ENGINES
//       Prints {"serial", "ideal", "bound", "speedup"} of pipeline_model (model.hpp)
//       for whole-data stage times H, K, D.
//
// Exit status: 0 on success; 2, with one line "streamlab_analyze: <reason>" on
// stderr, when the arguments or the trace file are not usable.
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "streamlab/analysis.hpp"
#include "streamlab/model.hpp"
#include "streamlab/trace_file.hpp"

namespace {

constexpr int kUsageOrInputError = 2;

const char* const kUsage = "usage: streamlab_analyze TRACE.json | streamlab_analyze --model H K D CHUNKS ENGINES";

// Thrown for a command line we cannot use; main() prints it like any other failure.
class UsageError : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

double parse_number(const std::string& text, const char* what) {
    std::size_t used = 0;
    double value = 0;
    try {
        value = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size()) {
        throw UsageError(std::string(what) + " must be a number, found \"" + text + "\"");
    }
    return value;
}

int parse_integer(const std::string& text, const char* what) {
    std::size_t used = 0;
    int value = 0;
    try {
        value = std::stoi(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size()) {
        throw UsageError(std::string(what) + " must be a whole number, found \"" + text + "\"");
    }
    return value;
}

std::string model_json(const std::vector<std::string>& args) {
    if (args.size() != 6) {
        throw UsageError(kUsage);
    }
    streamlab::StageTimes whole;
    whole.h2d = parse_number(args[1], "H");
    whole.kernel = parse_number(args[2], "K");
    whole.d2h = parse_number(args[3], "D");
    const int chunks = parse_integer(args[4], "CHUNKS");
    const int engines = parse_integer(args[5], "ENGINES");
    const streamlab::PipelineEstimate estimate = streamlab::pipeline_model(whole, chunks, engines);
    const nlohmann::ordered_json object{{"serial", estimate.serial},
                                        {"ideal", estimate.ideal},
                                        {"bound", estimate.bound},
                                        {"speedup", estimate.speedup}};
    return object.dump();
}

std::string trace_summary_json(const std::string& path) {
    const streamlab::Timeline timeline = streamlab::read_trace(path);
    return streamlab::summary_to_json(streamlab::summarize(timeline.ops));
}

}  // namespace

int main(int argc, char** argv) {
    const std::vector<std::string> args(argv + 1, argv + argc);
    try {
        if (args.size() == 1 && (args[0] == "-h" || args[0] == "--help")) {
            std::cout << kUsage << '\n';
            return 0;
        }
        if (!args.empty() && args[0] == "--model") {
            std::cout << model_json(args) << '\n';
            return 0;
        }
        if (args.size() != 1) {
            throw UsageError(kUsage);
        }
        std::cout << trace_summary_json(args[0]) << '\n';
        return 0;
    } catch (const std::exception& error) {
        // Trace format errors, unusable arguments, invalid model inputs: all one line.
        std::cerr << "streamlab_analyze: " << error.what() << '\n';
        return kUsageOrInputError;
    }
}
