# Lab 05: the three-chunk overlap. The files a student edits, the program, and
# the graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 05
  TOPIC three-chunks
  STUDENT_SOURCES three_chunks.cu
  # Your predicted speedup, read by ThreeChunks.YourPredictionMatchesTheTimeline; never compiled.
  ANSWER_FILES prediction.txt
  PROGRAM run_lab05.cpp
  # Recorded once, judged outside: record_lab05.cpp runs your pipeline in each
  # scenario the tests need; the tests of test_lab05.cpp judge its record.
  RECORDER record_lab05.cpp
  TEST_SOURCE test_lab05.cpp
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


# The Python version (python/): the same tasks with the article's own API
# (cuda-bindings). Recorded once, judged outside, like the C++ track:
# python/record_lab05.py runs your three_chunks.py in the same scenarios and
# writes the same record, and the judges of test_lab05.cpp grade it, test for
# test and point for point.
streamlab_add_python_lab(
  NUMBER 05
  TOPIC three-chunks
  STUDENT_SOURCES three_chunks.py
  RECORDER record_lab05.py
)
