// Lab 03's graded tests: judges of the record that record_lab03.cpp left. The
// recording ran your copies once per scenario while CUPTI recorded what the GPU
// did: the kind of host memory each copy used, its bytes, its start and end, and
// the runtime calls. Bandwidth is bytes over the traced duration, and it is
// compared with copies the course made itself in the same recording, in the same
// process, on the same GPU. These tests read that record and never run your code.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "copy_scenarios.hpp"
#include "lab03.hpp"
#include "streamlab/answers.hpp"
#include "streamlab/bandwidth.hpp"
#include "streamlab/judging.hpp"
#include "streamlab/testing.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using lab03::HostBuffer;
using lab03::scenarios::kRepetitions;

/// Every real run of record_lab03.cpp copies and computes nothing it samples: no output to expect.
[[maybe_unused]] const bool kRunsDeclared = judge_records_of({});

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr OpKind kDirections[] = {OpKind::MemcpyH2D, OpKind::MemcpyD2H};

std::string size_text(std::size_t bytes) {
    return bytes >= kMiB ? std::to_string(bytes / kMiB) + " MiB" : std::to_string(bytes / 1024) + " KiB";
}

/// One small and one large copy size (64 MiB, less on a small GPU or host: the
/// record's set-up) and the recorded runs of your run_copies (record_lab03.cpp).
class CopyTest : public RecordTest {
protected:
    void SetUp() override {
        SL_STEP(RecordTest::SetUp());
        large_ = whole_number<std::size_t>(setup_value("large_bytes"), 0, 1e15);
        sizes_ = {whole_number<std::size_t>(setup_value("small_bytes"), 0, 1e15), large_};
        ASSERT_FALSE(HasFailure()) << "the record's set-up does not say which sizes were copied";
    }

    /// The timeline of the scenario `name` into `timeline`.
    void use_timeline(const std::string& name, Timeline& timeline) {
        const record::Scenario* scenario = nullptr;
        SL_STEP(use_scenario(name, scenario));
        timeline = *scenario->timeline;
    }

    /// The recorded run_copies with a buffer of `kind` into `timeline`.
    void use_copies(HostBuffer kind, Timeline& timeline) {
        use_timeline(lab03::scenarios::buffer_run(kind).scenario, timeline);
    }

    /// One H2D and one D2H copy per size and repetition, or a failure saying what the GPU ran instead.
    ::testing::AssertionResult made_every_copy(const Timeline& timeline) const {
        const std::vector<BandwidthPoint> points = best_bandwidths(timeline.ops);
        for (const OpKind direction : kDirections) {
            for (const std::size_t bytes : sizes_) {
                std::size_t copies = 0;
                for (const BandwidthPoint& point : points) {
                    if (point.direction == direction && point.bytes == bytes) {
                        copies += point.copies;
                    }
                }
                if (copies != kRepetitions) {
                    return ::testing::AssertionFailure()
                           << "expected " << kRepetitions << " " << op_base_name(direction) << " copies of "
                           << size_text(bytes) << ", the GPU ran " << copies << " (it ran " << timeline.ops.size()
                           << " operations in all)";
                }
            }
        }
        return ::testing::AssertionSuccess();
    }

    /// Checks that every copy of the recorded run_copies with `kind` used host memory of kind `expected`.
    void expect_copies_from(HostBuffer kind, HostMemory expected) {
        Timeline timeline;
        SL_STEP(use_copies(kind, timeline));
        ASSERT_TRUE(made_every_copy(timeline));
        std::size_t wrong = 0;
        std::size_t copies = 0;
        HostMemory seen = expected;
        for (const DeviceOp& op : timeline.ops) {
            if (op.kind != OpKind::MemcpyH2D && op.kind != OpKind::MemcpyD2H) {
                continue;
            }
            ++copies;
            if (op.host_memory != expected) {
                ++wrong;
                seen = op.host_memory;
            }
        }
        report_measure(std::string("copies from ") + to_string(expected) + " memory",
                       static_cast<double>(copies - wrong), "==", static_cast<double>(copies), "");
        EXPECT_EQ(wrong, 0U) << wrong << " of " << copies << " copies of the "
                             << lab03::scenarios::buffer_run(kind).memory << " buffer used " << to_string(seen)
                             << " host memory; all must be " << to_string(expected);
    }

    std::size_t large_ = 0;
    std::vector<std::size_t> sizes_;
};

// ---------------------------------------------------------------- tasks 1 and 2: the memory kinds

class PinnedCopies : public CopyTest {};

TEST_F(PinnedCopies, MallocHostCopiesArePinned) {
    expect_copies_from(HostBuffer::MallocHost, HostMemory::Pinned);
    if (HasFailure()) {
        report_hint("allocate_pinned: cudaMallocHost(&pinned, bytes)");
    }
}

