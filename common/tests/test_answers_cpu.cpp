// Answer files (a lab's prediction.txt): parsing, and a predicted order against ops.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "streamlab/answers.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::answers;

DeviceOp kernel(std::uint64_t start, std::uint64_t end) {
    DeviceOp op;
    op.start_ns = start;
    op.end_ns = end;
    return op;
}

TEST(AnswerFile, ReadsKeysAndValuesAndSkipsComments) {
    const AnswerFile file = parse_answer_file("# a comment\n\nblocking:  A < B < C  # why\nspeedup: 1.8\n");
    ASSERT_TRUE(file.problem.empty()) << file.problem;
    std::string why;
    EXPECT_EQ(file.answer("blocking", why), "A < B < C");
    EXPECT_EQ(file.answer("speedup", why), "1.8");
}

TEST(AnswerFile, UnansweredAndMissingKeysSayWhy) {
    AnswerFile file = parse_answer_file("blocking: ?\n");
    file.path = "prediction.txt";
    std::string why;
    EXPECT_EQ(file.answer("blocking", why), "");
    EXPECT_NE(why.find("not answered"), std::string::npos) << why;
    EXPECT_EQ(file.answer("nonblocking", why), "");
    EXPECT_NE(why.find("no `nonblocking:` line"), std::string::npos) << why;
}

TEST(AnswerFile, MalformedLinesAndRepeatedKeysAreProblems) {
    EXPECT_NE(parse_answer_file("A < B < C\n").problem.find("line 1"), std::string::npos);
    EXPECT_NE(parse_answer_file("a: 1\na: 2\n").problem.find("second time"), std::string::npos);
    std::string why;
    EXPECT_EQ(parse_answer_file("oops\n").answer("a", why), "");
    EXPECT_NE(why.find("not `key: value`"), std::string::npos) << why;
}

TEST(AnswerFile, ReadFromTheFolderTheTestsAreGiven) {
    const auto folder = std::filesystem::temp_directory_path() / "streamlab_answers_test";
    std::filesystem::create_directories(folder);
    std::ofstream(folder / "prediction.txt") << "speedup: 2\n";
    ::setenv("STREAMLAB_ANSWER_DIR", folder.c_str(), 1);
    std::string why;
    EXPECT_EQ(read_answer_file("prediction.txt").answer("speedup", why), "2") << why;
    const AnswerFile missing = read_answer_file("other.txt");
    EXPECT_NE(missing.problem.find("other.txt is missing"), std::string::npos) << missing.problem;
    ::unsetenv("STREAMLAB_ANSWER_DIR");
    EXPECT_NE(read_answer_file("prediction.txt").problem.find("STREAMLAB_ANSWER_DIR"), std::string::npos);
    std::filesystem::remove_all(folder);
}

TEST(PredictedOrderTest, ParsesGroupsAndRefusesWhatIsNotAnOrder) {
    const PredictedOrder order = parse_order("a < B+C", "ABC");
    ASSERT_TRUE(order.problem.empty()) << order.problem;
    EXPECT_EQ(order.rank.at('A'), 0);
    EXPECT_EQ(order.rank.at('B'), 1);
    EXPECT_EQ(order.rank.at('C'), 1);
    EXPECT_TRUE(parse_order("ABC", "ABC").problem.empty());
    // The catalogue's correct alternative (make_grading_samples.py): other case, order and spacing.
    const AnswerFile other = parse_answer_file("blocking:a<b<c\n  nonblocking :  C + A+B   # all three together\n");
    std::string why;
    const PredictedOrder together = parse_order(other.answer("nonblocking", why), "ABC");
    ASSERT_TRUE(together.problem.empty()) << together.problem << why;
    EXPECT_EQ(together.rank.at('A'), 0);
    EXPECT_EQ(together.rank.at('C'), 0);
    EXPECT_EQ(parse_order(other.answer("blocking", why), "ABC").rank.at('C'), 2);
    for (const char* wrong : {"A B C", "A < B", "A < B < B", "A < B < D", "A << B < C", "A < B < C <", "A, B, C"}) {
        EXPECT_FALSE(parse_order(wrong, "ABC").problem.empty()) << wrong;
    }
}

