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
# (cuda-bindings), graded by pytest from the same timeline. Tests: test_name  gpu|cpu  points.
streamlab_add_python_lab(
  NUMBER 02
  TOPIC streams
  STUDENT_SOURCES streams.py
  TEST_SOURCE test_lab02.py
  TESTS
    test_results_match_cpu_reference                  gpu 2
    test_kernels_run_in_distinct_created_streams      gpu 3
    test_kernels_overlap_where_the_device_allows      gpu 3
    test_calls_query_stream_sync_and_device_sync      gpu 2
    test_every_created_stream_is_destroyed            gpu 2
    test_null_stream_runs_kernels_one_after_another   gpu 2
)
