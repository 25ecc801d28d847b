// Lab 05's graded tests: judges of the record that record_lab05.cpp left. The
// recording ran your pipeline once per scenario while CUPTI recorded what the
// GPU did, next to the serial run on the same data, measured a moment before on
// the same GPU; these tests read that record and never run your code.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "lab05.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/answers.hpp"
#include "streamlab/judging.hpp"
#include "streamlab/model.hpp"
#include "streamlab/ordering.hpp"
#include "streamlab/pipeline.hpp"
#include "streamlab/testing.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using lab05::kChunks;

/// What every real run of record_lab05.cpp leaves: your pipeline's output over the set-up's n, with its
/// kernel iterations, at these chunk counts.
[[maybe_unused]] const bool kRunsDeclared = judge_records_of(
    {{{"warm_up", kChunks}, {"pipeline", kChunks}, {"behind_null_stream", kChunks}, {"chunks_1", 1}, {"chunks_5", 5}}});

/// The least efficiency (the model's makespan over yours) that passes. A plain
/// correct pipeline reaches about 0.97 on the H200; the margin covers GPUs whose
/// copies slow down when both directions run at once, and the few microseconds
/// each of the nine operations costs to start. A pipeline that waits for one
/// chunk before issuing the next lands near 0.55.
constexpr double kMinEfficiency = 0.8;

/// How late H2D_1 may be issued, as a fraction of the NULL-stream kernel's run, for
/// the record to tell whether your streams wait for that kernel. A copy starts tens
/// of microseconds after it is issued and the kernel runs for milliseconds: issued
/// in the kernel's first half, a copy that does not wait starts long before it ends.
constexpr double kLatestTellingIssue = 0.5;

/// How far (relative) the speedup your events measured may be from the timeline's.
constexpr double kSpeedupTolerance = 0.1;

/// How far (relative) your predicted speedup may be from the timeline's. The
/// model's answer for two or more copy engines and equal stages (9t / 5t = 1.8x)
/// is within 5% of the H200's measured 1.72-1.75x; a GPU whose copies in the two
/// directions share a slower link falls further below the model (the README's
/// "Why 0.8"). "No speedup" (1x) is more than 40% away on the H200.
constexpr double kPredictionTolerance = 0.15;

/// How long two spans [a_start, a_end) and [b_start, b_end) overlap, in their unit (0 when they do not).
double overlap_length(double a_start, double a_end, double b_start, double b_end) {
    return std::max(0.0, std::min(a_end, b_end) - std::max(a_start, b_start));
}

/// Whether `ratio` is 1 within `tolerance`; reports it next to its threshold, and
/// `hint` when it is not.
::testing::AssertionResult ratio_near_one(const std::string& name, double ratio, double tolerance,
                                          const std::string& hint) {
    report_measure(name, ratio, "within", tolerance, "(relative)");
    if (std::fabs(ratio - 1.0) <= tolerance) {
        return ::testing::AssertionSuccess();
    }
    report_hint(hint);
    return ::testing::AssertionFailure() << name << " is " << ratio << ", more than " << tolerance << " from 1: ";
}

/// Whether copies of `bytes` each (one per chunk, in any order) cut `n` elements into
/// nearly equal chunks: they add up to all n elements, and each chunk holds between
/// the fewest and the most elements a chunk of chunk_range's split holds. chunk_range
/// rounds up (every chunk ceil(n / chunks) elements, the last what is left:
/// 22369622, 22369622, 22369620); a split into floor and ceil of n / chunks
/// (22369622, 22369621, 22369621) lies within the same bounds, as does any split as
/// even. A copy's size cannot show where its chunk starts: ResultsMatchCpuReference
/// and AnyChunkCountWorks check that the chunks cover the array.
::testing::AssertionResult nearly_equal_chunks(const std::vector<std::uint64_t>& bytes, std::size_t n) {
    const int chunks = static_cast<int>(bytes.size());
    std::size_t fewest = n, most = 0;
    for (int i = 0; i < chunks; ++i) {
        fewest = std::min(fewest, chunk_range(n, chunks, i).count);
        most = std::max(most, chunk_range(n, chunks, i).count);
    }
    std::uint64_t total = 0;
    std::string counts;
    bool within = true;
    for (const std::uint64_t size : bytes) {
        within = within && size % sizeof(float) == 0 && size >= fewest * sizeof(float) && size <= most * sizeof(float);
        total += within ? size : 0;  // within bounds, the sum cannot overflow
        counts += (counts.empty() ? "" : ", ") + std::to_string(size / sizeof(float));
    }
    if (within && total == n * sizeof(float)) {
        return ::testing::AssertionSuccess();
    }
    return ::testing::AssertionFailure() << "the chunks' copies hold " << counts << " elements; " << n
                                         << " elements cut into " << chunks << " nearly equal chunks give each "
                                         << fewest << " to " << most << " elements, all " << n << " in all";
}

