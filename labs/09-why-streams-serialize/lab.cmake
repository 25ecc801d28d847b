# Lab 09: why streams serialize. The files a student edits, the program, and
# the graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 09
  TOPIC why-streams-serialize
  STUDENT_SOURCES serialize.cu waiting_host.cpp
  PROGRAM run_lab09.cpp
  TEST_SOURCE test_lab09.cpp
  # Task 3's course side (objects of its own, never the student's library): the
  # GPU work the waits wait for, the host's work in slices, and what a wait cost.
  COURSE_SOURCES wait_side.cpp
  # Task 3's course side asked of made-up records and the host alone, no GPU
  # needed: the ctest test lab09.wait_side (see cmake/StreamLab.cmake).
  CPU_TEST test_wait_side_cpu.cpp wait_side.cpp
  TESTS
    Serialize.ResultsMatchCpuReference     gpu 2
    Serialize.EachChunkRunsInItsOwnStream  gpu 2
    Serialize.NoCudaMallocOrCudaFreeWhileBusy gpu 2
    Serialize.NoPinnedAllocationWhileBusy  gpu 1
    Serialize.CopiesOverlapKernels         gpu 3
    Serialize.MakespanNearTheModel         gpu 3
    Serialize.AnyChunkCountWorks           gpu 2
    # Task 3: the waiting host.
    WaitingHost.BlockingWaitLeavesTheCpuFree     gpu 3
    WaitingHost.WaitsReturnOnlyWhenTheWorkIsDone gpu 1
    WaitingHost.PollingDoesHostWork              gpu 3
)
