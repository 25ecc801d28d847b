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
# (cuda-bindings). Recorded once, judged outside, like the C++ track:
# python/record_lab04.py runs your async_copies.py in the same scenarios, with the
# course's same host work, and writes the same record; the judges of
# test_lab04.cpp grade it, test for test and point for point, python/prediction.txt
# and the pageable observation included.
streamlab_add_python_lab(
  NUMBER 04
  TOPIC async-copies
  STUDENT_SOURCES async_copies.py
  RECORDER record_lab04.py
  # Into the module streamlab: the batches' buffers and their output sample, the host work (register_lab04).
  BINDINGS python_bindings.cpp
)