/// When the host issued `op`, one of `yours` (every op in the streams the program
/// created): the stream calls list the work calls in the order they were made, each
/// queued one op, and correlation ids number the ops in the same order, so the k-th
/// work call in a created stream issued the k-th of `yours` by correlation id.
/// std::nullopt where the calls and the ops do not pair up.
std::optional<std::uint64_t> issued_at(const DeviceOp& op, std::vector<DeviceOp> yours,
                                       const std::vector<StreamCall>& calls) {
    std::vector<std::uint64_t> work_issued;
    for (const StreamCall& call : calls) {
        if (call.call == OrderingCall::Work && call.stream != 0) {  // 0: the legacy NULL stream
            work_issued.push_back(call.time_ns);
        }
    }
    if (work_issued.size() != yours.size()) {
        return std::nullopt;
    }
    std::sort(yours.begin(), yours.end(),
              [](const DeviceOp& a, const DeviceOp& b) { return a.correlation_id < b.correlation_id; });
    const auto found = std::find_if(yours.begin(), yours.end(),
                                    [&](const DeviceOp& o) { return o.correlation_id == op.correlation_id; });
    if (found == yours.end()) {
        return std::nullopt;
    }
    return work_issued[static_cast<std::size_t>(found - yours.begin())];
}

/// `ns` as milliseconds for a sentence: "828.31 ms".
std::string in_ms(std::uint64_t ns) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f ms", ms(ns));
    return text;
}

/// Why the record cannot tell whether H2D_1, `issued` then (see issued_at), waited
/// for the NULL-stream kernel `blocker`: it came too late, or when is unknown.
std::string why_the_record_cannot_tell(std::optional<std::uint64_t> issued, const DeviceOp& blocker) {
    if (!issued) {
        return "the record's work calls do not pair up with its ops: it cannot tell when H2D_1 was issued, nor "
               "whether your streams would have waited for the NULL-stream kernel";
    }
    const std::string when = *issued >= blocker.end_ns
                                 ? in_ms(*issued - blocker.end_ns) + " after the NULL-stream kernel had ended"
                                 : "only " + in_ms(blocker.end_ns - *issued) + " before the NULL-stream kernel ended";
    return "H2D_1 was issued " + when +
           ", too late for the record to tell whether your streams would have waited for it (host work before the "
           "first copy, such as printing or filling buffers, makes it late: queue the copies first)";
}

/// One chunk's op of `stage`.
const DeviceOp& op_of(const ChunkOps& chunk, Stage stage) {
    switch (stage) {
        case Stage::H2D:
            return chunk.h2d;
        case Stage::Kernel:
            return chunk.kernel;
        case Stage::D2H:
            break;
    }
    return chunk.d2h;
}

/// The article's name of an op: H2D_1, K_1, D2H_1 (chunks counted from 1).
std::string article_name(Stage stage, int chunk) {
    return std::string(to_string(stage)) + "_" + std::to_string(chunk + 1);
}

/// 256 MiB (less on a small GPU) through your pipeline, with a kernel about as
/// long as the whole H2D copy: the record's scenarios (record_lab05.cpp).
class ThreeChunks : public RecordTest {
protected:
    std::size_t n() const { return whole_number<std::size_t>(setup_value("n"), 0, 1e15); }

