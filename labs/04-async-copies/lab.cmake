# Lab 04: asynchronous copies. The files a student edits, the program, and the
# graded tests with their points. Tests: Suite.Name  gpu|cpu  points.
streamlab_add_lab(
  NUMBER 04
  TOPIC async-copies
  STUDENT_SOURCES async_copies.cu
  # Your prediction, read by PageableMemory.YourPredictionMatchesTheTimeline; never compiled.
  ANSWER_FILES prediction.txt
  PROGRAM run_lab04.cu
  TEST_SOURCE test_lab04.cu
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
    PageableMemory.HostIsBlockedUntilTheCopiesEnd       gpu 0
    PageableMemory.YourReportMatchesTheTimeline         gpu 2
    PageableMemory.YourPredictionMatchesTheTimeline     gpu 2
)