TEST_F(PinnedCopies, HostAllocCopiesArePinned) {
    expect_copies_from(HostBuffer::HostAlloc, HostMemory::Pinned);
    if (HasFailure()) {
        report_hint("allocate_pinned_with_flags: cudaHostAlloc(&pinned, bytes, flags)");
    }
}

TEST_F(PinnedCopies, RegisteredCopiesArePinned) {
    expect_copies_from(HostBuffer::Registered, HostMemory::Pinned);
    if (HasFailure()) {
        report_hint("pin_in_place: cudaHostRegister(data, bytes, cudaHostRegisterDefault)");
    }
}

TEST_F(PinnedCopies, PageableCopiesArePageable) {
    expect_copies_from(HostBuffer::Pageable, HostMemory::Pageable);
    if (HasFailure()) {
        report_hint("copy_both_ways: one cudaMemcpy per copy, host to device first");
    }
}

// ---------------------------------------------------------------- nothing stays pinned

class PinnedAllocations : public CopyTest {};

TEST_F(PinnedAllocations, EveryAllocationIsFreed) {
    // run_copies with a cudaMallocHost buffer, then with a cudaHostAlloc buffer, one copy each way.
    Timeline timeline;
    SL_STEP(use_timeline(lab03::scenarios::kAllocations, timeline));
    const auto malloc_host = count_api_calls(timeline, {"cudaMallocHost"});
    const auto host_alloc = count_api_calls(timeline, {"cudaHostAlloc"});
    const auto freed = count_api_calls(timeline, {"cudaFreeHost"});
    report_measure("pinned allocations", static_cast<double>(malloc_host + host_alloc), ">=", 2, "");
    report_measure("cudaFreeHost calls", static_cast<double>(freed),
                   "==", static_cast<double>(malloc_host + host_alloc), "");
    EXPECT_GE(malloc_host, 1U) << "allocate_pinned must call cudaMallocHost";
    EXPECT_GE(host_alloc, 1U) << "allocate_pinned_with_flags must call cudaHostAlloc";
    EXPECT_EQ(freed, malloc_host + host_alloc) << "every pinned allocation must be released with cudaFreeHost";
}

TEST_F(PinnedAllocations, EveryRegistrationIsUndone) {
    // run_copies with ordinary memory pinned in place, one copy each way.
    Timeline timeline;
    SL_STEP(use_timeline(lab03::scenarios::kRegistration, timeline));
    const auto registered = count_api_calls(timeline, {"cudaHostRegister"});
    const auto unregistered = count_api_calls(timeline, {"cudaHostUnregister"});
    report_measure("cudaHostUnregister calls", static_cast<double>(unregistered), "==", static_cast<double>(registered),
                   "");
    EXPECT_GE(registered, 1U) << "pin_in_place must call cudaHostRegister";
    EXPECT_EQ(unregistered, registered) << "every cudaHostRegister needs its cudaHostUnregister";
}

// ---------------------------------------------------------------- task 3: bandwidth

/// Adds the course's own reference copies, from pinned and pageable memory it allocated itself.
class Bandwidth : public CopyTest {
protected:
    /// The reference: kRepetitions copies of the large size each way from each kind of memory, as recorded.
    void use_reference() {
        Timeline timeline;
        SL_STEP(use_timeline(lab03::scenarios::kReference, timeline));
        reference_ = best_bandwidths(timeline.ops);
    }

    /// The reference's bandwidth at the large size.
    [[nodiscard]] double reference(OpKind direction, HostMemory memory) const {
        return bandwidth_gbps(reference_, large_, direction, memory);
    }

    std::vector<BandwidthPoint> reference_;
};

TEST_F(Bandwidth, PinnedBeatsPageableAtLargeSizes) {
    SL_STEP(use_reference());
    // Grade only the directions in which this machine shows the effect at all.
    std::vector<OpKind> graded;
    std::string why_not;
    for (const OpKind direction : kDirections) {
        const double pinned = reference(direction, HostMemory::Pinned);
        const double pageable = reference(direction, HostMemory::Pageable);
        if (pinned >= 1.2 * pageable) {
            graded.push_back(direction);
        } else {
            why_not += std::string(" ") + op_base_name(direction) + ": pinned " + std::to_string(pinned) +
                       " GB/s, pageable " + std::to_string(pageable) + " GB/s;";
        }
    }
    if (graded.empty()) {
        SL_SKIP_DEVICE_CANNOT_SHOW()
            << "on this machine pageable copies are about as fast as pinned ones, so the difference "
               "cannot be graded (the course's own copies of "
            << size_text(large_) << ":" << why_not << ")";
    }
    Timeline pageable_run;
    Timeline pinned_run;
    SL_STEP(use_copies(HostBuffer::Pageable, pageable_run));
    SL_STEP(use_copies(HostBuffer::MallocHost, pinned_run));
    const auto pageable_points = best_bandwidths(pageable_run.ops);
    const auto pinned_points = best_bandwidths(pinned_run.ops);
    for (const OpKind direction : graded) {
        const double pinned = bandwidth_gbps(pinned_points, large_, direction, HostMemory::Pinned);
        const double pageable = bandwidth_gbps(pageable_points, large_, direction, HostMemory::Pageable);
        const std::string name = std::string(op_base_name(direction)) + " at " + size_text(large_);
        report_measure(name + ", pinned / pageable", pageable > 0 ? pinned / pageable : 0.0, ">", 1.0, "");
        EXPECT_GT(pageable, 0.0) << "no pageable " << name << " copy was recorded";
        EXPECT_GT(pinned, pageable) << name << ": your pinned copies ran at " << pinned
                                    << " GB/s, your pageable ones at " << pageable << " GB/s";
    }
    if (HasFailure()) {
        report_hint("the cudaMallocHost buffer's copies must be pinned (see PinnedCopies)");
    }
}

