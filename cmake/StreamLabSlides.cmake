# The `slides` target: every deck in slides/ (NN-topic.md) rendered to
# <build>/slides/NN-topic.pdf with pandoc's Beamer output (`./course slides`
# installs pandoc and TeX, then builds it).
#
# tools/slides.py does the work: it includes the code the decks name from the
# solution sources, runs pandoc and pdflatex, and fails when something runs
# off a slide. pandoc and pdflatex are optional: without them the project
# configures and builds as usual, and the `slides` target only says what is
# missing (and fails). The target is not part of `all`.

find_program(PANDOC pandoc)
find_program(PDFLATEX pdflatex)
find_program(PDFTOTEXT pdftotext)  # optional: an extra check for words past a page's edge
find_package(Python3 COMPONENTS Interpreter)

set(STREAMLAB_SLIDES_OUTPUT "${PROJECT_BINARY_DIR}/slides")

file(GLOB streamlab_decks CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/slides/[0-9][0-9]-*.md")
# What a deck can draw on: the code it includes and the figures it shows.
file(GLOB streamlab_slide_inputs CONFIGURE_DEPENDS
     "${PROJECT_SOURCE_DIR}/solutions/*/*"
     "${PROJECT_SOURCE_DIR}/labs/*/*.png"
     "${PROJECT_SOURCE_DIR}/common/reference/*.png")

if(PANDOC AND PDFLATEX AND Python3_Interpreter_FOUND)
  set(streamlab_pdftotext_option "")
  if(PDFTOTEXT)
    set(streamlab_pdftotext_option --pdftotext "${PDFTOTEXT}")
  endif()
  set(streamlab_slide_pdfs "")
  foreach(deck IN LISTS streamlab_decks)
    get_filename_component(deck_name "${deck}" NAME_WE)
    set(pdf "${STREAMLAB_SLIDES_OUTPUT}/${deck_name}.pdf")
    add_custom_command(
      OUTPUT "${pdf}"
      COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/tools/slides.py" "${deck}"
              --out-dir "${STREAMLAB_SLIDES_OUTPUT}" --root "${PROJECT_SOURCE_DIR}"
              --pandoc "${PANDOC}" --pdflatex "${PDFLATEX}" ${streamlab_pdftotext_option}
      DEPENDS "${deck}" "${PROJECT_SOURCE_DIR}/slides/beamer-header.tex"
              "${PROJECT_SOURCE_DIR}/tools/slides.py" ${streamlab_slide_inputs}
      COMMENT "Slides: ${deck_name}.pdf"
      VERBATIM)
    list(APPEND streamlab_slide_pdfs "${pdf}")
  endforeach()
  add_custom_target(slides DEPENDS ${streamlab_slide_pdfs})
else()
  set(streamlab_slides_missing "")
  foreach(tool IN ITEMS PANDOC PDFLATEX)
    if(NOT ${tool})
      string(TOLOWER "${tool}" tool_name)
      list(APPEND streamlab_slides_missing "${tool_name}")
    endif()
  endforeach()
  if(NOT Python3_Interpreter_FOUND)
    list(APPEND streamlab_slides_missing "python3")
  endif()
  list(LENGTH streamlab_slides_missing streamlab_slides_missing_count)
  list(JOIN streamlab_slides_missing " and " streamlab_slides_missing)
  if(streamlab_slides_missing_count GREATER 1)
    string(APPEND streamlab_slides_missing " are")
  else()
    string(APPEND streamlab_slides_missing " is")
  endif()
  add_custom_target(slides
    COMMAND "${CMAKE_COMMAND}" -E echo
            "slides not built: ${streamlab_slides_missing} not installed (./course slides installs them; or apt-get install pandoc texlive-latex-recommended texlive-latex-extra texlive-pictures texlive-fonts-recommended lmodern, then configure again)"
    COMMAND "${CMAKE_COMMAND}" -E false
    VERBATIM)
endif()
