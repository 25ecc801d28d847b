// Lab 04's graded tests: judges of the record that record_lab04.cpp left. The
// recording ran your batch loop once per scenario while CUPTI recorded what the
// GPU did; the host work it called belonged to the course, which marked on the
// same clock when control came back to the host and when the host's work ended.
// These tests read that record and never run your code: the grade comes from
// those marks and the GPU's timeline; your report is compared with them.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "lab04.hpp"
#include "lab04_record.hpp"
#include "streamlab/analysis.hpp"
#include "streamlab/answers.hpp"
#include "streamlab/batches.hpp"
#include "streamlab/judging.hpp"
#include "streamlab/testing.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using lab04::WaitWith;

/// What every real run of record_lab04.cpp leaves: the pinned run's output, lab04::course::kBatches batches
/// of lab04::course::kElements floats each (bound to the job salt) in one chunk each, with the set-up's iterations.
[[maybe_unused]] const bool kRunsDeclared =
    judge_records_of({{{"pinned", lab04::course::kBatches,
                        record::fixed_elements(lab04::course::kElements,
                                               /*salted=*/true,
                                               /*times=*/lab04::course::kBatches)}}});

/// Three batches of 16 MiB, with a kernel about as long as one batch's H2D copy:
/// the record's scenarios (record_lab04.cpp).
class BatchTest : public RecordTest {
protected:
    static constexpr int kBatches = lab04::course::kBatches;
    static constexpr std::size_t kElements = lab04::course::kElements;

    /// A batch's bytes in this record: a little fewer than kElements floats, bound to its job salt.
    [[nodiscard]] std::uint64_t batch_bytes() const {
        return record::salted_elements(kElements, judged().job_salt) * sizeof(float);
    }

    /// The recorded run `name` ("pinned", "pageable", "wait_stream", "wait_device")
    /// into timeline_, reports_ and reported_busy_ (what run_batches returned) and found_.
    void use_run(const char* name) {
        const record::Scenario* scenario = nullptr;
        SL_STEP(use_scenario(name, scenario));
        run_ = scenario;
        timeline_ = *scenario->timeline;
        const double reports = scenario->value("reports");  // the record is untrusted: no cast of a wild value
        reports_ = reports >= 0.0 && reports <= 1e6 ? static_cast<std::size_t>(reports) : 0;
        reported_busy_.clear();
        for (int b = 0; b < kBatches && static_cast<std::size_t>(b) < reports_; ++b) {
            reported_busy_.push_back(scenario->value("device_busy_on_return_" + std::to_string(b)) != 0.0);
        }
        found_ = find_batches(timeline_, kBatches, batch_bytes());
    }

    /// The usual run: pinned or pageable buffers, the host preparing each next batch, waits per stream.
    void use_usual_run(bool pinned) { SL_STEP(use_run(pinned ? "pinned" : "pageable")); }

    /// Whether every batch was found on the timeline, or what is missing.
    [[nodiscard]] ::testing::AssertionResult found_every_batch() const {
        if (found_.problem.empty()) {
            return ::testing::AssertionSuccess();
        }
        return ::testing::AssertionFailure() << found_.problem;
    }

    /// Your report against the timeline, batch by batch.
    void expect_report_matches_timeline() const {
        ASSERT_EQ(reports_, static_cast<std::size_t>(kBatches)) << "return one report per batch";
        std::size_t agree = 0;
        for (int b = 0; b < kBatches; ++b) {
            const bool seen = found_.batches[b].device_busy_on_return();
            const bool reported = reported_busy_[b];
            agree += seen == reported;
            EXPECT_EQ(reported, seen) << "batch " << b << ": you reported the device "
                                      << (reported ? "still busy" : "done") << " when control came back; the "
                                      << "timeline shows it " << (seen ? "still busy" : "done");
        }
        report_measure("batches your report gets right", static_cast<double>(agree), "==", kBatches, "");
        if (::testing::Test::HasFailure()) {
            report_hint("right after queuing a batch, call cudaStreamQuery(stream): cudaErrorNotReady means busy");
        }
    }

