# Lab 02: creating streams. The files a student edits, the program, and the
# graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 02
  TOPIC streams
  STUDENT_SOURCES streams.cu
  # Your prediction for Task 1, read by Streams.YourPredictionMatchesTheTimeline; never compiled.
  ANSWER_FILES prediction.txt
  PROGRAM run_lab02.cpp
  # Recorded once, judged outside: record_lab02.cpp runs your functions in each
  # scenario the tests need; the tests of test_lab02.cpp judge its record.
  RECORDER record_lab02.cpp
  # What `course check` draws of the record: streams, the run the README pictures.
  DRAWN_SCENARIO streams
  TEST_SOURCE test_lab02.cpp
  TESTS
    Streams.ResultsMatchCpuReference              gpu 2
    Streams.KernelsRunInDistinctCreatedStreams    gpu 3
    Streams.KernelsOverlapWhereTheDeviceAllows    gpu 3
    Streams.CallsQueryStreamSyncAndDeviceSync     gpu 2
    Streams.EveryCreatedStreamIsDestroyed         gpu 2
    Streams.NullStreamRunsKernelsOneAfterAnother  gpu 2
    Streams.YourPredictionMatchesTheTimeline      gpu 2
)

# The Python version (python/): the same tasks with the article's own API
# (cuda-bindings). Recorded once, judged outside, like the C++ track:
# python/record_lab02.py runs your streams.py in the same scenarios and writes
# the same record, and the judges of test_lab02.cpp grade it, test for test and
# point for point; your prediction goes in python/prediction.txt.
streamlab_add_python_lab(
  NUMBER 02
  TOPIC streams
  STUDENT_SOURCES streams.py
  RECORDER record_lab02.py
)
