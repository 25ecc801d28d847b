// What a real run on a real GPU makes consistent in a record (record_consistency.hpp): an honest
// record, built here, passes every cross-check, and each forgery of it is refused with a reason that
// names what was found.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "correct_output.hpp"
#include "op_builder.hpp"
#include "streamlab/device_links.hpp"
#include "streamlab/record.hpp"
#include "streamlab/record_consistency.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::record;
using streamlab::testing_ops::correct_output_sample;
using streamlab::testing_ops::OpBuilder;

constexpr std::uint32_t kSeed = 4321;
constexpr std::uint32_t kSalt = 7;
constexpr int kIterations = 50;
constexpr int kChunks = 3;
/// The set-up's n: about 4 Mi floats, bound to the salt.
const std::uint64_t kElements = salted_elements(std::uint64_t{1} << 22, kSalt);
/// An H200's host link as the committed records show it (55 GB/s) and the workload rate the set-up
/// calibrates below: a kernel over all kElements with kIterations takes as long as their copy in.
constexpr double kCopyGbPerS = 55;
const double kWholeCopyNs = static_cast<double>(kElements * sizeof(float)) / kCopyGbPerS;

/// A chunk's share of a whole-array duration, in ns.
std::uint64_t chunk_ns(double whole_ns) {
    return static_cast<std::uint64_t>(whole_ns / kChunks);
}

/// What a correct run wrote at the sampled elements.
OutputSample correct_output() {
    return correct_output_sample(kElements, kIterations, kChunks, kSeed);
}

DeviceFacts h200() {
    DeviceFacts facts;
    facts.name = "NVIDIA H200";
    facts.sm_count = 132;
    facts.copy_engines = 3;
    return facts;
}

/// The pipeline as a real run records it: chunk i's copy in, kernel and copy out in created stream
/// 19 + i, each made by a work call on handle 1000 + i made before it, the calls counted by the trace.
Scenario honest_pipeline() {
    Scenario scenario;
    scenario.name = "pipeline";
    Timeline timeline;
    timeline.device = h200();
    const std::uint64_t copy_ns = chunk_ns(kWholeCopyNs), kernel_ns = chunk_ns(kWholeCopyNs);
    const std::uint64_t chunk_bytes = kElements / kChunks * sizeof(float);
    std::uint32_t correlation = 100;
    std::uint64_t issued = 1000;
    for (std::uint32_t i = 0; i < kChunks; ++i) {
        const std::uint64_t handle = 1000 + i, t = 5000 + i * copy_ns;
        timeline.ops.push_back(OpBuilder(OpKind::MemcpyH2D)
                                   .stream(19 + i)
                                   .span(t, t + copy_ns)
                                   .bytes(chunk_bytes)
                                   .host(HostMemory::Pinned)
                                   .correlation(correlation++));
        timeline.ops.push_back(OpBuilder(OpKind::Kernel)
                                   .name("workload_kernel")
                                   .stream(19 + i)
                                   .span(t + copy_ns, t + copy_ns + kernel_ns)
                                   .correlation(correlation++));
        timeline.ops.push_back(OpBuilder(OpKind::MemcpyD2H)
                                   .stream(19 + i)
                                   .span(t + copy_ns + kernel_ns, t + 2 * copy_ns + kernel_ns)
                                   .bytes(chunk_bytes)
                                   .host(HostMemory::Pinned)
                                   .correlation(correlation++));
        for (const char* function : {"cudaMemcpyAsync", "cudaLaunchKernel", "cudaMemcpyAsync"}) {
            timeline.stream_calls.push_back({OrderingCall::Work, function, handle, 0, issued += 500});
        }
    }
    std::sort(timeline.ops.begin(), timeline.ops.end(),
              [](const DeviceOp& a, const DeviceOp& b) { return a.start_ns < b.start_ns; });
    timeline.marks = {{kRecordingEndsMark, timeline.ops.back().end_ns + 1000}};
    timeline.api_calls = {{"cudaMemcpyAsync", 6}, {"cudaLaunchKernel", 3}};
    timeline.api_calls_by_thread = {{4711, 9}};
    scenario.timeline = timeline;
    scenario.output = correct_output();
    return scenario;
}