    /// The recorded pipeline at lab05::kChunks into timeline_ and reported_ms_.
    void use_pipeline(const char* scenario_name = "pipeline") {
        const record::Scenario* scenario = nullptr;
        SL_STEP(use_scenario(scenario_name, scenario));
        pipeline_ = scenario;
        timeline_ = *scenario->timeline;
        // What your function returned (NaN where it was not a number), within float's range: a forged
        // record's 1e308 would make the cast undefined.
        reported_ms_ = static_cast<float>(std::clamp(scenario->value("returned_ms"), -1e30, 1e30));
    }

    /// The serial reference (lab 01's way, on the same data), then your pipeline.
    void use_serial_then_pipeline() {
        const record::Scenario* serial = nullptr;
        SL_STEP(use_scenario("serial", serial));
        serial_.timeline = *serial->timeline;
        serial_.event_ms = serial->value("event_ms");
        serial_.stages = stage_times(serial_.timeline.ops);
        use_pipeline();
    }

    /// The three chunks of `ops`, found from the ops themselves (the i-th H2D copy,
    /// kernel and D2H copy issued), whatever streams they ran in; or a failure
    /// that says what the timeline shows instead.
    ::testing::AssertionResult found_three_chunks(const std::vector<DeviceOp>& ops) {
        const PipelineChunks found = chunks_by_issue_order(ops, kChunks);
        if (!found.problem.empty()) {
            return ::testing::AssertionFailure() << found.problem;
        }
        chunks_ = found.chunks;
        return ::testing::AssertionSuccess();
    }

    const record::Scenario* pipeline_ = nullptr;
    SerialReference serial_;
    Timeline timeline_;
    float reported_ms_ = 0.0F;
    std::vector<ChunkOps> chunks_;
};

TEST_F(ThreeChunks, ResultsMatchCpuReference) {
    SL_STEP(use_pipeline());
    expect_output_matches_reference(
        *pipeline_,
        "offset all three pointers of a chunk by chunk.offset, copy chunk.count * sizeof(float) bytes, "
        "and give the kernel chunk.count elements");
}

TEST_F(ThreeChunks, EachChunkRunsInItsOwnStream) {
    SL_STEP(use_pipeline());
    const PipelineChunks found = find_chunks(timeline_.ops);
    report_measure("streams that ran one whole chunk", static_cast<double>(found.chunks.size()), "==", kChunks, "");
    if (!found.problem.empty()) {
        report_hint("chunk i's H2D copy, kernel and D2H copy all go into streams[i]; nothing into the NULL stream");
    }
    ASSERT_TRUE(found.problem.empty()) << found.problem;
    ASSERT_EQ(found.chunks.size(), static_cast<std::size_t>(kChunks))
        << "expected " << kChunks << " streams with one chunk each";
    std::vector<std::uint64_t> copied_in;
    for (int i = 0; i < kChunks; ++i) {
        const ChunkOps& chunk = found.chunks[i];
        EXPECT_EQ(chunk.d2h.bytes, chunk.h2d.bytes)
            << article_name(Stage::D2H, i) << " should copy back the " << chunk.h2d.bytes << " bytes "
            << article_name(Stage::H2D, i) << " copied in";
        EXPECT_EQ(chunk.h2d.host_memory, HostMemory::Pinned) << "copy from the pinned buffer job.input";
        copied_in.push_back(chunk.h2d.bytes);
    }
    EXPECT_TRUE(nearly_equal_chunks(copied_in, n())) << "cut the data with streamlab::chunk_range(job.n, chunks, i)";
}

