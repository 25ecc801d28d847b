// The words the grader trusts (common/grader_words.json, as the header CMake writes
// from it) as the submodule streamlab.words, for the Python labs' programs
// (python/lab_program.py): the same constants the C++ tests print, under their
// Python names (kSkipNoGpu: SKIP_NO_GPU).
#include <nanobind/nanobind.h>

#include "bindings.hpp"
#include "streamlab/grader_words.hpp"

namespace nb = nanobind;

namespace streamlab::python {

void bind_words(nb::module_& module) {
    nb::module_ words = module.def_submodule("words", "The words the grader trusts (common/grader_words.json).");
    for (const streamlab::words::NamedWord& word : streamlab::words::kEveryWord) {
        words.attr(word.python_name) = word.text;
    }
}

}  // namespace streamlab::python
