# Lab 01: the NULL stream. The files a student edits, the program, and the
# graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 01
  TOPIC null-stream
  STUDENT_SOURCES null_stream.cu
  # Your prediction for Task 2, read by BarrierDemo.YourPredictionMatchesTheTimeline; never compiled.
  ANSWER_FILES prediction.txt
  PROGRAM run_lab01.cpp
  TEST_SOURCE test_lab01.cpp
  TESTS
    SerialRun.ResultMatchesCpuReference                gpu 2
    SerialRun.EveryOpInTheNullStream                   gpu 2
    SerialRun.OpsRunOneAfterAnother                    gpu 2
    SerialRun.EventTimeMatchesTimeline                 gpu 2
    BarrierDemo.BlockingStreamsAreSerializedByTheNullStream gpu 3
    BarrierDemo.NonBlockingStreamsAreNotSeparated      gpu 3
    BarrierDemo.YourPredictionMatchesTheTimeline       gpu 2
)

# The Python version (python/): Tasks 1 and 2 with the article's own API
# (cuda-bindings), graded by pytest from the same timeline; prediction.txt is
# graded in the C++ lab only. Tests: test_name  gpu|cpu  points.
streamlab_add_python_lab(
  NUMBER 01
  TOPIC null-stream
  STUDENT_SOURCES null_stream.py
  TEST_SOURCE test_lab01.py
  TESTS
    test_result_matches_cpu_reference                          gpu 2
    test_every_op_in_the_null_stream                           gpu 2
    test_ops_run_one_after_another                             gpu 2
    test_event_time_matches_timeline                           gpu 2
    test_blocking_streams_are_serialized_by_the_null_stream    gpu 3
    test_non_blocking_streams_are_not_separated                gpu 3
)