    const record::Scenario* run_ = nullptr;
    Timeline timeline_;
    std::size_t reports_ = 0;          // how many reports run_batches returned
    std::vector<bool> reported_busy_;  // their device_busy_on_return, the first kBatches
    BatchesOnTimeline found_;
};

// ---------------------------------------------------------------- tasks 1 and 2: pinned memory, one stream

class Batches : public BatchTest {};

TEST_F(Batches, ResultsMatchCpuReference) {
    SL_STEP(use_usual_run(/*pinned=*/true));
    // The batches' inputs are consecutive slices of one seeded input: the sample
    // holds each batch's first and last element and about 2048 spread over all.
    expect_output_matches_reference(*run_, "each batch: H2D from batch.input, the kernel, D2H into batch.output");
}

TEST_F(Batches, AllOpsInOneCreatedStream) {
    SL_STEP(use_usual_run(/*pinned=*/true));
    ASSERT_TRUE(found_every_batch());
    const auto ops = unlabelled_ops(timeline_.ops);
    report_measure("streams used", static_cast<double>(distinct_streams(ops)), "==", 1, "");
    EXPECT_EQ(null_stream_ops(ops), 0U) << "some ops ran in the NULL stream: pass your stream to every call";
    EXPECT_EQ(distinct_streams(ops), 1U) << "every op belongs in the one stream you created";
}

TEST_F(Batches, CopiesAreAsyncFromPinnedMemory) {
    SL_STEP(use_usual_run(/*pinned=*/true));
    ASSERT_TRUE(found_every_batch());
    const auto async_copies = count_api_calls(timeline_, {"cudaMemcpyAsync"});
    report_measure("cudaMemcpyAsync calls", static_cast<double>(async_copies), "==", 2 * kBatches, "");
    EXPECT_EQ(async_copies, 2U * kBatches) << "one cudaMemcpyAsync per copy";
    EXPECT_EQ(count_api_calls(timeline_, {"cudaMemcpy"}), 0U) << "cudaMemcpy makes the host wait: use cudaMemcpyAsync";
    for (const BatchOnTimeline& batch : found_.batches) {
        EXPECT_EQ(batch.h2d.host_memory, HostMemory::Pinned) << "copy straight from the pinned batch buffers";
        EXPECT_EQ(batch.d2h.host_memory, HostMemory::Pinned) << "copy straight into the pinned batch buffers";
    }
}

TEST_F(Batches, DeviceMemoryFromTheStreamOrderedAllocator) {
    SL_STEP(use_usual_run(/*pinned=*/true));
    // The API is what this test asks for, not a number of calls: one allocation
    // for both buffers, or one from a pool of your own, is as right as two.
    const auto allocated = count_api_calls(timeline_, {"cudaMallocAsync", "cudaMallocFromPoolAsync"});
    const auto freed = count_api_calls(timeline_, {"cudaFreeAsync"});
    report_measure("cudaMallocAsync calls", static_cast<double>(allocated), ">=", 1, "");
    report_measure("cudaFreeAsync calls", static_cast<double>(freed), "==", static_cast<double>(allocated), "");
    EXPECT_GE(allocated, 1U) << "allocate the device buffers with cudaMallocAsync";
    EXPECT_EQ(freed, allocated) << "free every cudaMallocAsync allocation with cudaFreeAsync";
    EXPECT_EQ(count_api_calls(timeline_, {"cudaMalloc"}), 0U) << "this lab's device memory comes from cudaMallocAsync";
}

TEST_F(Batches, StreamIsDestroyed) {
    SL_STEP(use_usual_run(/*pinned=*/true));
    const auto created =
        count_api_calls(timeline_, {"cudaStreamCreate", "cudaStreamCreateWithFlags", "cudaStreamCreateWithPriority"});
    const auto destroyed = count_api_calls(timeline_, {"cudaStreamDestroy"});
    report_measure("streams destroyed", static_cast<double>(destroyed), "==", static_cast<double>(created), "");
    EXPECT_GE(created, 1U) << "create a stream of your own";
    EXPECT_EQ(destroyed, created) << "destroy the stream you created";
}

