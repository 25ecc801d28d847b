# Lab 07: dependencies, host functions, graphs, priorities. The files a student
# edits, the program, and the graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 07
  TOPIC dependencies-and-graphs
  STUDENT_SOURCES dependencies.cu
  PROGRAM run_lab07.cpp
  # Recorded once, judged outside: record_lab07.cpp runs your code in each
  # scenario the tests need; the tests of test_lab07.cpp judge its record.
  RECORDER record_lab07.cpp
  TEST_SOURCE test_lab07.cpp
  # The course's side of the lab (the consumer, and Task 4's background and urgent
  # kernels, which time themselves on the timeline's clock): objects of their own,
  # never the student's library.
  COURSE_SOURCES course_side.cpp priority_side.cu
  TESTS
    StageStreams.ResultsMatchCpuReference                gpu 1
    StageStreams.OneStreamPerStage                       gpu 2
    StageStreams.EachStageWaitsForItsChunk               gpu 3
    StageStreams.CopiesOverlapKernels                    gpu 2
    HostConsumer.ResultsMatchCpuReference                gpu 1
    HostConsumer.EachChunkConsumedAsItsCopyEnds          gpu 3
    HostConsumer.ConsumedInHostFunctionsThatCallNoCuda   gpu 2
    Graph.ResultsMatchCpuReference                       gpu 1
    Graph.OneInstantiationLaunchedManyTimes              gpu 3
    Graph.ChunksOverlapInsideEachLaunch                  gpu 2
    Priorities.UrgentKernelWaitsLessWithGreatestPriority gpu 2
)

# The Python version (python/): Tasks 1 to 4 with the article's own API
# (cuda-bindings). Recorded once, judged outside, like the C++ track:
# python/record_lab07.py runs your dependencies.py in the same scenarios and
# writes the same record, and the judges of test_lab07.cpp grade it, test for
# test and point for point.
streamlab_add_python_lab(
  NUMBER 07
  TOPIC dependencies-and-graphs
  STUDENT_SOURCES dependencies.py
  RECORDER record_lab07.py
  # Into the module streamlab: the submodule lab07 (register_lab07) over the course side below.
  BINDINGS python_bindings.cpp course_side.cpp priority_side.cu
)