TEST_F(ThreeChunks, StreamsDoNotWaitForTheNullStream) {
    // A kernel in the legacy NULL stream, queued just before your pipeline and as
    // long as the whole H2D copy. Blocking streams would wait for it to finish;
    // non-blocking streams start their copies at once.
    SL_STEP(use_pipeline("behind_null_stream"));

    std::vector<DeviceOp> in_null_stream, yours;
    for (const DeviceOp& op : timeline_.ops) {
        (op.stream_kind == StreamKind::Created ? yours : in_null_stream).push_back(op);
    }
    ASSERT_EQ(in_null_stream.size(), 1U) << "only the test's own kernel belongs in the NULL stream";
    ASSERT_TRUE(found_three_chunks(yours));
    const DeviceOp& blocker = in_null_stream.front();
    const DeviceOp& first_copy = chunks_.front().h2d;
    const double head_start_ms = (static_cast<double>(blocker.end_ns) - static_cast<double>(first_copy.start_ns)) / 1e6;
    report_measure("H2D_1 started this long before the NULL-stream kernel ended", head_start_ms, ">", 0.0, "ms");
    if (first_copy.start_ns < blocker.end_ns) {
        return;  // it ran beside the kernel: your streams do not wait for the NULL stream
    }

    // H2D_1 started after the kernel ended. Whether it waited for it depends on when it was issued.
    const std::optional<std::uint64_t> issued = issued_at(first_copy, yours, timeline_.stream_calls);
    const double telling_until =
        static_cast<double>(blocker.start_ns) + kLatestTellingIssue * static_cast<double>(blocker.duration_ns());
    if (issued && static_cast<double>(*issued) < telling_until) {
        report_hint(
            "create the streams with cudaStreamNonBlocking: streams created without it wait for work in the "
            "legacy NULL stream");
        FAIL() << "H2D_1 waited for the kernel in the NULL stream: it was issued " << in_ms(blocker.end_ns - *issued)
               << " before that kernel ended and started only after it";
    }

    // Issued too late to tell: by then the kernel had ended, or nearly, and a stream
    // that waits for it starts as soon as one that does not. Failing here would take
    // the points from a correct pipeline that is slow to issue (it prints, or fills
    // buffers, before its first copy) for something the record cannot show, so the
    // verdict rests on what it can show: how the streams were created. cudaStreamCreate
    // makes streams that wait, and fails; the flags of cudaStreamCreateWithFlags are not
    // recorded, and pass. The lab's pipeline issues its first copy within
    // microseconds, and there a stream that waits always shows.
    const std::string cannot_tell = why_the_record_cannot_tell(issued, blocker);
    const auto created_blocking = timeline_.api_calls.find("cudaStreamCreate");
    if (created_blocking != timeline_.api_calls.end() && created_blocking->second > 0) {
        report_hint(
            "create the streams with cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking): cudaStreamCreate makes "
            "streams that wait for the legacy NULL stream");
        FAIL() << cannot_tell
               << "; your pipeline created streams with cudaStreamCreate, and those wait for the legacy NULL stream";
    }
    report_note("the NULL-stream kernel",
                cannot_tell + "; graded on how the streams were created: none with cudaStreamCreate");
}

TEST_F(ThreeChunks, CopiesOverlapKernels) {
    SL_STEP(use_serial_then_pipeline());
    ASSERT_TRUE(found_three_chunks(timeline_.ops));

    // The pairs of the article's five steps: H2D_{i+1} with K_i, and K_{i+1} with
    // D2H_i. Each is required where the model, for this GPU's copy engines and your
    // issue order, has them run together for at least half the shorter one.
    const std::vector<SimulatedOp> modelled =
        simulate_pipeline(serial_.stages, kChunks, kChunks, facts_.copy_engines, issue_order(timeline_.ops));
    const auto modelled_op = [&](int chunk, Stage stage) {
        return *std::find_if(modelled.begin(), modelled.end(),
                             [&](const SimulatedOp& op) { return op.chunk == chunk && op.stage == stage; });
    };
    struct Pair {
        Stage later_stage;
        Stage earlier_stage;
    };
    int expected = 0, shown = 0;
    for (int i = 0; i + 1 < kChunks; ++i) {
        for (const Pair pair : {Pair{Stage::H2D, Stage::Kernel}, Pair{Stage::Kernel, Stage::D2H}}) {
            const SimulatedOp a = modelled_op(i + 1, pair.later_stage), b = modelled_op(i, pair.earlier_stage);
            if (overlap_length(a.start, a.end, b.start, b.end) < 0.5 * std::min(a.end - a.start, b.end - b.start)) {
                continue;  // the model does not have them run together on this GPU
            }
            ++expected;
            const DeviceOp& x = op_of(chunks_[i + 1], pair.later_stage);
            const DeviceOp& y = op_of(chunks_[i], pair.earlier_stage);
            const double together = overlap_length(x.start_ns, x.end_ns, y.start_ns, y.end_ns);
            const double shorter = static_cast<double>(std::min(x.duration_ns(), y.duration_ns()));
            const bool ok = together >= 0.25 * shorter;  // a real overlap, not a touch
            shown += ok ? 1 : 0;
            EXPECT_TRUE(ok) << article_name(pair.later_stage, i + 1) << " and " << article_name(pair.earlier_stage, i)
                            << " ran together for " << together / 1e6 << " ms; the shorter of them took "
                            << shorter / 1e6 << " ms";
        }
    }
    if (expected == 0) {
        SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name << " has " << facts_.copy_engines
                                     << " copy engine(s): for your issue order the "
                                     << "model has no copy run beside a kernel (see the README, one copy engine)";
    }
    report_measure("overlapping pairs the model expects", shown, "==", expected, "");
    if (shown < expected) {
        report_hint("queue every chunk's work before waiting for anything: one synchronize, at the very end");
    }
}

