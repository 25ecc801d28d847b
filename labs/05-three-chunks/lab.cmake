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

