# cmake -DEXPECTED=<dir> -DACTUAL=<dir> -DREFRESH=<command> -P OpgenCompareTrees.cmake
# Fails, naming every differing file and the command that refreshes
# EXPECTED, when the two trees differ in any file or in content.
# opgen's stamp (.opgen-stamp: the inputs' hash, the files' mtimes) is not
# generated code and differs from one build tree to the next.
file(GLOB_RECURSE expected RELATIVE ${EXPECTED} ${EXPECTED}/*)
file(GLOB_RECURSE actual RELATIVE ${ACTUAL} ${ACTUAL}/*)
list(REMOVE_ITEM expected .opgen-stamp)
list(REMOVE_ITEM actual .opgen-stamp)
set(problems)
foreach(file IN LISTS actual)
  if(NOT EXISTS ${EXPECTED}/${file})
    list(APPEND problems "missing from ${EXPECTED}: ${file}")
  else()
    file(READ ${EXPECTED}/${file} a)
    file(READ ${ACTUAL}/${file} b)
    if(NOT a STREQUAL b)
      list(APPEND problems "differs: ${file}")
    endif()
  endif()
endforeach()
foreach(file IN LISTS expected)
  if(NOT EXISTS ${ACTUAL}/${file})
    list(APPEND problems "no longer generated: ${file}")
  endif()
endforeach()
if(problems)
  list(JOIN problems "\n  " text)
  message(FATAL_ERROR "The committed generated code is out of date:\n  ${text}\n"
                      "Refresh it with:\n  ${REFRESH}")
endif()
message(STATUS "generated code matches ${EXPECTED}")