TEST_F(ThreeChunks, MakespanNearTheModel) {
    SL_STEP(use_serial_then_pipeline());
    ASSERT_TRUE(found_three_chunks(timeline_.ops));
    const PipelineComparison c = compare_with_model(serial_.timeline, timeline_, kChunks, facts_.copy_engines);
    report_measure("efficiency: the model's makespan / yours", c.efficiency(), ">=", kMinEfficiency, "");
    if (c.efficiency() < kMinEfficiency) {
        report_hint(
            "draw your timeline with the model beneath it: ./course plot build/traces/lab05-yours.json "
            "--model; every gap in yours that the model does not have is time lost");
    }
    EXPECT_GE(c.efficiency(), kMinEfficiency)
        << "your pipeline took " << c.pipelined_ms << " ms; from the stage "
        << "times measured a moment ago the model allows " << c.model_ms << " ms\n"
        << describe(c);
}

TEST_F(ThreeChunks, ReportedSpeedupMatchesTimeline) {
    SL_STEP(use_serial_then_pipeline());
    ASSERT_TRUE(found_three_chunks(timeline_.ops));
    if (reported_ms_ <= 0.0F) {
        report_hint(
            "record `start` and `stop` in the first stream, wait for `stop`, and return elapsed_ms(start, stop)");
    }
    ASSERT_GT(reported_ms_, 0.0F) << "run_pipeline returned " << reported_ms_ << " ms";
    // `stop` must wait for every stream's work, whichever stream happens to end
    // last in this run: the runtime calls show what it was ordered after.
    const LastEventOrder order = order_of_last_event(timeline_.stream_calls);
    // Without the join, a speedup that agrees with the timeline is luck (the stream of `stop` happened to
    // end last in this run): the verdict says so, and no ratio is shown as if it were the reason.
    ASSERT_TRUE(order.recorded) << "your pipeline recorded no event: record `start` and `stop` in the first stream "
                                   "and return elapsed_ms(start, stop)";
    ASSERT_TRUE(order.not_ordered.empty())
        << "`stop` does not wait for " << order.not_ordered.size() << " of the " << order.work_before
        << " copies and kernels queued before it (those of the other streams), so your "
        << in_ms(static_cast<std::uint64_t>(reported_ms_ * 1e6))
        << " can end before the pipeline does. Before recording `stop`, make its stream wait for each other "
           "stream: cudaEventRecord in that stream, then cudaStreamWaitEvent in the stream of `stop`.";
    // Your speedup: the serial run's events over yours. The timeline's: the two makespans.
    const PipelineComparison c = compare_with_model(serial_.timeline, timeline_, kChunks, facts_.copy_engines);
    const double yours = serial_.event_ms / reported_ms_;
    EXPECT_TRUE(ratio_near_one("your speedup / the timeline's", yours / c.speedup(), kSpeedupTolerance,
                               "events in one stream do not wait for the others: make the first stream wait for "
                               "every other stream (cudaStreamWaitEvent) before recording `stop`"))
        << "your events say " << reported_ms_ << " ms, a speedup of " << yours << "x; the timeline spans "
        << c.pipelined_ms << " ms, a speedup of " << c.speedup() << "x (the model's: " << c.model_speedup() << "x)";
}

