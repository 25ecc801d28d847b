# Lab 02: creating streams. The files a student edits, the program, and the
# graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 02
  TOPIC streams
  STUDENT_SOURCES streams.cu
  PROGRAM run_lab02.cu
  TEST_SOURCE test_lab02.cu
  TESTS
    Streams.ResultsMatchCpuReference              gpu 2
    Streams.KernelsRunInDistinctCreatedStreams    gpu 3
    Streams.KernelsOverlapWhereTheDeviceAllows    gpu 3
    Streams.WaitsForOneStreamThenForAll           gpu 2
    Streams.EveryCreatedStreamIsDestroyed         gpu 2
    Streams.NullStreamRunsKernelsOneAfterAnother  gpu 2
)
