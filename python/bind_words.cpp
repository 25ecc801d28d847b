// The words the grader trusts (streamlab/grader_words.hpp) as the submodule
// streamlab.words, for the Python labs' programs (python/lab_program.py): the same
// constants the C++ tests print, under their Python names (kSkipNoGpu: SKIP_NO_GPU).
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "streamlab/grader_words.hpp"

namespace nb = nanobind;

namespace streamlab::python {

void bind_words(nb::module_& module) {
    nb::module_ words = module.def_submodule("words", "The words the grader trusts (streamlab/grader_words.hpp).");
    words.attr("SKIP_NO_GPU") = streamlab::words::kSkipNoGpu;
    words.attr("SKIP_TIMELINE_UNAVAILABLE") = streamlab::words::kSkipTimelineUnavailable;
    words.attr("SKIP_DEVICE_CANNOT_SHOW") = streamlab::words::kSkipDeviceCannotShow;
    words.attr("SKIP_NEEDS_GPUS") = streamlab::words::kSkipNeedsGpus;
    words.attr("LINE_MEASURE") = streamlab::words::kLineMeasure;
    words.attr("LINE_HINT") = streamlab::words::kLineHint;
    words.attr("LINE_NOTE") = streamlab::words::kLineNote;
    words.attr("FAIL_RECORD_REFUSED") = streamlab::words::kFailRecordRefused;
}

}  // namespace streamlab::python
