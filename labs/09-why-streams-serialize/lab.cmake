# Lab 09: why streams serialize. The files a student edits, the program, and
# the graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 09
  TOPIC why-streams-serialize
  STUDENT_SOURCES serialize.cu
  PROGRAM run_lab09.cpp
  TEST_SOURCE test_lab09.cpp
  TESTS
    Serialize.ResultsMatchCpuReference     gpu 2
    Serialize.EachChunkRunsInItsOwnStream  gpu 2
    Serialize.NoCudaMallocOrCudaFreeWhileBusy gpu 2
    Serialize.NoPinnedAllocationWhileBusy  gpu 1
    Serialize.CopiesOverlapKernels         gpu 3
    Serialize.MakespanNearTheModel         gpu 3
    Serialize.AnyChunkCountWorks           gpu 2
)
