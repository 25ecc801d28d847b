/// @file model.hpp
/// @brief How long a chunked copy → kernel → copy pipeline should take: the ideal
/// model, and a small simulation of streams, copy engines and the compute unit.
///
/// The data is cut into N equal chunks; each chunk is copied to the device (H2D),
/// processed by a kernel, and copied back (D2H). Stages of different chunks may
/// run at the same time when they use different hardware units.
#pragma once

#include <string>
#include <vector>

namespace streamlab {

/// How long each stage takes for the WHOLE data, unchunked, in any unit (ms, say).
/// One chunk of N takes 1/N of it.
struct StageTimes {
    double h2d = 0;     ///< Copying all input to the device.
    double kernel = 0;  ///< Processing all of it.
    double d2h = 0;     ///< Copying all results back.
};

/// What the model predicts, in the unit of the StageTimes it was given.
struct PipelineEstimate {
    double serial = 0;   ///< Nothing overlaps: H + K + D.
    double ideal = 0;    ///< The pipeline's makespan when every chunk starts as early as the units allow.
    double bound = 0;    ///< The busiest unit's total time: no number of chunks gets below it.
    double speedup = 0;  ///< serial / ideal (1 when all stage times are 0).
};

/// The ideal pipeline model for `chunks` chunks. With per-chunk times h = H/N,
/// k = K/N, d = D/N:
/// - `copy_engines` >= 2 (one engine per direction):
///   ideal = h + k + d + (N - 1) max(h, k, d), bound = max(H, K, D);
/// - `copy_engines` == 1 (H2D and D2H take turns on one engine):
///   ideal = h + k + d + (N - 1) max(h + d, k), bound = max(H + D, K).
///
/// The first chunk goes through all three stages; after that, one chunk leaves
/// the pipeline each time the slowest unit finishes a chunk.
/// Throws std::invalid_argument when chunks < 1, copy_engines < 1, or a time is
/// negative or not finite.
[[nodiscard]] PipelineEstimate pipeline_model(const StageTimes& whole, int chunks, int copy_engines);

/// A stage of one chunk.
enum class Stage {
    H2D,     ///< Copy the chunk to the device.
    Kernel,  ///< Process it.
    D2H,     ///< Copy its results back.
};

/// "H2D", "K" or "D2H", as in the article's names H2D_1, K_1, D2H_1.
[[nodiscard]] const char* to_string(Stage stage);

/// The order in which the host issues the chunks' operations.
enum class IssueOrder {
    ChunkByChunk,  ///< H2D_1, K_1, D2H_1, H2D_2, K_2, D2H_2, ...
    StageByStage,  ///< H2D_1, H2D_2, ..., then K_1, K_2, ..., then D2H_1, D2H_2, ...
};

/// An issue order from its spelling in Python and on the command line: "chunk"
/// (ChunkByChunk) or "stage" (StageByStage); std::invalid_argument otherwise.
[[nodiscard]] IssueOrder issue_order_from_string(const std::string& spelling);

/// How much the two copy directions slow each other down when they run at the same
/// time: the interference between directions. PCIe is full duplex, each direction on
/// lanes of its own, but the other direction's protocol traffic, the root complex and
/// the host memory behind it are common to both, so two copies in opposite directions
/// each get a little less than they get alone. Each number is the fraction of its own speed a direction keeps while the
/// other direction copies too: 1 means no slowdown (the ideal model's assumption).
/// measure_link_sharing (pipeline.hpp) measures it on the GPU at hand.
struct LinkSharing {
    double h2d = 1.0;  ///< H2D speed while a D2H copy runs, over H2D speed alone, in (0, 1].
    double d2h = 1.0;  ///< D2H speed while an H2D copy runs, over D2H speed alone, in (0, 1].
};

/// One operation of the simulated pipeline.
struct SimulatedOp {
    int chunk = 0;             ///< Chunk index, from 0 (the article's chunk 1 is chunk 0).
    Stage stage = Stage::H2D;  ///< Which stage.
    int stream = 0;            ///< Stream it was issued to: chunk % streams.
    double start = 0;          ///< When it started.
    double end = 0;            ///< When it ended.
};

/// Simulates the pipeline on an idealised GPU, starting at time 0: chunk i in
/// stream i % `streams`, ops issued in `order`; each stream and each unit (the
/// compute unit; an H2D and a D2H engine, or one shared copy engine when
/// `copy_engines` is 1) runs its ops first in, first out; copies in the two
/// directions at once go at the speeds `link` gives (by default, full speed).
/// model.cpp sets out the rules. Times are in the unit of `whole`.
/// Returns the ops in issue order. Throws std::invalid_argument when chunks,
/// streams or copy_engines is below 1, a time is negative or not finite, or a
/// sharing fraction is not in (0, 1].
[[nodiscard]] std::vector<SimulatedOp> simulate_pipeline(const StageTimes& whole, int chunks, int streams,
                                                         int copy_engines, IssueOrder order,
                                                         const LinkSharing& link = {});

/// Last end minus first start of simulated ops; 0 when there are none.
[[nodiscard]] double simulated_makespan(const std::vector<SimulatedOp>& ops);

}  // namespace streamlab