TEST(PredictedOrderTest, ScoredPairByPairAgainstTheOps) {
    const std::vector<DeviceOp> one_after_another = {kernel(0, 10), kernel(10, 20), kernel(25, 30)};
    const std::vector<DeviceOp> together = {kernel(0, 10), kernel(2, 12), kernel(4, 14)};
    std::string mismatch;
    EXPECT_EQ(measured_order(one_after_another, "ABC"), "A < B < C");
    EXPECT_EQ(measured_order(together, "ABC"), "A+B+C");
    EXPECT_TRUE(order_matches(parse_order("A < B < C", "ABC"), one_after_another, "ABC", mismatch)) << mismatch;
    EXPECT_TRUE(order_matches(parse_order("A+B+C", "ABC"), together, "ABC", mismatch)) << mismatch;
    EXPECT_FALSE(order_matches(parse_order("A+B+C", "ABC"), one_after_another, "ABC", mismatch));
    EXPECT_NE(mismatch.find("you predicted that A ran at the same time as B"), std::string::npos) << mismatch;
    EXPECT_FALSE(order_matches(parse_order("C < B < A", "ABC"), one_after_another, "ABC", mismatch));
}

// A late host (a busy machine) can keep kernels of different streams apart: a pair
// predicted together is excused only when the later one was launched after the other ended.
TEST(PredictedOrderTest, KernelsTheHostLaunchedTooLateToOverlapAreNotHeldAgainst) {
    const std::vector<DeviceOp> c_alone = {kernel(0, 10), kernel(2, 12), kernel(15, 25)};
    const PredictedOrder together = parse_order("A+B+C", "ABC");
    std::string mismatch;
    EXPECT_FALSE(order_matches(together, c_alone, "ABC", mismatch));  // without launch times: strict
    EXPECT_TRUE(order_matches(together, c_alone, "ABC", mismatch, {0, 1, 14})) << mismatch;  // C launched at 14
    EXPECT_FALSE(order_matches(together, c_alone, "ABC", mismatch, {0, 1, 3}));  // C launched in time, yet alone
    EXPECT_TRUE(order_matches(parse_order("A+B < C", "ABC"), c_alone, "ABC", mismatch, {0, 1, 3})) << mismatch;
    // A prediction that they run one after another is never excused.
    EXPECT_FALSE(order_matches(parse_order("A < B < C", "ABC"), c_alone, "ABC", mismatch, {0, 1, 14}));
}

TEST(PredictedOrderTest, LaunchTimesPairTheRecordedLaunchesWithTheKernels) {
    std::vector<StreamCall> calls = {{OrderingCall::Work, "cudaLaunchKernel", 1, 0, 100},
                                     {OrderingCall::EventRecord, "cudaEventRecord", 1, 7, 150},
                                     {OrderingCall::Work, "cudaMemcpyAsync", 1, 0, 180},
                                     {OrderingCall::Work, "cudaLaunchKernel", 2, 0, 200}};
    const std::vector<DeviceOp> two = {kernel(120, 300), kernel(220, 400)};
    EXPECT_EQ(launch_times(calls, two), (std::vector<std::uint64_t>{100, 200}));
    EXPECT_TRUE(launch_times(calls, {kernel(120, 300)}).empty());  // not one to one: none
}

// Every answer file the course ships parses: the starters' (all `?`) and the solutions'.
// A comment line that lost its `#` would fail the solution's graded test on a GPU.
TEST(AnswerFile, EveryShippedAnswerFileParses) {
    namespace fs = std::filesystem;
    int files = 0;
    for (const char* tree : {"labs", "solutions"}) {
        const fs::path root = fs::path(STREAMLAB_SOURCE_ROOT) / tree;
        if (!fs::is_directory(root)) {
            continue;  // a grader's copy of the course has no solutions
        }
        for (const auto& entry : fs::recursive_directory_iterator(root)) {
            if (entry.path().filename() != "prediction.txt") {
                continue;
            }
            std::ifstream in(entry.path());
            const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
            EXPECT_TRUE(parse_answer_file(text).problem.empty())
                << entry.path() << ": " << parse_answer_file(text).problem;
            ++files;
        }
    }
    EXPECT_GE(files, 8);  // labs 01, 03, 04 and 05, starter and solution
}

}  // namespace