TEST_F(Bandwidth, PinnedReachesTheReference) {
    SL_STEP(use_reference());
    Timeline pinned_run;
    SL_STEP(use_copies(HostBuffer::MallocHost, pinned_run));
    const auto points = best_bandwidths(pinned_run.ops);
    for (const OpKind direction : kDirections) {
        const double mine = bandwidth_gbps(points, large_, direction, HostMemory::Pinned);
        const double theirs = reference(direction, HostMemory::Pinned);
        const std::string name = std::string(op_base_name(direction)) + " pinned at " + size_text(large_);
        report_measure(name + ", yours / reference", theirs > 0 ? mine / theirs : 0.0, ">=", 0.8, "");
        ASSERT_GT(theirs, 0.0) << "the reference copies were not recorded";
        EXPECT_GE(mine, 0.8 * theirs) << name << ": yours ran at " << mine << " GB/s, the course's own copies at "
                                      << theirs << " GB/s";
    }
    if (HasFailure()) {
        report_hint("copy straight from the cudaMallocHost buffer, one cudaMemcpy per copy");
    }
}

// ---------------------------------------------------------------- the prediction

/// Which of two bandwidths is faster, in the words of prediction.txt: within 10% is `same`.
std::string compared(double bandwidth, double other, const char* faster, const char* slower) {
    if (bandwidth > 1.1 * other) {
        return faster;
    }
    if (other > 1.1 * bandwidth) {
        return slower;
    }
    return "same";
}

/// Your prediction in prediction.txt (read by the test, never by your code), against
/// the H2D bandwidths of your own copies at the large size: pageable against
/// cudaMallocHost memory, and registered against cudaMallocHost memory.
TEST_F(Bandwidth, YourPredictionMatchesTheTimeline) {
    const answers::AnswerFile file = answers::read_answer_file("prediction.txt");
    Timeline pageable_run, pinned_run, registered_run;
    SL_STEP(use_copies(HostBuffer::Pageable, pageable_run));
    SL_STEP(use_copies(HostBuffer::MallocHost, pinned_run));
    SL_STEP(use_copies(HostBuffer::Registered, registered_run));
    for (const Timeline* run : {&pageable_run, &pinned_run, &registered_run}) {
        if (!made_every_copy(*run)) {
            report_hint("finish Tasks 1 to 3 first: your prediction is scored against your copies");
        }
        ASSERT_TRUE(made_every_copy(*run));
    }
    const auto h2d = [&](const Timeline& run) {
        return bandwidth_gbps(best_bandwidths(run.ops), large_, OpKind::MemcpyH2D, run.ops.front().host_memory);
    };
    const double pageable = h2d(pageable_run), pinned = h2d(pinned_run), registered = h2d(registered_run);
    struct Question {
        const char* key;
        std::string seen;
        std::string numbers;
    };
    const std::string at = " GB/s, H2D at " + size_text(large_);
    const Question questions[] = {
        {"large", compared(pinned, pageable, "pinned", "pageable"),
         "cudaMallocHost " + std::to_string(pinned) + ", pageable " + std::to_string(pageable) + at},
        {"registered", compared(registered, pinned, "faster", "slower"),
         "cudaHostRegister " + std::to_string(registered) + ", cudaMallocHost " + std::to_string(pinned) + at},
    };
    for (const Question& question : questions) {
        std::string why;
        const std::string said = file.answer(question.key, why);
        report_note(std::string("your prediction, ") + question.key, (said.empty() ? std::string("none") : said) +
                                                                         "; the timeline: " + question.seen + " (" +
                                                                         question.numbers + ")");
        EXPECT_FALSE(said.empty()) << why;
        if (!said.empty()) {
            EXPECT_EQ(said, question.seen) << "`" << question.key << ":` in " << file.path;
        }
    }
}

}  // namespace
