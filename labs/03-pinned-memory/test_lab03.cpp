// Lab 03's graded tests. Your copies run while CUPTI records what the GPU did:
// the kind of host memory each copy used, and its start and end. Bandwidth is
// bytes over the traced duration, and it is compared with copies this test
// makes itself, in the same process, on the same GPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "lab03.hpp"
#include "streamlab/answers.hpp"
#include "streamlab/bandwidth.hpp"
#include "streamlab/handles.hpp"
#include "streamlab/testing.hpp"
#include "streamlab/tracer.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::grading;
using lab03::HostBuffer;

constexpr std::size_t kMiB = std::size_t{1} << 20;
constexpr OpKind kDirections[] = {OpKind::MemcpyH2D, OpKind::MemcpyD2H};

std::string size_text(std::size_t bytes) {
    return bytes >= kMiB ? std::to_string(bytes / kMiB) + " MiB" : std::to_string(bytes / 1024) + " KiB";
}

/// One small and one large copy size, a device buffer for them, and your run_copies under the tracer.
class CopyTest : public TimelineTest {
protected:
    static constexpr int kRepetitions = 3;

    void SetUp() override {
        SL_STEP(TimelineTest::SetUp());
        // 64 MiB is past the size where bandwidth levels off, and small enough for any GPU and host.
        large_ = largest_copy_bytes(64 * kMiB, facts_.total_memory_bytes, available_host_memory_bytes());
        sizes_ = {std::max<std::size_t>(4096, large_ / 64), large_};
        device_ = DeviceBuffer<unsigned char>(large_);
    }

    /// Records run_copies with a buffer of `kind` into `timeline`.
    void record(HostBuffer kind, Timeline& timeline) {
        SL_RECORD_TIMELINE(timeline, std::string("lab03 run_copies, ") + lab03::to_string(kind),
                           [&] { lab03::run_copies(kind, sizes_, kRepetitions, device_.data()); });
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

    /// Runs run_copies with `kind` and checks that every copy's host memory was `expected`.
    void expect_copies_from(HostBuffer kind, HostMemory expected) {
        Timeline timeline;
        SL_STEP(record(kind, timeline));
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
        EXPECT_EQ(wrong, 0U) << wrong << " of " << copies << " copies of the " << lab03::to_string(kind)
                             << " buffer used " << to_string(seen) << " host memory; all must be "
                             << to_string(expected);
    }

    std::size_t large_ = 0;
    std::vector<std::size_t> sizes_;
    DeviceBuffer<unsigned char> device_;
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
    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "lab03 run_copies, cudaMallocHost and cudaHostAlloc", [&] {
        lab03::run_copies(HostBuffer::MallocHost, sizes_, 1, device_.data());
        lab03::run_copies(HostBuffer::HostAlloc, sizes_, 1, device_.data());
    });
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
    Timeline timeline;
    SL_RECORD_TIMELINE(timeline, "lab03 run_copies, cudaHostRegister",
                       [&] { lab03::run_copies(HostBuffer::Registered, sizes_, 1, device_.data()); });
    const auto registered = count_api_calls(timeline, {"cudaHostRegister"});
    const auto unregistered = count_api_calls(timeline, {"cudaHostUnregister"});
    report_measure("cudaHostUnregister calls", static_cast<double>(unregistered), "==", static_cast<double>(registered),
                   "");
    EXPECT_GE(registered, 1U) << "pin_in_place must call cudaHostRegister";
    EXPECT_EQ(unregistered, registered) << "every cudaHostRegister needs its cudaHostUnregister";
}

// ---------------------------------------------------------------- task 3: bandwidth

/// Adds this test's own reference copies, from pinned and pageable memory it allocates itself.
class Bandwidth : public CopyTest {
protected:
    /// Measures the reference: kRepetitions copies of the large size each way from each kind of memory.
    void measure_reference() {
        PinnedBuffer<unsigned char> pinned(large_);
        std::vector<unsigned char> pageable(large_, 1);
        std::memset(pinned.data(), 1, large_);
        Timeline timeline;
        SL_RECORD_TIMELINE(timeline, "lab03 reference copies", [&] {
            for (void* host : {static_cast<void*>(pinned.data()), static_cast<void*>(pageable.data())}) {
                for (int i = 0; i < kRepetitions; ++i) {
                    SL_CHECK(cudaMemcpy(device_.data(), host, large_, cudaMemcpyHostToDevice));
                }
                for (int i = 0; i < kRepetitions; ++i) {
                    SL_CHECK(cudaMemcpy(host, device_.data(), large_, cudaMemcpyDeviceToHost));
                }
            }
        });
        reference_ = best_bandwidths(timeline.ops);
    }

    /// The reference's bandwidth at the large size.
    [[nodiscard]] double reference(OpKind direction, HostMemory memory) const {
        return bandwidth_gbps(reference_, large_, direction, memory);
    }

    std::vector<BandwidthPoint> reference_;
};

TEST_F(Bandwidth, PinnedBeatsPageableAtLargeSizes) {
    SL_STEP(measure_reference());
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
               "cannot be graded (the test's own copies of "
            << size_text(large_) << ":" << why_not << ")";
    }
    Timeline pageable_run;
    Timeline pinned_run;
    SL_STEP(record(HostBuffer::Pageable, pageable_run));
    SL_STEP(record(HostBuffer::MallocHost, pinned_run));
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
    SL_STEP(measure_reference());
    Timeline pinned_run;
    SL_STEP(record(HostBuffer::MallocHost, pinned_run));
    const auto points = best_bandwidths(pinned_run.ops);
    for (const OpKind direction : kDirections) {
        const double mine = bandwidth_gbps(points, large_, direction, HostMemory::Pinned);
        const double theirs = reference(direction, HostMemory::Pinned);
        const std::string name = std::string(op_base_name(direction)) + " pinned at " + size_text(large_);
        report_measure(name + ", yours / reference", theirs > 0 ? mine / theirs : 0.0, ">=", 0.8, "");
        ASSERT_GT(theirs, 0.0) << "the reference copies were not recorded";
        EXPECT_GE(mine, 0.8 * theirs) << name << ": yours ran at " << mine << " GB/s, the test's own copies at "
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
    SL_STEP(record(HostBuffer::Pageable, pageable_run));
    record(HostBuffer::MallocHost, pinned_run);
    record(HostBuffer::Registered, registered_run);
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
