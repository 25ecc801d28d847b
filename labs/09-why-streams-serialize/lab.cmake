# Lab 09: why streams serialize. The files a student edits, the program, and
# the graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 09
  TOPIC why-streams-serialize
  STUDENT_SOURCES serialize.cu late_error.cu waiting_host.cpp
  # Your choice of wait for Task 3, read by WaitChoice.SuitsAHostWithOtherWork; never compiled.
  ANSWER_FILES choice.txt
  PROGRAM run_lab09.cpp
  # Recorded once, judged outside: record_lab09.cpp runs your code in each
  # scenario the tests need (Task 2's and the schedule flags' waits in processes
  # of their own); the tests of test_lab09.cpp judge its record.
  RECORDER record_lab09.cpp
  TEST_SOURCE test_lab09.cpp
  # The course's side (objects of its own, never the student's library): Task 2's
  # faulty kernel; Task 3's GPU work the waits wait for, the host's work in
  # slices, and what a wait cost. What the recording writes of them into the
  # record, and the judges read back, is lab09_record.hpp (header only).
  COURSE_SOURCES faulty_workload.cu wait_side.cpp
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
    # Task 2: a late error
    LateErrorLaunchBlocking.NamesTheFailingChunk      gpu 3
    LateError.ReportsTheErrorAtTheWait                gpu 2
    LateError.CleanRunReportsNoError                  gpu 1
    LateError.ChecksKeepThePipelineOverlapped         gpu 2
    # Task 3: the waiting host.
    WaitingHost.BlockingWaitLeavesTheCpuFree     gpu 3
    WaitingHost.WaitsReturnOnlyWhenTheWorkIsDone gpu 1
    WaitingHost.PollingDoesHostWork              gpu 3
    WaitChoice.SuitsAHostWithOtherWork           gpu 2
)

# The Python version (python/): Tasks 1 to 3 with the article's own API
# (cuda-bindings). Recorded once, judged outside, like the C++ track:
# python/record_lab09.py runs your serialize.py, late_error.py and
# waiting_host.py in the same scenarios, in processes of their own where the C++
# recording has them, and writes the same record; the judges of test_lab09.cpp
# grade it, test for test and point for point, choice.txt (python/choice.txt) included.
streamlab_add_python_lab(
  NUMBER 09
  TOPIC why-streams-serialize
  STUDENT_SOURCES serialize.py late_error.py waiting_host.py
  RECORDER record_lab09.py
  # Into the module streamlab: the submodule lab09 (register_lab09) over the course
  # side below, one file per line. Task 2: the faulty kernel and its tripwire.
  # Task 3: the waits' job, host work and costs.
  BINDINGS
    python_bindings.cpp
    faulty_workload.cu
    wait_side.cpp
)
