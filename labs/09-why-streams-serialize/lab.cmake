# Lab 09: why streams serialize. The files a student edits, the program, and
# the graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 09
  TOPIC why-streams-serialize
  STUDENT_SOURCES serialize.cu late_error.cu
  PROGRAM run_lab09.cpp
  TEST_SOURCE test_lab09.cpp
  COURSE_SOURCES faulty_workload.cu  # Task 2's faulty kernel
  TESTS
    Serialize.ResultsMatchCpuReference     gpu 2
    Serialize.EachChunkRunsInItsOwnStream  gpu 2
    Serialize.NoCudaMallocOrCudaFree       gpu 2
    Serialize.PinnedMemoryAllocatedOnce    gpu 1
    Serialize.CopiesOverlapKernels         gpu 3
    Serialize.MakespanNearTheModel         gpu 3
    Serialize.AnyChunkCountWorks           gpu 2
    # Task 2: a late error
    LateErrorLaunchBlocking.NamesTheFailingChunk      gpu 3
    LateError.ReportsTheErrorAtTheWait                gpu 2
    LateError.CleanRunReportsNoError                  gpu 1
    LateError.ChecksKeepThePipelineOverlapped         gpu 2
)