/// A whole honest record of one scenario, as a harness of today writes it: a job salt, and what the
/// harness saw itself (one start that ended as planned, the scenario's wall time, the GPU's name).
Record honest_record() {
    Record record;
    record.lab = "05";
    record.seed = kSeed;
    record.gpu = true;
    record.device = h200();
    record.gpus = {record.device};
    record.setup = {{"n", static_cast<double>(kElements)}, {"iterations", kIterations}, {"h2d_ms", kWholeCopyNs / 1e6}};
    record.scenarios = {honest_pipeline()};
    record.ended = "complete";
    record.job_salt = kSalt;
    record.observed = HarnessObservations{{{"exit status 0", true}}, {{"pipeline", 40.0}}, {"NVIDIA H200"}, ""};
    return record;
}

const RecordedRuns kRuns{{{"pipeline", kChunks}}};

Scenario& pipeline(Record& record) {
    return record.scenarios.front();
}

Timeline& timeline(Record& record) {
    return *pipeline(record).timeline;
}

DeviceOp& first_op(Record& record, OpKind kind) {
    return *std::find_if(timeline(record).ops.begin(), timeline(record).ops.end(),
                         [&](const DeviceOp& op) { return op.kind == kind; });
}

/// Expects `record` refused with a reason that holds `words` and says that no real run made it.
void expect_refused(const Record& record, const std::string& words) {
    const std::string why = why_not_a_real_run(record, kRuns);
    EXPECT_NE(why.find(words), std::string::npos) << why;
    EXPECT_NE(why.find("this record was not made by a real run"), std::string::npos) << why;
}

TEST(RecordConsistency, AnHonestRecordPasses) {
    EXPECT_EQ(why_not_a_real_run(honest_record(), kRuns), "");
}

TEST(RecordConsistency, ARecordMadeBeforeTheHarnessObservedAnythingPasses) {
    Record record = honest_record();
    record.job_salt.reset();
    record.observed.reset();
    EXPECT_EQ(why_not_a_real_run(record, kRuns), "");
}

// ---------------------------------------------------------------- output samples

TEST(RecordConsistency, AScenarioWithoutItsOutputSampleIsRefused) {
    Record record = honest_record();
    pipeline(record).output.reset();
    expect_refused(record, "scenario pipeline carries no output sample");
}

TEST(RecordConsistency, ASampleWhoseIterationsWidenItsToleranceIsRefused) {
    // Every output 0 with iterations raised to 2^20: matches_reference's tolerance grows past any value.
    Record record = honest_record();
    OutputSample& sample = *pipeline(record).output;
    sample.iterations = 1 << 20;
    std::fill(sample.value.begin(), sample.value.end(), 0.0F);
    // What the judges read today: every 0 within the tolerance (one element recomputed; all take seconds).
    const float expected = workload_reference(input_element(sample.index.front(), kSeed), sample.iterations);
    ASSERT_TRUE(matches_reference(0.0F, expected, sample.iterations));
    expect_refused(record, "names 1048576 kernel iterations; its run's kernel had 50");
}

TEST(RecordConsistency, ASampleOfAnotherRunsElementsOrChunksIsRefused) {
    Record record = honest_record();
    pipeline(record).output->n = kElements - 1;
    expect_refused(record, "covers " + std::to_string(kElements - 1) + " elements");
    record = honest_record();
    pipeline(record).output->chunks = 1;
    expect_refused(record, "is of 1 chunks; its run had 3");
}

TEST(RecordConsistency, ElementCountsComeFromTheSetUpOrTheLabsOwnSaltedCount) {
    const Record record = honest_record();
    EXPECT_EQ(why_not_a_real_run(record, {{{"pipeline", kChunks, fixed_elements(std::uint64_t{1} << 22, true)}}}), "");
    const std::string unsalted =
        why_not_a_real_run(record, {{{"pipeline", kChunks, fixed_elements(std::uint64_t{1} << 22, false)}}});
    EXPECT_NE(unsalted.find("its run had 4194304"), std::string::npos) << unsalted;
    EXPECT_EQ(why_not_a_real_run(record, {{{"pipeline", kChunks, setup_elements("n")}}}), "");
}

