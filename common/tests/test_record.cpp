// The record a lab's recording run leaves for its judges (record.hpp): what is
// written reads back the same, and a record that is cut, forged or inconsistent
// is refused with a reason, never judged.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "correct_output.hpp"
#include "op_builder.hpp"
#include "streamlab/record.hpp"
#include "streamlab/workload.hpp"

namespace {

using namespace streamlab;
using namespace streamlab::record;
using streamlab::testing_ops::correct_output_sample;
using streamlab::testing_ops::OpBuilder;

constexpr std::uint32_t kSeed = 1234;
constexpr std::uint64_t kElements = 10000;
constexpr int kIterations = 20;

/// What a correct run of kElements elements, split into `chunks`, writes at the sampled elements.
OutputSample correct_output(int chunks) {
    return correct_output_sample(kElements, kIterations, chunks, kSeed);
}

/// A recorded pipeline scenario of three chunks: three copies in, three kernels, three copies out.
Scenario pipeline_scenario() {
    Scenario scenario;
    scenario.name = "pipeline";
    Timeline timeline;
    timeline.device.name = "Made-up GPU";
    timeline.program = "made-up run";
    const std::uint64_t chunk_bytes = kElements / 3 * sizeof(float);
    for (std::uint32_t i = 0; i < 3; ++i) {
        const std::uint64_t t = 1000 * i;
        timeline.ops.push_back(
            OpBuilder(OpKind::MemcpyH2D).stream(13 + i).span(t, t + 900).bytes(chunk_bytes).host(HostMemory::Pinned));
        timeline.ops.push_back(
            OpBuilder(OpKind::Kernel).name("workload_kernel").stream(13 + i).span(t + 950, t + 1900));
        timeline.ops.push_back(OpBuilder(OpKind::MemcpyD2H)
                                   .stream(13 + i)
                                   .span(t + 1950, t + 2800)
                                   .bytes(chunk_bytes)
                                   .host(HostMemory::Pinned));
    }
    std::sort(timeline.ops.begin(), timeline.ops.end(),
              [](const DeviceOp& a, const DeviceOp& b) { return a.start_ns < b.start_ns; });
    timeline.marks = {{kRecordingEndsMark, 5000}};
    timeline.stream_calls = {{OrderingCall::EventRecord, "cudaEventRecord", 13, 77, 10},
                             {OrderingCall::Work, "cudaMemcpyAsync", 13, 0, 20}};
    scenario.timeline = timeline;
    scenario.values = {{"returned_ms", 0.0048}};
    scenario.output = correct_output(3);
    return scenario;
}

/// A whole record around `scenario`, as the harness writes it.
std::string record_text(const Scenario& scenario) {
    DeviceFacts device;
    device.name = "Made-up GPU";
    device.copy_engines = 2;
    return header_line("05", "lab05_yours_record", "2026-12-04T00:00:00Z", kSeed) + "\n" +
           setup_line(device, {{"n", static_cast<double>(kElements)}, {"iterations", kIterations}}) + "\n" +
           started_line(scenario.name) + "\n" + scenario_line(scenario) + "\n" + end_line("complete") + "\n";
}

/// The reason parse_record gives for `text`, or "" when it accepts it.
std::string refusal(const std::string& text) {
    try {
        (void)parse_record(text);
    } catch (const RecordFormatError& error) {
        return error.what();
    }
    return "";
}

TEST(Record, ReadsBackWhatWasWritten) {
    const Scenario written = pipeline_scenario();
    const Record record = parse_record(record_text(written));
    EXPECT_EQ(record.lab, "05");
    EXPECT_EQ(record.seed, kSeed);
    EXPECT_TRUE(record.gpu);
    EXPECT_EQ(record.device.name, "Made-up GPU");
    EXPECT_EQ(record.device.copy_engines, 2);
    EXPECT_EQ(record.setup.at("iterations"), kIterations);
    EXPECT_EQ(record.ended, "complete");
    const Scenario* read = record.find("pipeline");
    ASSERT_NE(read, nullptr);
    EXPECT_EQ(read->outcome, Outcome::Recorded);
    ASSERT_TRUE(read->timeline.has_value());
    EXPECT_EQ(read->timeline->ops.size(), 9U);
    ASSERT_EQ(read->timeline->stream_calls.size(), 2U);
    EXPECT_EQ(read->timeline->stream_calls[0].call, OrderingCall::EventRecord);
    EXPECT_EQ(read->timeline->stream_calls[0].event, 77U);
    EXPECT_DOUBLE_EQ(read->value("returned_ms"), 0.0048);
    ASSERT_TRUE(read->output.has_value());
    EXPECT_EQ(read->output->value, written.output->value);
    EXPECT_TRUE(check_output_sample(*read->output).ok);
    EXPECT_EQ(record.find("chunks_5"), nullptr);
}

TEST(Record, AReturnedValueThatIsNotANumberIsReadBackAsNaNAndRefusesNothingElse) {
    Scenario written = pipeline_scenario();
    written.values["returned_ms"] = std::numeric_limits<double>::quiet_NaN();
    written.values["event_ms"] = std::numeric_limits<double>::infinity();
    const std::string text = record_text(written);
    EXPECT_NE(text.find("\"returned_ms\":null"), std::string::npos) << text;
    const Record record = parse_record(text);
    EXPECT_TRUE(std::isnan(record.find("pipeline")->value("returned_ms")));
    EXPECT_TRUE(std::isnan(record.find("pipeline")->value("event_ms")));
    EXPECT_TRUE(record.find("pipeline")->timeline.has_value());  // the rest of the scenario stands
    // The set-up's values are the course's own: one that is not a number refuses the record.
    const std::string setup_not_a_number =
        header_line("05", "p", "d", kSeed) + "\n" +
        setup_line(DeviceFacts{}, {{"iterations", std::numeric_limits<double>::quiet_NaN()}}) + "\n";
    EXPECT_NE(refusal(setup_not_a_number).find("value \"iterations\" is not a finite number"), std::string::npos)
        << refusal(setup_not_a_number);
}

TEST(Record, ScenariosThatWereNotRecordedKeepTheirReason) {
    Scenario crashed{"pipeline", Outcome::Crashed, "the recording process was killed by signal 11", {}, {}, {}};
    const Record record = parse_record(record_text(crashed));
    ASSERT_NE(record.find("pipeline"), nullptr);
    EXPECT_EQ(record.find("pipeline")->outcome, Outcome::Crashed);
    EXPECT_EQ(record.find("pipeline")->message, "the recording process was killed by signal 11");
    crashed.message = "";
    EXPECT_NE(refusal(record_text(crashed)).find("does not say why"), std::string::npos);
}

TEST(Record, SampleHoldsEveryChunksEdgesAndFailsAWrongValue) {
    const std::vector<std::uint64_t> indices = sample_indices(kElements, 5, kSeed);
    for (int c = 0; c < 5; ++c) {
        const ChunkRange range = chunk_range(kElements, 5, c);
        EXPECT_TRUE(std::binary_search(indices.begin(), indices.end(), range.offset));
        EXPECT_TRUE(std::binary_search(indices.begin(), indices.end(), range.offset + range.count - 1));
    }
    EXPECT_TRUE(std::is_sorted(indices.begin(), indices.end()));
    OutputSample sample = correct_output(5);
    EXPECT_TRUE(check_output_sample(sample).ok);
    sample.value[3] = std::numeric_limits<float>::quiet_NaN();  // an element nobody wrote
    const ResultCheck check = check_output_sample(sample);
    EXPECT_FALSE(check.ok);
    EXPECT_EQ(check.first_bad, sample.index[3]);
}

TEST(Record, AnUntracedScenarioReadsBackWithItsValuesAndNoOps) {
    DeviceFacts device;
    device.name = "Made-up GPU";
    Scenario scenario;
    scenario.name = "pipeline";
    scenario.timeline = untraced_timeline(device, "a run no tracer survives");
    scenario.values = {{"error", 700}};
    const Record read = parse_record(record_text(scenario));
    const Scenario& back = read.scenarios.at(0);
    EXPECT_EQ(back.outcome, Outcome::Recorded);
    EXPECT_TRUE(back.timeline->ops.empty());
    EXPECT_EQ(back.value("error"), 700);
}

TEST(Record, RefusesATruncatedRecord) {
    const std::string text = record_text(pipeline_scenario());
    EXPECT_NE(refusal(text.substr(0, text.size() / 2)), "");
    const std::string without_end = text.substr(0, text.rfind("{\"end\""));
    EXPECT_NE(refusal(without_end).find("truncated"), std::string::npos) << refusal(without_end);
    EXPECT_NE(refusal(""), "");
}

TEST(Record, RefusesCopiesLargerThanTheRunsBuffers) {
    Scenario scenario = pipeline_scenario();
    scenario.timeline->ops.front().bytes = kElements * sizeof(float) + 4;
    EXPECT_NE(refusal(record_text(scenario)).find("more than the run's buffers hold"), std::string::npos)
        << refusal(record_text(scenario));
}

TEST(Record, RefusesOpsOutOfOrderOrAfterTheRecordingEnded) {
    Scenario late = pipeline_scenario();
    late.timeline->marks = {{kRecordingEndsMark, 2000}};
    EXPECT_NE(refusal(record_text(late)).find("ends after the recording ended"), std::string::npos)
        << refusal(record_text(late));
    Scenario no_window = pipeline_scenario();
    no_window.timeline->marks.clear();
    EXPECT_NE(refusal(record_text(no_window)).find("no \"recording ends\" mark"), std::string::npos);
    Scenario calls = pipeline_scenario();
    std::swap(calls.timeline->stream_calls[0], calls.timeline->stream_calls[1]);
    EXPECT_NE(refusal(record_text(calls)).find("not in the order they were made"), std::string::npos);
}

TEST(Record, RefusesAnOutputThatIsNotTheCoursesSample) {
    Scenario other_seed = pipeline_scenario();
    other_seed.output->seed = kSeed + 1;
    EXPECT_NE(refusal(record_text(other_seed)).find("seed"), std::string::npos);
    Scenario thin = pipeline_scenario();
    thin.output->index.resize(10);
    thin.output->value.resize(10);
    EXPECT_NE(refusal(record_text(thin)).find("not the course's sample"), std::string::npos);
}

TEST(Record, RefusesAnEmptyOutputSample) {
    // n = 0 has an empty sample, which every reference matches: no run writes nothing.
    Scenario empty = pipeline_scenario();
    empty.output->n = 0;
    empty.output->index.clear();
    empty.output->value.clear();
    EXPECT_NE(refusal(record_text(empty)).find("its output has no elements"), std::string::npos)
        << refusal(record_text(empty));
}

TEST(Record, RefusesAnOutputOfMoreIterationsThanAnyRun) {
    // A judge recomputes each sampled element with the sample's iterations, within a tolerance that grows
    // with them: 2^24 would take it minutes.
    Scenario huge = pipeline_scenario();
    huge.output->iterations = 1 << 24;
    EXPECT_NE(refusal(record_text(huge)).find("\"iterations\" is not a whole number from 0 to 1048576"),
              std::string::npos)
        << refusal(record_text(huge));
}

TEST(Record, RefusesAnOutputValueNoFloatHolds) {
    Scenario scenario = pipeline_scenario();
    std::string text = record_text(scenario);
    const std::string values = "\"value\":[";
    const std::size_t first = text.find(values) + values.size();
    text.replace(first, text.find(',', first) - first, "1e308");
    EXPECT_NE(refusal(text).find("not a float that a run can write"), std::string::npos) << refusal(text);
}

TEST(Record, RefusesACountOfCallsNoDoubleHolds) {
    Scenario scenario = pipeline_scenario();
    scenario.timeline->api_calls_by_thread = {{4711, std::numeric_limits<std::uint64_t>::max()}};
    EXPECT_NE(refusal(record_text(scenario)).find("not a thread id and a count"), std::string::npos)
        << refusal(record_text(scenario));
    scenario.timeline->api_calls_by_thread = {{4711, std::uint64_t{1} << 53}};
    EXPECT_EQ(refusal(record_text(scenario)), "");
}

TEST(Record, AJudgeReadsAnyNumberOfTheRecordAsAWholeNumberInItsRange) {
    // A forged record's values may be negative, huge or null (NaN): each becomes a number in the range the
    // judge gives, where a plain cast to an integer would be undefined behaviour.
    EXPECT_EQ(whole_number<std::size_t>(67108864.0, 0, 1e15), 67108864U);
    EXPECT_EQ(whole_number<std::size_t>(-1.0, 0, 1e15), 0U);
    EXPECT_EQ(whole_number<std::size_t>(1e308, 0, 1e15), std::size_t{1000000000000000});
    EXPECT_EQ(whole_number<int>(std::numeric_limits<double>::quiet_NaN(), -1, 1e9), -1);
    EXPECT_EQ(whole_number<int>(-1e308, -1, 1e9), -1);
    EXPECT_EQ(whole_number<int>(2.0, -1, 1e9), 2);
}

TEST(Record, RefusesAStringLongerThanAnyRecordsWithoutRepeatingIt) {
    // Every judge repeats the reason and the scenario's name: a name of 20 MiB had one judge write 900 MB.
    const std::string name(std::size_t{1} << 20, 's');
    Scenario scenario = pipeline_scenario();
    scenario.name = name;
    const std::string reason = refusal(record_text(scenario));
    EXPECT_NE(reason.find("characters long, more than any record's"), std::string::npos) << reason.substr(0, 200);
    EXPECT_LT(reason.size(), 2000U);
    // An op's label (the trace's, which may be long) is quoted in a refusal cut short.
    Scenario late = pipeline_scenario();
    for (DeviceOp& op : late.timeline->ops) {
        op.label = name;
    }
    late.timeline->marks = {{kRecordingEndsMark, 2000}};
    const std::string cut = refusal(record_text(late));
    EXPECT_NE(cut.find("an op ("), std::string::npos) << cut.substr(0, 200);
    EXPECT_LT(cut.size(), 2000U);
}

TEST(Record, WritesAFailuresLongMessageCutShortSoTheRecordStaysReadable) {
    // A student's exception may say anything at any length: only its scenario fails, not the whole record.
    Scenario failed;
    failed.name = "pipeline";
    failed.outcome = Outcome::Failed;
    failed.message = std::string(std::size_t{1} << 20, 'm');
    const Record record = parse_record(record_text(failed));
    const std::string& message = record.find("pipeline")->message;
    EXPECT_LT(message.size(), 5000U);
    EXPECT_EQ(message.substr(0, 100), failed.message.substr(0, 100));
    EXPECT_NE(message.find("(cut short)"), std::string::npos);
}

TEST(Record, CarriesEachThreadsRuntimeCallsWhenGiven) {
    Scenario scenario = pipeline_scenario();
    const std::string without = record_text(scenario);
    EXPECT_EQ(without.find("api_calls_by_thread"), std::string::npos) << "written only when there are any";
    EXPECT_TRUE(parse_record(without).find("pipeline")->timeline->api_calls_by_thread.empty());
    // A host function's thread beside the thread that queued it; ids as large as a 64-bit id gets.
    scenario.timeline->api_calls_by_thread = {{4711, 52}, {4790, 3}, {std::uint64_t{1} << 62, 1}};
    const Record record = parse_record(record_text(scenario));
    EXPECT_EQ(record.find("pipeline")->timeline->api_calls_by_thread, scenario.timeline->api_calls_by_thread);
    std::string text = record_text(scenario);
    text.replace(text.find("\"4711\""), std::string("\"4711\"").size(), "\"main\"");
    EXPECT_NE(refusal(text).find("not a thread id and a count"), std::string::npos) << refusal(text);
    text = record_text(scenario);
    const std::string count = "\"4711\":52";
    text.replace(text.find(count), count.size(), "\"4711\":-5");
    EXPECT_NE(refusal(text).find("not a thread id and a count"), std::string::npos) << refusal(text);
}

TEST(Record, RefusesLinesOutOfPlace) {
    const Scenario scenario = pipeline_scenario();
    const std::string header = header_line("05", "p", "d", kSeed) + "\n";
    DeviceFacts device;
    const std::string setup = setup_line(device, {}) + "\n";
    // A scenario's last line with no start, a second recording of one scenario, a line after the end.
    EXPECT_NE(refusal(header + setup + scenario_line(scenario) + "\n" + end_line("complete")).find("not started"),
              std::string::npos);
    const std::string once = started_line("pipeline") + "\n" + scenario_line(scenario) + "\n";
    EXPECT_NE(refusal(header + setup + once + once + end_line("complete")).find("twice"), std::string::npos);
    EXPECT_NE(refusal(record_text(scenario) + end_line("complete")).find("after the record's end"), std::string::npos);
    EXPECT_NE(refusal("{\"format\": \"streamlab-trace\"}\n").find("not a streamlab-record file"), std::string::npos);
}

/// What a harness observes of a run of two starts: a crash in the first, the second to its end.
HarnessObservations two_starts_observed() {
    HarnessObservations observed;
    observed.starts = {{"killed by signal 11 (Segmentation fault)", false}, {"exit status 0", true}};
    observed.scenario_wall_ms = {{"pipeline", 812.5}, {"serial", 0.25}};
    observed.gpus = {"Made-up GPU", "Other made-up GPU"};
    observed.gpu_reading = "";
    return observed;
}

/// record_text's record with `header` and `end` in place of its own first and last lines.
std::string with_header_and_end(const std::string& header, const std::string& end) {
    std::string text = record_text(pipeline_scenario());
    text = header + text.substr(text.find('\n'));
    text.erase(text.rfind('\n', text.size() - 2) + 1);
    return text + end + "\n";
}

TEST(Record, ReadsBackTheJobSaltAndWhatTheHarnessObserved) {
    const HarnessObservations written = two_starts_observed();
    const Record record =
        parse_record(with_header_and_end(header_line("05", "p", "d", kSeed, 2049), end_line("complete", written)));
    EXPECT_EQ(record.job_salt, std::optional<std::uint32_t>(2049));
    ASSERT_TRUE(record.observed.has_value());
    ASSERT_EQ(record.observed->starts.size(), 2U);
    EXPECT_EQ(record.observed->starts[0].ended, "killed by signal 11 (Segmentation fault)");
    EXPECT_FALSE(record.observed->starts[0].finished);
    EXPECT_EQ(record.observed->starts[1].ended, "exit status 0");
    EXPECT_TRUE(record.observed->starts[1].finished);
    EXPECT_EQ(record.observed->scenario_wall_ms, written.scenario_wall_ms);
    EXPECT_EQ(record.observed->gpus, written.gpus);
    EXPECT_EQ(record.observed->gpu_reading, "");
    // A harness that could not read the GPUs says why.
    HarnessObservations unread = written;
    unread.gpus.clear();
    unread.gpu_reading = "no NVML: libnvidia-ml.so.1 not found";
    const Record without_gpus =
        parse_record(with_header_and_end(header_line("05", "p", "d", kSeed, 1), end_line("complete", unread)));
    EXPECT_TRUE(without_gpus.observed->gpus.empty());
    EXPECT_EQ(without_gpus.observed->gpu_reading, "no NVML: libnvidia-ml.so.1 not found");
}

TEST(Record, ARecordMadeBeforeTheJobSaltAndTheObservationsHasNeither) {
    const Record record = parse_record(record_text(pipeline_scenario()));
    EXPECT_FALSE(record.job_salt.has_value());
    EXPECT_FALSE(record.observed.has_value());
    EXPECT_EQ(record_text(pipeline_scenario()).find("job_salt"), std::string::npos);
    EXPECT_EQ(record_text(pipeline_scenario()).find("observed"), std::string::npos);
}

TEST(Record, ARecordOfTheSimulatedGpuSaysSo) {
    const std::string end = end_line("complete", two_starts_observed());
    EXPECT_TRUE(parse_record(with_header_and_end(header_line("05", "p", "d", kSeed, 7, true), end)).simulated);
    const std::string real = header_line("05", "p", "d", kSeed, 7);
    EXPECT_EQ(real.find("simulated"), std::string::npos);  // a real build's harness writes no such key
    EXPECT_FALSE(parse_record(with_header_and_end(real, end)).simulated);
    std::string header = header_line("05", "p", "d", kSeed, 7, true);
    header.replace(header.find("true"), 4, "\"yes\"");
    EXPECT_NE(refusal(with_header_and_end(header, end)).find("\"simulated\" is not true or false"), std::string::npos);
}

TEST(Record, RefusesAJobSaltOutOfRange) {
    const std::string end = end_line("complete", two_starts_observed());
    for (const std::string salt : {"0", "4096", "-3", "12.5", "\"7\""}) {
        std::string header = header_line("05", "p", "d", kSeed, 7);
        header.replace(header.find("\"job_salt\":7"), std::string("\"job_salt\":7").size(), "\"job_salt\":" + salt);
        const std::string why = refusal(with_header_and_end(header, end));
        EXPECT_NE(why.find("\"job_salt\" is not a whole number from 1 to 4095"), std::string::npos)
            << salt << ": " << why;
    }
}

TEST(Record, RefusesAMalformedObservedBlockNamingIt) {
    const std::string header = header_line("05", "p", "d", kSeed, 7);
    const std::string good = end_line("complete", two_starts_observed());
    // Each edit of the written end line, its own case.
    const std::vector<std::pair<std::string, std::string>> edits = {
        {"\"finished\":true", "\"finished\":1"},           // not a boolean
        {"\"ended\":\"exit status 0\"", "\"ended\":0"},    // not a string
        {"\"pipeline\":812.5", "\"pipeline\":-1.0"},       // a negative wall time
        {"\"pipeline\":812.5", "\"pipeline\":\"812\""},    // a wall time that is not a number
        {"\"gpus\":[\"Made-up GPU\"", "\"gpus\":[7"},      // a GPU's name that is not a string
        {"\"gpu_reading\":\"\"", "\"gpu_reading\":null"},  // not a string
        {",\"gpu_reading\":\"\"", ""},                     // a field missing
    };
    for (const auto& [from, to] : edits) {
        std::string end = good;
        ASSERT_NE(end.find(from), std::string::npos) << from;
        end.replace(end.find(from), from.size(), to);
        const std::string why = refusal(with_header_and_end(header, end));
        EXPECT_NE(why.find("observed"), std::string::npos) << to << ": " << why;
    }
    const std::string not_an_object = with_header_and_end(header, "{\"end\":\"complete\",\"observed\":[]}");
    EXPECT_NE(refusal(not_an_object).find("its \"observed\" is malformed: not an object"), std::string::npos)
        << refusal(not_an_object);
    const std::string starts_not_an_array = with_header_and_end(
        header,
        "{\"end\":\"complete\",\"observed\":{\"starts\":{},\"scenario_wall_ms\":{},\"gpus\":[],\"gpu_reading\":\"\"}}");
    EXPECT_NE(refusal(starts_not_an_array).find("its \"observed\" is malformed: \"starts\" is not an array"),
              std::string::npos)
        << refusal(starts_not_an_array);
}

TEST(Record, LinesThatImitateTheHarnessesFromInsideTheRecordAreRefused) {
    // What the recording program sends sits between the harness's header and its end line:
    // a second header, or an end line of its own with observations, cannot stand in for them.
    const std::string forged_end = end_line("complete", two_starts_observed());
    std::string text = record_text(pipeline_scenario());
    const std::string harness_end = text.substr(text.rfind('\n', text.size() - 2) + 1);
    const std::string body = text.substr(0, text.size() - harness_end.size());
    EXPECT_NE(refusal(body + forged_end + "\n" + harness_end).find("a line after the record's end"), std::string::npos);
    const std::string second_header = header_line("05", "p", "d", kSeed, 7) + "\n";
    const std::string after_setup = body.substr(0, body.find("\"started\"") - 1);
    EXPECT_NE(refusal(after_setup + second_header + body.substr(after_setup.size()) + harness_end)
                  .find("none of header, setup, started, scenario or end"),
              std::string::npos);
}

TEST(Record, DiscountsOnlyTheRecordingsClosingSynchronize) {
    constexpr std::uint64_t kRecordingThread = 7, kOtherThread = 9;
    Timeline timeline;
    timeline.api_calls = {{"cudaDeviceSynchronize", 2}, {"cudaStreamQuery", 1}};
    timeline.api_calls_by_thread = {{kRecordingThread, 3}, {kOtherThread, 1}};
    timeline.stream_calls = {{OrderingCall::DeviceSynchronize, "cudaDeviceSynchronize", 0, 0, 10},
                             {OrderingCall::StreamQuery, "cudaStreamQuery", 13, 0, 20},
                             {OrderingCall::DeviceSynchronize, "cudaDeviceSynchronize", 0, 0, 30}};
    discount_closing_synchronize(timeline, kRecordingThread);  // the code's own call stays
    EXPECT_EQ(timeline.api_calls.at("cudaDeviceSynchronize"), 1U);
    EXPECT_EQ(timeline.api_calls_by_thread.at(kRecordingThread), 2U);
    EXPECT_EQ(timeline.api_calls_by_thread.at(kOtherThread), 1U);
    ASSERT_EQ(timeline.stream_calls.size(), 2U);
    EXPECT_EQ(timeline.stream_calls[0].time_ns, 10U);
    EXPECT_EQ(timeline.stream_calls[1].call, OrderingCall::StreamQuery);

    Timeline never_synchronizes;  // code that never synchronizes the device: only the course's call was counted
    never_synchronizes.api_calls = {{"cudaDeviceSynchronize", 1}};
    never_synchronizes.stream_calls = {{OrderingCall::StreamQuery, "cudaStreamQuery", 13, 0, 20},
                                       {OrderingCall::DeviceSynchronize, "cudaDeviceSynchronize", 0, 0, 30}};
    discount_closing_synchronize(never_synchronizes, kRecordingThread);
    EXPECT_EQ(count_api_calls(never_synchronizes, {"cudaDeviceSynchronize"}), 0U);
    EXPECT_EQ(never_synchronizes.api_calls.count("cudaDeviceSynchronize"), 0U);
    ASSERT_EQ(never_synchronizes.stream_calls.size(), 1U);
    EXPECT_EQ(never_synchronizes.stream_calls[0].call, OrderingCall::StreamQuery);

    discount_closing_synchronize(never_synchronizes, kRecordingThread);  // no call counted: nothing to take out
    EXPECT_EQ(never_synchronizes.stream_calls.size(), 1U);
}

TEST(Record, CarriesEveryGpuOfARecordingOnSeveral) {
    DeviceFacts first, second;
    first.name = "Made-up GPU";
    second.name = "Other made-up GPU";
    second.copy_engines = 3;
    const Scenario scenario = pipeline_scenario();
    const std::string header = header_line("08", "p", "d", kSeed) + "\n";
    const std::string rest = started_line(scenario.name) + "\n" + scenario_line(scenario) + "\n" + end_line("complete");
    const Record two = parse_record(header + setup_line(first, {{"n", 1}}, {second}) + "\n" + rest);
    ASSERT_EQ(two.gpus.size(), 2U);
    EXPECT_EQ(two.device.name, "Made-up GPU");
    EXPECT_EQ(two.gpus[0].name, "Made-up GPU");
    EXPECT_EQ(two.gpus[1].name, "Other made-up GPU");
    EXPECT_EQ(two.gpus[1].copy_engines, 3);
    EXPECT_EQ(two.gpus[1].ordinal, 1);
    // A record of one GPU, as every record before more_gpus: that GPU alone.
    const Record one = parse_record(header + setup_line(first, {{"n", 1}}) + "\n" + rest);
    ASSERT_EQ(one.gpus.size(), 1U);
    EXPECT_EQ(one.gpus[0].name, "Made-up GPU");
    // After a restart the set-up names the same GPUs, or the record is refused.
    const std::string restarted =
        header + setup_line(first, {{"n", 1}}, {second}) + "\n" + setup_line(first, {{"n", 1}}) + "\n" + rest;
    EXPECT_NE(refusal(restarted).find("differs from the first one"), std::string::npos) << refusal(restarted);
}

TEST(Record, StreamCallsCarryTheGpuTheyWereMadeOn) {
    Scenario scenario = pipeline_scenario();
    scenario.timeline->stream_calls = {{OrderingCall::EventRecord, "cudaEventRecord", 13, 77, 10, 0},
                                       {OrderingCall::StreamWaitEvent, "cudaStreamWaitEvent", 14, 77, 20, 1}};
    const std::string text = record_text(scenario);
    const std::vector<StreamCall> calls = parse_record(text).find("pipeline")->timeline->stream_calls;
    ASSERT_EQ(calls.size(), 2U);
    EXPECT_EQ(calls[0].device, 0U);
    EXPECT_EQ(calls[1].device, 1U) << "an event of GPU 0 waited for while GPU 1 was current";
    // Records made before stream calls carried their GPU: GPU 0's.
    std::string older = text;
    for (const std::string key : {",\"device\":0", ",\"device\":1"}) {
        older.replace(older.find(key), key.size(), "");
    }
    EXPECT_EQ(parse_record(older).find("pipeline")->timeline->stream_calls[1].device, 0U);
}

TEST(Record, DiscountsEveryCallOfTheClosingSynchronizationOfSeveralGpus) {
    constexpr std::uint64_t kRecordingThread = 7;
    Timeline timeline;
    timeline.api_calls = {{"cudaDeviceSynchronize", 3}, {"cudaSetDevice", 4}, {"cudaGetDevice", 1}};
    timeline.api_calls_by_thread = {{kRecordingThread, 8}};
    timeline.stream_calls = {{OrderingCall::DeviceSynchronize, "cudaDeviceSynchronize", 0, 0, 10},
                             {OrderingCall::Work, "cudaMemcpyAsync", 13, 0, 20},
                             {OrderingCall::DeviceSynchronize, "cudaDeviceSynchronize", 0, 0, 30, 1},
                             {OrderingCall::DeviceSynchronize, "cudaDeviceSynchronize", 0, 0, 40, 0}};
    discount_course_calls(timeline, kRecordingThread,
                          {{"cudaGetDevice", 1}, {"cudaSetDevice", 2}, {"cudaDeviceSynchronize", 2}});
    EXPECT_EQ(timeline.api_calls.at("cudaDeviceSynchronize"), 1U);  // the code's own call stays
    EXPECT_EQ(timeline.api_calls.at("cudaSetDevice"), 2U);
    EXPECT_EQ(timeline.api_calls.count("cudaGetDevice"), 0U);
    EXPECT_EQ(timeline.api_calls_by_thread.at(kRecordingThread), 3U);
    ASSERT_EQ(timeline.stream_calls.size(), 2U);
    EXPECT_EQ(timeline.stream_calls[0].time_ns, 10U);
    EXPECT_EQ(timeline.stream_calls[1].call, OrderingCall::Work);
}

}  // namespace