TEST_F(ThreeChunks, AnyChunkCountWorks) {
    // lab05.hpp promises any `chunks` >= 1. One chunk is the serial run in a
    // stream; five cut the data unevenly when n is not a multiple of five.
    for (const int chunks : {1, 5}) {
        SCOPED_TRACE("run_pipeline(job, " + std::to_string(chunks) + ")");
        const record::Scenario* scenario = nullptr;
        SL_STEP(use_scenario("chunks_" + std::to_string(chunks), scenario));
        EXPECT_TRUE(output_matches_reference(*scenario));
        timeline_ = *scenario->timeline;
        const PipelineChunks found = chunks_by_issue_order(timeline_.ops, chunks);
        report_measure("chunks found for chunks = " + std::to_string(chunks), static_cast<double>(found.chunks.size()),
                       "==", chunks, "");
        if (!found.problem.empty()) {
            report_hint("use `chunks`, not lab05::kChunks, everywhere in run_pipeline");
        }
        ASSERT_TRUE(found.problem.empty()) << found.problem;
        // The copies' sizes, whatever order the chunks were issued in, cut the data into nearly equal chunks.
        std::vector<std::uint64_t> copied_in, copied_out;
        for (int i = 0; i < chunks; ++i) {
            copied_in.push_back(found.chunks[i].h2d.bytes);
            copied_out.push_back(found.chunks[i].d2h.bytes);
        }
        EXPECT_TRUE(nearly_equal_chunks(copied_in, n())) << "the H2D copies' sizes";
        EXPECT_TRUE(nearly_equal_chunks(copied_out, n())) << "the D2H copies' sizes";
    }
}

TEST_F(ThreeChunks, YourPredictionMatchesTheTimeline) {
    // prediction.txt is read here, by the test: nothing your code prints counts.
    const answers::AnswerFile file = answers::read_answer_file("prediction.txt");
    SL_STEP(use_serial_then_pipeline());
    if (!found_three_chunks(timeline_.ops)) {
        report_hint("finish Tasks 1 to 3 first: your prediction is scored against your pipeline's timeline");
    }
    ASSERT_TRUE(found_three_chunks(timeline_.ops));
    const PipelineComparison c = compare_with_model(serial_.timeline, timeline_, kChunks, facts_.copy_engines);
    std::string why;
    const std::string said = file.answer("speedup", why);
    char measured[160];
    std::snprintf(measured, sizeof measured,
                  "%.2fx (the model's, from this run's stage times and %d copy engine(s): %.2fx)", c.speedup(),
                  facts_.copy_engines, c.model_speedup());
    report_note("your predicted speedup",
                (said.empty() ? std::string("none") : said) + "; the timeline's: " + measured);
    ASSERT_FALSE(said.empty()) << why;
    char* end = nullptr;
    const double predicted = std::strtod(said.c_str(), &end);
    const std::string rest = std::string(end).erase(0, std::string(end).find_first_not_of(' '));
    ASSERT_TRUE(end != said.c_str() && (rest.empty() || rest == "x") && predicted > 0)
        << file.path << ", `speedup:` must be a number such as 1.5 (or 1.5x), not `" << said << "`";
    EXPECT_TRUE(
        ratio_near_one("your predicted speedup / the timeline's", predicted / c.speedup(), kPredictionTolerance,
                       "work the model out for three chunks whose stages take about as long as each other, "
                       "with your GPU's copy engines (the README's Task 4 and `./course run 05`'s first lines)"))
        << "you predicted " << predicted << "x; serial over pipelined, the timeline shows " << c.speedup() << "x";
}

}  // namespace