TEST(RecordConsistency, ANSetUpForAnotherRunsSaltIsRefused) {
    Record record = honest_record();
    record.job_salt = kSalt + 1;
    expect_refused(record, "is not bound to this run's job salt 8");
}

// ---------------------------------------------------------------- stream calls against ops

TEST(RecordConsistency, StreamCallsTheTraceDidNotCountAreRefused) {
    // Four stream calls added to a failing record, the trace's counts left as they were.
    Record record = honest_record();
    for (int i = 0; i < 4; ++i) {
        timeline(record).stream_calls.push_back({OrderingCall::StreamWaitEvent, "cudaStreamWaitEvent", 1000, 77, 2500});
    }
    expect_refused(record, "stream calls hold 4 calls of cudaStreamWaitEvent, but its trace counted 0");
}

TEST(RecordConsistency, CallsByThreadThatDoNotAddUpAreRefused) {
    Record record = honest_record();
    timeline(record).api_calls_by_thread = {{4711, 13}};
    expect_refused(record, "runtime calls by thread add up to 13, but its trace counted 9");
}

TEST(RecordConsistency, AnOpNoCallMadeIsRefused) {
    Record record = honest_record();
    DeviceOp extra = first_op(record, OpKind::Kernel);
    extra.correlation_id = 999;
    timeline(record).ops.push_back(extra);
    expect_refused(record, "trace holds 4 kernels, but its program made 3 runtime calls that make them");
}

TEST(RecordConsistency, AnOpThatStartedBeforeItsCallIsRefused) {
    Record record = honest_record();
    timeline(record).stream_calls[1].time_ns = first_op(record, OpKind::Kernel).start_ns + 1;
    expect_refused(record, "before the cudaLaunchKernel that made it");
}

TEST(RecordConsistency, AnOpInAnotherKindOfStreamThanItsCallNamedIsRefused) {
    Record record = honest_record();
    for (StreamCall& call : timeline(record).stream_calls) {
        call.stream = 0;  // every call named the legacy NULL stream; the ops ran in created streams
    }
    expect_refused(record,
                   "workload_kernel ran in a created stream, but the cudaLaunchKernel that made it named the legacy "
                   "NULL stream");
}

TEST(RecordConsistency, OneStreamWithTheWorkOfTwoHandlesIsRefused) {
    Record record = honest_record();
    timeline(record).stream_calls[2].stream = 1001;  // chunk 1's copy out, called on chunk 2's stream
    expect_refused(record, "stream 19 ran the work of calls that named two different streams");
}

TEST(RecordConsistency, AGraphLaunchMakesManyOpsWithOneCall) {
    Record record = honest_record();
    Timeline& traced = timeline(record);
    for (DeviceOp& op : traced.ops) {
        op.graph_id = 1;  // the same ops, run by one launch of a graph that the calls captured
        op.correlation_id = 500;
    }
    traced.api_calls["cudaStreamBeginCapture"] = 1;
    traced.api_calls["cudaGraphLaunch"] = 1;
    traced.api_calls_by_thread = {{4711, 11}};
    EXPECT_EQ(why_not_a_real_run(record, kRuns), "");
}

TEST(RecordConsistency, ACallThatMadeNoOpIsNoForgery) {
    Record record = honest_record();
    Timeline& traced = timeline(record);
    traced.stream_calls.push_back({OrderingCall::Work, "cudaLaunchKernel", 1000, 0, 4500});  // it failed
    traced.api_calls["cudaLaunchKernel"] = 4;
    traced.api_calls_by_thread = {{4711, 10}};
    EXPECT_EQ(why_not_a_real_run(record, kRuns), "");
}

// ---------------------------------------------------------------- durations against links and rates

