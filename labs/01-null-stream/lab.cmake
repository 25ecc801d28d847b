# Lab 01: the NULL stream. The files a student edits, the program, and the
# graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 01
  TOPIC null-stream
  STUDENT_SOURCES null_stream.cu
  # Your prediction for Task 2, read by BarrierDemo.YourPredictionMatchesTheTimeline; never compiled.
  ANSWER_FILES prediction.txt
  PROGRAM run_lab01.cpp
  # Recorded once, judged outside: record_lab01.cpp runs your functions in each
  # scenario the tests need; the tests of test_lab01.cpp judge its record.
  RECORDER record_lab01.cpp
  # What `course check` draws of the record: serial, the run the README pictures.
  DRAWN_SCENARIO serial
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
# (cuda-bindings). Recorded once, judged outside, like the C++ track:
# python/record_lab01.py runs your null_stream.py in the same scenarios and
# writes the same record, and the judges of test_lab01.cpp grade it, test for
# test and point for point (the prediction in python/prediction.txt too).
streamlab_add_python_lab(
  NUMBER 01
  TOPIC null-stream
  STUDENT_SOURCES null_stream.py
  RECORDER record_lab01.py
)
