# Lab 05: the three-chunk overlap. The files a student edits, the program, and
# the graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 05
  TOPIC three-chunks
  STUDENT_SOURCES three_chunks.cu
  # Your predicted speedup, read by ThreeChunks.YourPredictionMatchesTheTimeline; never compiled.
  ANSWER_FILES prediction.txt
  PROGRAM run_lab05.cu
  TEST_SOURCE test_lab05.cu
  TESTS
    ThreeChunks.ResultsMatchCpuReference          gpu 2
    ThreeChunks.EachChunkRunsInItsOwnStream       gpu 2
    ThreeChunks.StreamsDoNotWaitForTheNullStream  gpu 2
    ThreeChunks.CopiesOverlapKernels              gpu 3
    ThreeChunks.MakespanNearTheModel              gpu 3
    ThreeChunks.ReportedSpeedupMatchesTimeline    gpu 2
    ThreeChunks.AnyChunkCountWorks                gpu 2
    ThreeChunks.YourPredictionMatchesTheTimeline  gpu 2
)

# lab05_bench: what `course bench` runs. The reference solution's pipeline, from
# 1 to 64 chunks, with light, balanced and heavy kernels, against the model.
add_executable(lab05_bench "${CMAKE_CURRENT_LIST_DIR}/bench_lab05.cu")
target_link_libraries(lab05_bench PRIVATE lab05_solution streamlab)
