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
# (cuda-bindings), graded by pytest from the same timeline, the same runtime calls,
# the same reports and the same observed waits, through the module `streamlab`
# (its submodule lab09); choice.txt is graded in the C++ lab only.
# Tests: test_name  gpu|cpu  points.
streamlab_add_python_lab(
  NUMBER 09
  TOPIC why-streams-serialize
  STUDENT_SOURCES serialize.py late_error.py waiting_host.py
  TEST_SOURCE test_lab09.py
  # Into the module streamlab: the submodule lab09 (register_lab09) over the course
  # side below, one file per line. Task 2: the faulty kernel and its tripwire.
  # Task 3: the waits' job, host work and costs.
  BINDINGS
    python_bindings.cpp
    faulty_workload.cu
    wait_side.cpp
  TESTS
    test_results_match_cpu_reference        gpu 2
    test_each_chunk_runs_in_its_own_stream  gpu 2
    test_no_cuda_malloc_or_cuda_free_while_busy gpu 2
    test_no_pinned_allocation_while_busy    gpu 1
    test_copies_overlap_kernels             gpu 3
    test_makespan_near_the_model            gpu 3
    test_any_chunk_count_works              gpu 2
    # Task 2: a late error
    test_late_error_launch_blocking_names_the_failing_chunk gpu 3
    test_late_error_reports_the_error_at_the_wait           gpu 2
    test_late_error_clean_run_reports_no_error              gpu 1
    test_late_error_checks_keep_the_pipeline_overlapped     gpu 2
    # Task 3: the waiting host.
    test_blocking_wait_leaves_the_cpu_free        gpu 3
    test_waits_return_only_when_the_work_is_done  gpu 1
    test_polling_does_host_work                   gpu 3
)