TEST_F(Batches, HostRegainsControlBeforeTheDeviceFinishes) {
    SL_STEP(use_usual_run(/*pinned=*/true));
    ASSERT_TRUE(found_every_batch());
    int early = 0;
    for (int b = 0; b < kBatches; ++b) {
        const BatchOnTimeline& batch = found_.batches[b];
        early += batch.device_busy_on_return();
        EXPECT_TRUE(batch.device_busy_on_return())
            << "batch " << b << ": control came back to the host " << ms(batch.queued_ns - batch.d2h.end_ns)
            << " ms after the batch's D2H copy ended; the calls must only queue the work";
    }
    report_measure("batches queued before the device finished them", early, "==", kBatches, "");
    if (HasFailure()) {
        report_hint("nothing between queuing and host_work may wait: no cudaMemcpy, no synchronize");
    }
}

TEST_F(Batches, HostWorkOverlapsDeviceWork) {
    SL_STEP(use_usual_run(/*pinned=*/true));
    ASSERT_TRUE(found_every_batch());
    // The host has work (preparing the next batch) during every batch but the last.
    std::uint64_t overlap = 0;
    std::uint64_t possible = 0;
    for (int b = 0; b + 1 < kBatches; ++b) {
        const BatchOnTimeline& batch = found_.batches[b];
        overlap += batch.host_device_overlap_ns();
        possible += std::min(batch.host_work_ns(), batch.device_span_ns());
    }
    ASSERT_GT(possible, 0U) << "the host work took no time at all";
    const double share = static_cast<double>(overlap) / static_cast<double>(possible);
    report_measure("host work overlapping the device, share of the possible", share, ">=", 0.5, "");
    EXPECT_GE(share, 0.5) << "the host worked alongside the device for " << ms(overlap) << " ms of a possible "
                          << ms(possible) << " ms";
    if (HasFailure()) {
        report_hint("call host_work(b) right after queuing batch b, and wait for the batch only after");
    }
}

TEST_F(Batches, YourReportMatchesTheTimeline) {
    SL_STEP(use_usual_run(/*pinned=*/true));
    ASSERT_TRUE(found_every_batch());
    expect_report_matches_timeline();
}

// ---------------------------------------------------------------- task 3: waiting for a stream or for the device

/// A long kernel in another stream, queued just before your batches: about four
/// times as long as your batches took on this GPU, measured by the recording just
/// before, without it (and never less than four times their copies and kernels).
class Waiting : public BatchTest {
protected:
    void SetUp() override {
        SL_STEP(BatchTest::SetUp());
        if (!facts_.concurrent_kernels) {
            SL_SKIP_DEVICE_CANNOT_SHOW() << facts_.name
                                         << " cannot run kernels of different streams at the same time, so another "
                                         << "stream's kernel would hold up yours";
        }
    }

    /// The run that waited as `wait` says, beside the other stream's kernel.
    void use_run_with_background(WaitWith wait) {
        SL_STEP(use_run(wait == WaitWith::Stream ? "wait_stream" : "wait_device"));
        const auto background = ops_of_kind(timeline_.ops, OpKind::Kernel);
        for (const DeviceOp& op : background) {
            if (op.label == kBackgroundLabel) {
                background_end_ns_ = op.end_ns;
            }
        }
    }

    std::uint64_t background_end_ns_ = 0;
};

TEST_F(Waiting, StreamSynchronizeWaitsForYourStreamOnly) {
    SL_STEP(use_run_with_background(WaitWith::Stream));
    ASSERT_TRUE(found_every_batch());
    ASSERT_GT(background_end_ns_, 0U) << "the background kernel was not recorded";
    EXPECT_GE(count_api_calls(timeline_, {"cudaStreamSynchronize"}), static_cast<std::uint64_t>(kBatches))
        << "wait for each batch with cudaStreamSynchronize";
    const BatchOnTimeline& last = found_.batches.back();
    report_measure("last batch queued before the other stream's kernel ended, by",
                   ms(background_end_ns_) - ms(last.queued_ns), ">", 0.0, "ms");
    EXPECT_LT(last.queued_ns, background_end_ns_)
        << "your waits also waited for a kernel in another stream: with WaitWith::Stream, wait for your stream only";
}

