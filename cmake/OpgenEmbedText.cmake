# A text file as a C++ string constant, for the tool to write out: opgen's
# Python runtime (python/opgen/runtime.py), which every generated package
# carries a copy of.
#
#   include(OpgenEmbedText)
#   opgen_embed_text(<target> <input file> <header name> <constant name>)
#
# makes <binary dir>/embedded/<header name> (regenerated when the input
# changes), which defines `inline constexpr std::string_view <constant name>`
# with the file's bytes, and puts that directory on <target>'s include path.
# Run as a script (cmake -P) it writes one such header: INPUT, OUTPUT, NAME.

if(CMAKE_SCRIPT_MODE_FILE)
  file(READ ${INPUT} text)
  set(delimiter "opgen_embed")
  string(FIND "${text}" ")${delimiter}\"" clash)
  if(NOT clash EQUAL -1)
    message(FATAL_ERROR "${INPUT} holds ')${delimiter}\"', which ends the raw string literal it is embedded in")
  endif()
  file(WRITE ${OUTPUT}.tmp
       "// @generated from ${INPUT} by cmake/OpgenEmbedText.cmake - DO NOT EDIT\n"
       "#pragma once\n\n#include <string_view>\n\n"
       "inline constexpr std::string_view ${NAME} = R\"${delimiter}(${text})${delimiter}\";\n")
  file(COPY_FILE ${OUTPUT}.tmp ${OUTPUT} ONLY_IF_DIFFERENT)
  file(REMOVE ${OUTPUT}.tmp)
  return()
endif()

set(OPGEN_EMBED_TEXT_SCRIPT ${CMAKE_CURRENT_LIST_FILE})

function(opgen_embed_text target input header name)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/embedded)
  add_custom_command(
    OUTPUT ${dir}/${header}
    COMMAND ${CMAKE_COMMAND} -DINPUT=${input} -DOUTPUT=${dir}/${header} -DNAME=${name} -P ${OPGEN_EMBED_TEXT_SCRIPT}
    DEPENDS ${input} ${OPGEN_EMBED_TEXT_SCRIPT}
    COMMENT "opgen: embedding ${input}"
    VERBATIM)
  target_sources(${target} PRIVATE ${dir}/${header})
  target_include_directories(${target} PRIVATE ${dir})
endfunction()