TEST(RecordConsistency, ACopyFasterThanTheHostLinkIsRefused) {
    Record record = honest_record();
    DeviceOp& copy = first_op(record, OpKind::MemcpyH2D);
    copy.end_ns = copy.start_ns + 120000;  // 5.6 MB in 0.12 ms: 47 GB/s is possible
    EXPECT_EQ(why_not_a_real_run(record, kRuns), "");
    copy.end_ns = copy.start_ns + 60000;  // in 0.06 ms: 93 GB/s is not
    expect_refused(record,
                   "H2D of 5.587 MB took 0.06 ms, faster than the fastest host link an NVIDIA H200 has (64 GB/s)");
}

TEST(RecordConsistency, AGpuTheCourseDoesNotKnowGetsGenerousBounds) {
    Record record = honest_record();
    record.device.name = "Made-up GPU";
    record.gpus = {record.device};
    record.observed->gpus = {"Made-up GPU"};
    timeline(record).device = record.device;
    ASSERT_EQ(links_of("Made-up GPU").name_part, std::string());
    EXPECT_EQ(why_not_a_real_run(record, kRuns), "");
    DeviceOp& copy = first_op(record, OpKind::MemcpyD2H);
    copy.end_ns = copy.start_ns + 1000;  // 5.6 MB in a microsecond: 5.6 TB/s
    expect_refused(record, "faster than the fastest host link any GPU has (1000 GB/s)");
}

TEST(RecordConsistency, KernelsTooShortForTheirSampledWorkAreRefused) {
    Record record = honest_record();
    for (DeviceOp& op : timeline(record).ops) {
        if (op.kind == OpKind::Kernel) {
            op.end_ns = op.start_ns + (op.end_ns - op.start_ns) / 3;  // three times faster than calibrated
        }
    }
    expect_refused(record, "kernels ran");
    expect_refused(record, "at twice the rate the set-up calibrated");
}

TEST(RecordConsistency, KernelsTwiceAsSlowOrALittleFasterThanCalibratedPass) {
    for (const double factor : {2.0, 0.7}) {
        Record record = honest_record();
        for (DeviceOp& op : timeline(record).ops) {
            if (op.kind == OpKind::Kernel) {
                op.end_ns =
                    op.start_ns + static_cast<std::uint64_t>(factor * static_cast<double>(op.end_ns - op.start_ns));
            }
        }
        EXPECT_EQ(why_not_a_real_run(record, kRuns), "") << factor;
    }
}

TEST(RecordConsistency, AnOutputNoKernelComputedClaimsNoWork) {
    // The starter: its pipeline queues nothing, and its output is the poison the course wrote.
    Record record = honest_record();
    Timeline& traced = timeline(record);
    traced.ops.clear();
    traced.stream_calls.clear();
    traced.api_calls.clear();
    traced.api_calls_by_thread.clear();
    OutputSample& sample = *pipeline(record).output;
    std::fill(sample.value.begin(), sample.value.end(), std::nanf(""));
    EXPECT_EQ(why_not_a_real_run(record, kRuns), "");
    sample = correct_output();  // the right outputs pasted in, with no kernel to have computed them
    expect_refused(record, "kernels ran 0 ms");
}

TEST(RecordConsistency, ASetUpCalibratedFasterThanItsGpuIsRefused) {
    Record record = honest_record();
    record.setup["iterations"] = 1 << 20;
    pipeline(record).output->iterations = 1 << 20;
    expect_refused(record, "its set-up calibrated the kernel at");
    record = honest_record();
    record.setup["h2d_ms"] = 0.01;
    expect_refused(record, "its set-up's copy of 16.76 MB took 0.01 ms");
}

// ---------------------------------------------------------------- the harness's observations, the device

TEST(RecordConsistency, AStartKilledByASignalThatNoScenarioExplainsIsRefused) {
    Record record = honest_record();
    record.observed->starts.insert(record.observed->starts.begin(),
                                   {"killed by signal 11 (Segmentation fault)", false});
    expect_refused(record, "start 1 of its program ended with killed by signal 11");
    Scenario crashed;
    crashed.name = "warm_up";
    crashed.outcome = Outcome::Crashed;
    crashed.message = "the recording process was killed by signal 11 (Segmentation fault) in it";
    record.scenarios.insert(record.scenarios.begin(), crashed);
    EXPECT_EQ(why_not_a_real_run(record, kRuns), "");
}

