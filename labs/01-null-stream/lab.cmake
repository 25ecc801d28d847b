# Lab 01: the NULL stream. The files a student edits, the program, and the
# graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 01
  TOPIC null-stream
  STUDENT_SOURCES null_stream.cu
  # Your prediction for Task 2, read by BarrierDemo.YourPredictionMatchesTheTimeline; never compiled.
  ANSWER_FILES prediction.txt
  PROGRAM run_lab01.cu
  TEST_SOURCE test_lab01.cu
  TESTS
    SerialRun.ResultMatchesCpuReference                gpu 2
    SerialRun.EveryOpInTheNullStream                   gpu 2
    SerialRun.OpsRunOneAfterAnother                    gpu 2
    SerialRun.EventTimeMatchesTimeline                 gpu 2
    BarrierDemo.BlockingStreamsAreSerializedByTheNullStream gpu 3
    BarrierDemo.NonBlockingStreamsAreNotSeparated      gpu 3
    BarrierDemo.YourPredictionMatchesTheTimeline       gpu 2
)