TEST_F(Waiting, DeviceSynchronizeWaitsForEveryStream) {
    SL_STEP(use_run_with_background(WaitWith::Device));
    ASSERT_TRUE(found_every_batch());
    ASSERT_GT(background_end_ns_, 0U) << "the background kernel was not recorded";
    EXPECT_GE(count_api_calls(timeline_, {"cudaDeviceSynchronize"}), static_cast<std::uint64_t>(kBatches - 1))
        << "wait for each batch with cudaDeviceSynchronize";
    const BatchOnTimeline& second = found_.batches[1];
    report_measure("batch 1 queued after the other stream's kernel ended, by",
                   ms(second.queued_ns) - ms(background_end_ns_), ">=", 0.0, "ms");
    EXPECT_GE(second.queued_ns, background_end_ns_)
        << "with WaitWith::Device the wait after batch 0 must wait for every stream, the other kernel's too";
}

// ---------------------------------------------------------------- the same code over pageable memory

class PageableMemory : public BatchTest {};

TEST_F(PageableMemory, ControlReturnsAfterTheH2DCopyEnds) {
    SL_STEP(use_usual_run(/*pinned=*/false));
    ASSERT_TRUE(found_every_batch());
    std::uint64_t overlap = 0;
    for (int b = 0; b < kBatches; ++b) {
        const BatchOnTimeline& batch = found_.batches[b];
        EXPECT_EQ(batch.h2d.host_memory, HostMemory::Pageable) << "copy straight from the batch buffers";
        EXPECT_GE(batch.queued_ns, batch.h2d.end_ns)
            << "batch " << b << ": control came back before the pageable H2D copy had ended";
        overlap +=
            intersection_length({{batch.queued_ns, batch.host_done_ns}},
                                {{batch.h2d.start_ns, batch.h2d.end_ns}, {batch.d2h.start_ns, batch.d2h.end_ns}});
    }
    report_measure("host work overlapping pageable copies", ms(overlap), "==", 0.0, "ms");
    EXPECT_EQ(overlap, 0U) << "host work and pageable copies ran at the same time";
}

TEST_F(PageableMemory, YourReportMatchesTheTimeline) {
    SL_STEP(use_usual_run(/*pinned=*/false));
    ASSERT_TRUE(found_every_batch());
    expect_report_matches_timeline();
}

/// Your prediction in prediction.txt (read by the test, never by your code): for
/// pinned and for pageable buffers, whether the device is still busy with a batch
/// when control comes back to the host, against what the timeline shows.
TEST_F(PageableMemory, YourPredictionMatchesTheTimeline) {
    const answers::AnswerFile file = answers::read_answer_file("prediction.txt");
    for (const bool pinned : {true, false}) {
        const std::string key = pinned ? "pinned" : "pageable";
        SCOPED_TRACE(key + " buffers");
        SL_STEP(use_usual_run(pinned));
        if (!found_every_batch()) {
            report_hint("finish Tasks 1 and 2 first: your prediction is scored against your batches' timeline");
        }
        ASSERT_TRUE(found_every_batch());
        std::string seen;
        for (int b = 0; b < kBatches; ++b) {
            seen += std::string(b == 0 ? "" : " ") + (found_.batches[b].device_busy_on_return() ? "busy" : "done");
        }
        std::string why;
        std::string said = file.answer(key, why);
        std::transform(said.begin(), said.end(), said.begin(), [](unsigned char c) { return std::tolower(c); });
        report_note("your prediction, " + key + " buffers",
                    (said.empty() ? std::string("none") : said) + "; the timeline, batch by batch: " + seen);
        if (said.empty()) {
            ADD_FAILURE() << why;
            continue;
        }
        if (said != "busy" && said != "done") {
            ADD_FAILURE() << file.path << ", `" << key << ":` must be `busy` or `done`, not `" << said << "`";
            continue;
        }
        for (int b = 0; b < kBatches; ++b) {
            const bool busy = found_.batches[b].device_busy_on_return();
            EXPECT_EQ(said == "busy", busy)
                << "batch " << b << ": you predicted the device " << said
                << " when control came back; the timeline shows it " << (busy ? "busy" : "done");
        }
    }
}

}  // namespace