TEST(RecordConsistency, ACompleteRecordWhoseProgramEndedBeforeItsFinishedLineIsRefused) {
    Record record = honest_record();
    record.observed->starts.back().finished = false;  // it wrote a record and ended the process itself
    expect_refused(record, "its program's last start ended with exit status 0 before its finished line");
}

TEST(RecordConsistency, AFailedScenarioNeedsTheRestartThatFollowsIt) {
    Record record = honest_record();
    Scenario failed;
    failed.name = "warm_up";
    failed.outcome = Outcome::Failed;
    failed.message = "an illegal memory access was encountered";
    record.scenarios.insert(record.scenarios.begin(), failed);
    expect_refused(record, "a scenario failed, but no start of its program ended with exit status 75");
    record.observed->starts.insert(record.observed->starts.begin(), {"exit status 75", false});
    EXPECT_EQ(why_not_a_real_run(record, kRuns), "");
}

TEST(RecordConsistency, ATraceLongerThanTheWallTimeTheHarnessMeasuredIsRefused) {
    Record record = honest_record();  // the harness saw it run 40 ms
    timeline(record).marks.back().time_ns = 100'000'000;
    expect_refused(record, "scenario pipeline's trace spans 100 ms, but the harness saw it run for 40 ms");
    record.observed->scenario_wall_ms.clear();
    expect_refused(record, "the harness measured no wall time for scenario pipeline");
    record.simulated = true;  // the simulated GPU's times are its model's, not the harness's clock
    EXPECT_EQ(why_not_a_real_run(record, kRuns), "");
}

TEST(RecordConsistency, AGpuTheHarnessDidNotReadIsRefused) {
    Record record = honest_record();
    record.observed->gpus = {"NVIDIA H100 80GB HBM3"};
    expect_refused(record, "the record names an NVIDIA H200, but the harness read this machine's GPUs as NVIDIA H100");
    record.observed->gpus.clear();  // where the harness could not read them, the record's word stands
    record.observed->gpu_reading = "no NVML: libnvidia-ml.so.1 not found";
    EXPECT_EQ(why_not_a_real_run(record, kRuns), "");
}

TEST(RecordConsistency, ARecordThatFoundNoGpuWhereTheHarnessReadOneIsNotBelieved) {
    Record record = honest_record();  // the harness read an NVIDIA H200
    record.gpu = false;               // and the recording says there was none: no verdict is judged, none lost
    record.no_gpu_reason = "no GPU: cudaGetDeviceCount found none";
    record.gpus.clear();
    record.scenarios.clear();
    EXPECT_EQ(why_no_gpu_is_not_believed(record),
              "the recording says it found no GPU (no GPU: cudaGetDeviceCount found none), but the harness "
              "read this machine's GPUs as NVIDIA H200: this record was not made by a real run");
    record.observed->gpus.clear();  // a machine without one, or where CUDA_VISIBLE_DEVICES hid them all
    record.observed->gpu_reading = "CUDA_VISIBLE_DEVICES hides every GPU from this run";
    EXPECT_EQ(why_no_gpu_is_not_believed(record), "");
    EXPECT_EQ(why_no_gpu_is_not_believed(honest_record()), "");  // a record with its GPU is checked elsewhere
}

TEST(RecordConsistency, AScenarioFromAnotherGpuOrAChipLargerThanItsKindIsRefused) {
    Record record = honest_record();
    timeline(record).device.name = "NVIDIA H100 80GB HBM3";
    expect_refused(record, "scenario pipeline's trace ran on an NVIDIA H100 80GB HBM3");
    record = honest_record();
    record.device.sm_count = 500;
    record.gpus = {record.device};
    expect_refused(record, "has 500 SMs; no H200 has more than 132");
}

}  // namespace
