# The `slides` target: every deck in slides/ (NN-topic.md) rendered to
# <build>/slides/NN-topic.pdf with pandoc's Beamer output (`./course slides`
# installs pandoc and TeX, then builds it).
#
# tools/slides.py does the work: it includes the code the decks name from the
# solution sources, runs pandoc and pdflatex, and fails when something runs
# off a slide. pandoc and pdflatex are optional: without them the project
# configures and builds as usual, and the `slides` target only says what is
# missing (and fails). The target is not part of `all`.
#
# The Korean decks (slides/ko/NN-topic.md) go to <build>/slides/ko/NN-topic.pdf,
# set with xelatex in the Noto Sans CJK KR font (Debian: texlive-xetex,
# fonts-noto-cjk, about 70 MB, which `./course slides` installs and `./course
# test` does not). Where either is missing, the target renders the English decks
# and says in one line that the Korean ones were left out.

find_program(PANDOC pandoc)
find_program(PDFLATEX pdflatex)
find_program(PDFTOTEXT pdftotext)  # optional: an extra check for words past a page's edge
find_program(XELATEX xelatex)      # optional: the Korean decks
find_program(FC_LIST fc-list)
find_package(Python3 COMPONENTS Interpreter)

set(STREAMLAB_SLIDES_OUTPUT "${PROJECT_BINARY_DIR}/slides")
set(STREAMLAB_KOREAN_FONT "Noto Sans CJK KR")  # tools/slides.py KOREAN_FONT

file(GLOB streamlab_decks CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/slides/[0-9][0-9]-*.md")
file(GLOB streamlab_korean_decks CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/slides/ko/[0-9][0-9]-*.md")
# Looked up at every configure, not cached: installing the font and configuring again finds it.
set(streamlab_korean_font_found FALSE)
if(FC_LIST)
  execute_process(COMMAND "${FC_LIST}" "${STREAMLAB_KOREAN_FONT}" family
                  OUTPUT_VARIABLE streamlab_korean_font_families ERROR_QUIET)
  if(streamlab_korean_font_families)
    set(streamlab_korean_font_found TRUE)
  endif()
endif()
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
  # One PDF per deck in `decks`, written to `out_dir`; the rest are options for tools/slides.py.
  function(streamlab_render_decks decks out_dir)
    foreach(deck IN LISTS decks)
      get_filename_component(deck_name "${deck}" NAME_WE)
      set(pdf "${out_dir}/${deck_name}.pdf")
      file(RELATIVE_PATH shown "${STREAMLAB_SLIDES_OUTPUT}" "${pdf}")
      add_custom_command(
        OUTPUT "${pdf}"
        COMMAND Python3::Interpreter "${PROJECT_SOURCE_DIR}/tools/slides.py" "${deck}"
                --out-dir "${out_dir}" --root "${PROJECT_SOURCE_DIR}"
                --pandoc "${PANDOC}" --pdflatex "${PDFLATEX}" ${streamlab_pdftotext_option} ${ARGN}
        DEPENDS "${deck}" "${PROJECT_SOURCE_DIR}/slides/beamer-header.tex"
                "${PROJECT_SOURCE_DIR}/tools/slides.py" ${streamlab_slide_inputs}
        COMMENT "Slides: ${shown}"
        VERBATIM)
      list(APPEND streamlab_slide_pdfs "${pdf}")
    endforeach()
    set(streamlab_slide_pdfs "${streamlab_slide_pdfs}" PARENT_SCOPE)
  endfunction()
  streamlab_render_decks("${streamlab_decks}" "${STREAMLAB_SLIDES_OUTPUT}")
  set(streamlab_korean_note "")
  if(XELATEX AND streamlab_korean_font_found)
    streamlab_render_decks("${streamlab_korean_decks}" "${STREAMLAB_SLIDES_OUTPUT}/ko" --xelatex "${XELATEX}")
  else()
    set(streamlab_korean_note COMMAND "${CMAKE_COMMAND}" -E echo
        "slides: the Korean decks (slides/ko) not rendered: they need xelatex and the ${STREAMLAB_KOREAN_FONT} font (./course slides installs them, or apt-get install texlive-xetex fonts-noto-cjk and configure again)")
  endif()
  add_custom_target(slides ${streamlab_korean_note} DEPENDS ${streamlab_slide_pdfs} VERBATIM)
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
