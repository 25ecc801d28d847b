# Lab 04: asynchronous copies. The files a student edits, the program, and the
# graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 04
  TOPIC async-copies
  STUDENT_SOURCES async_copies.cu
  # Your prediction, read by PageableMemory.YourPredictionMatchesTheTimeline; never compiled.
  ANSWER_FILES prediction.txt
  PROGRAM run_lab04.cpp
  # Recorded once, judged outside: record_lab04.cpp runs your batch loop in each
  # scenario the tests need; the tests of test_lab04.cpp judge its record.
  RECORDER record_lab04.cpp
  # What `course check` draws of the record: pinned, the run the README pictures.
  DRAWN_SCENARIO pinned
  TEST_SOURCE test_lab04.cpp
  TESTS
    Batches.ResultsMatchCpuReference                    gpu 2
    Batches.AllOpsInOneCreatedStream                    gpu 2
    Batches.CopiesAreAsyncFromPinnedMemory              gpu 2
    Batches.DeviceMemoryFromTheStreamOrderedAllocator   gpu 2
    Batches.StreamIsDestroyed                           gpu 1
    Batches.HostRegainsControlBeforeTheDeviceFinishes   gpu 3
    Batches.HostWorkOverlapsDeviceWork                  gpu 3
    Batches.YourReportMatchesTheTimeline                gpu 2
    Waiting.StreamSynchronizeWaitsForYourStreamOnly     gpu 2
    Waiting.DeviceSynchronizeWaitsForEveryStream        gpu 2
    # An observation, 0 points: what the driver does with pageable copies, shown
    # in the report, not graded.
    PageableMemory.ControlReturnsAfterTheH2DCopyEnds    gpu 0
    PageableMemory.YourReportMatchesTheTimeline         gpu 2
    PageableMemory.YourPredictionMatchesTheTimeline     gpu 2
)

# The Python version (python/): Tasks 1 to 3 with the article's own API
# (cuda-bindings), graded by pytest from the same timeline; prediction.txt and
# the pageable observation are the C++ lab's. Tests: test_name  gpu|cpu  points.
streamlab_add_python_lab(
  NUMBER 04
  TOPIC async-copies
  STUDENT_SOURCES async_copies.py
  TEST_SOURCE test_lab04.py
  # Into the module streamlab: the batches' buffers, host work and reading (register_lab04).
  BINDINGS python_bindings.cpp
  TESTS
    test_results_match_cpu_reference                       gpu 2
    test_all_ops_in_one_created_stream                     gpu 2
    test_copies_are_async_from_pinned_memory               gpu 2
    test_device_memory_from_the_stream_ordered_allocator   gpu 2
    test_stream_is_destroyed                               gpu 1
    test_host_regains_control_before_the_device_finishes   gpu 3
    test_host_work_overlaps_device_work                    gpu 3
    test_your_report_matches_the_timeline                  gpu 2
    test_stream_synchronize_waits_for_your_stream_only     gpu 2
    test_device_synchronize_waits_for_every_stream         gpu 2
    test_pageable_report_matches_the_timeline              gpu 2
)
