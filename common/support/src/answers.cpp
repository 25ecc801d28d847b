#include "streamlab/answers.hpp"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "streamlab/analysis.hpp"

namespace streamlab::answers {

namespace {

std::string trim(const std::string& text) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos) {
        return "";
    }
    return text.substr(first, text.find_last_not_of(" \t\r") - first + 1);
}

/// Which way a pair of ops went: -1 a ended before b started, 1 the other way, 0 together.
int relation(const DeviceOp& a, const DeviceOp& b) {
    if (ended_before(a, b)) {
        return -1;
    }
    if (ended_before(b, a)) {
        return 1;
    }
    return 0;
}

const char* relation_words(int way) {
    return way < 0 ? "ran before" : way > 0 ? "ran after" : "ran at the same time as";
}

}  // namespace

std::string AnswerFile::answer(const std::string& key, std::string& why) const {
    if (!problem.empty()) {
        why = problem;
        return "";
    }
    const auto found = values.find(key);
    if (found == values.end()) {
        why = path + " has no `" + key + ":` line";
        return "";
    }
    if (found->second.empty() || found->second == "?") {
        why = path + ": `" + key + ":` is not answered yet (still `?`)";
        return "";
    }
    return found->second;
}

AnswerFile parse_answer_file(const std::string& text) {
    AnswerFile file;
    std::istringstream lines(text);
    std::string line;
    for (int number = 1; std::getline(lines, line); ++number) {
        const std::string content = trim(line.substr(0, line.find('#')));
        if (content.empty()) {
            continue;
        }
        const auto colon = content.find(':');
        const std::string key = colon == std::string::npos ? "" : trim(content.substr(0, colon));
        if (key.empty()) {
            file.problem = "line " + std::to_string(number) + " is not `key: value`: " + content;
            return file;
        }
        if (!file.values.emplace(key, trim(content.substr(colon + 1))).second) {
            file.problem = "line " + std::to_string(number) + " answers `" + key + "` a second time";
            return file;
        }
    }
    return file;
}

AnswerFile read_answer_file(const std::string& name) {
    const char* folder = std::getenv("STREAMLAB_ANSWER_DIR");
    if (folder == nullptr || *folder == '\0') {
        AnswerFile file;
        file.path = name;
        file.problem = "STREAMLAB_ANSWER_DIR is not set: run the lab's tests through ctest (course check)";
        return file;
    }
    const std::string path = std::string(folder) + "/" + name;
    std::ifstream in(path);
    std::ostringstream text;
    if (in) {
        text << in.rdbuf();
    }
    AnswerFile file = in ? parse_answer_file(text.str()) : AnswerFile{};
    file.path = name;
    if (!in) {
        file.problem = name + " is missing: write your answers there (the starter has a template)";
    } else if (!file.problem.empty()) {
        file.problem = name + ": " + file.problem;
    }
    return file;
}

PredictedOrder parse_order(const std::string& text, const std::string& names) {
    PredictedOrder order;
    const std::string shape = std::string("`") + text + "` is not an order such as `A < B < C`, `A+B+C` or `A < B+C`";
    int group = 0;
    char previous = '<';       // the last character that was not a space
    bool space_since = false;  // a space since `previous`
    for (const char c : text) {
        if (std::isspace(static_cast<unsigned char>(c))) {
            space_since = true;
            continue;
        }
        if (c == '<' || c == '+') {
            if (previous == '<' || previous == '+') {
                order.problem = shape;
                return order;
            }
            group += c == '<' ? 1 : 0;
        } else if (std::isalpha(static_cast<unsigned char>(c))) {
            const char name = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
            if (std::isalpha(static_cast<unsigned char>(previous)) && space_since) {
                order.problem = shape + " (between two names write `<`, one after the other, or `+`, together)";
                return order;
            }
            if (names.find(name) == std::string::npos) {
                order.problem = std::string("`") + text + "` names " + name + ", which is not one of " + names;
                return order;
            }
            if (!order.rank.emplace(name, group).second) {
                order.problem = std::string("`") + text + "` names " + name + " twice";
                return order;
            }
        } else {
            order.problem = shape;
            return order;
        }
        previous = c;
        space_since = false;
    }
    if (previous == '<' || previous == '+') {
        order.problem = shape;
    } else if (order.rank.size() != names.size()) {
        order.problem = std::string("`") + text + "` must name each of " + names + " once";
    }
    return order;
}

std::string measured_order(const std::vector<DeviceOp>& ops, const std::string& names) {
    std::vector<std::size_t> by_start(ops.size());
    for (std::size_t i = 0; i < ops.size(); ++i) {
        by_start[i] = i;
    }
    std::stable_sort(by_start.begin(), by_start.end(),
                     [&](std::size_t a, std::size_t b) { return ops[a].start_ns < ops[b].start_ns; });
    std::string text;
    std::vector<std::size_t> group;
    for (const std::size_t i : by_start) {
        const bool after_group = !group.empty() && std::all_of(group.begin(), group.end(), [&](std::size_t g) {
            return ended_before(ops[g], ops[i]);
        });
        if (after_group) {
            text += " < ";
            group.clear();
        }
        if (!group.empty()) {
            text += "+";
        }
        group.push_back(i);
        text += names.at(i);
    }
    return text;
}

std::vector<std::uint64_t> launch_times(const std::vector<StreamCall>& calls, const std::vector<DeviceOp>& kernels) {
    std::vector<std::uint64_t> times;
    for (const StreamCall& call : calls) {
        if (call.call == OrderingCall::Work && call.function == "cudaLaunchKernel") {
            times.push_back(call.time_ns);
        }
    }
    if (times.size() != kernels.size()) {
        return {};
    }
    return times;
}

bool order_matches(const PredictedOrder& predicted, const std::vector<DeviceOp>& ops, const std::string& names,
                   std::string& mismatch, const std::vector<std::uint64_t>& launched_ns) {
    // Whether `later` was launched only after `earlier` had ended.
    const auto launched_after_end = [&](std::size_t later, std::size_t earlier) {
        return launched_ns.size() == ops.size() && launched_ns[later] >= ops[earlier].end_ns;
    };
    for (std::size_t a = 0; a < ops.size(); ++a) {
        for (std::size_t b = a + 1; b < ops.size(); ++b) {
            const int rank_a = predicted.rank.at(names.at(a));
            const int rank_b = predicted.rank.at(names.at(b));
            const int said = rank_a < rank_b ? -1 : rank_a > rank_b ? 1 : 0;
            const int seen = relation(ops[a], ops[b]);
            if (said == 0 && seen != 0 && (seen < 0 ? launched_after_end(b, a) : launched_after_end(a, b))) {
                continue;  // the host kept them apart, not the streams
            }
            if (said != seen) {
                mismatch = std::string("you predicted that ") + names[a] + " " + relation_words(said) + " " + names[b] +
                           "; the timeline shows that it " + relation_words(seen) + " it";
                return false;
            }
        }
    }
    return true;
}

}  // namespace streamlab::answers
