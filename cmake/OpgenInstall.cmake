# `cmake --install` of the tool (component tool): bin/opgen, the CMake
# package lib/cmake/opgen, share/opgen/spec.schema.json and the Python
# package share/opgen/python/opgen (opgen.testing), with which another
# project writes
#
#   find_package(opgen CONFIG REQUIRED)   # opgen::opgen and opgen_add_library()
#
# Included only when codegen/ is built here: a prebuilt OPGEN_EXECUTABLE
# belongs to whoever built it.

include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

if(SKBUILD)
  # The tool's wheel (pyproject.toml): everything inside the Python package
  # opgen/ (python -m opgen --cmake-dir names the CMake package; the `opgen`
  # console script runs the executable), so that the exported target's
  # location stays relative to the package wherever pip puts it.
  set(opgen_bindir opgen/bin)
  set(opgen_cmakedir opgen/share/cmake/opgen)
  install(FILES ${PROJECT_SOURCE_DIR}/codegen/spec.schema.json ${PROJECT_SOURCE_DIR}/codegen/types.schema.json DESTINATION opgen COMPONENT tool)
else()
  set(opgen_bindir ${CMAKE_INSTALL_BINDIR})
  set(opgen_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/opgen)
  install(FILES ${PROJECT_SOURCE_DIR}/codegen/spec.schema.json ${PROJECT_SOURCE_DIR}/codegen/types.schema.json DESTINATION ${CMAKE_INSTALL_DATADIR}/opgen
          COMPONENT tool)
  # opgen.testing, which generated test suites import (Opgen.cmake puts it on their PYTHONPATH).
  file(GLOB opgen_python_files ${PROJECT_SOURCE_DIR}/python/opgen/*.py ${PROJECT_SOURCE_DIR}/python/opgen/py.typed)
  install(FILES ${opgen_python_files} DESTINATION ${CMAKE_INSTALL_DATADIR}/opgen/python/opgen COMPONENT tool)
endif()
set(OPGEN_INSTALL_CMAKEDIR ${opgen_cmakedir} CACHE STRING
    "Where cmake --install puts opgen's CMake package, relative to the prefix")

install(TARGETS opgen EXPORT opgenTargets RUNTIME DESTINATION ${opgen_bindir} COMPONENT tool)
install(EXPORT opgenTargets NAMESPACE opgen:: DESTINATION ${OPGEN_INSTALL_CMAKEDIR} COMPONENT tool)

configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/opgenConfig.cmake.in
  ${CMAKE_CURRENT_BINARY_DIR}/opgenConfig.cmake
  INSTALL_DESTINATION ${OPGEN_INSTALL_CMAKEDIR}
  NO_SET_AND_CHECK_MACRO)
# Before 1.0 a minor release may change the spec format or the generated
# code's contract, so only the same major.minor is compatible.
write_basic_package_version_file(${CMAKE_CURRENT_BINARY_DIR}/opgenConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)

install(FILES ${CMAKE_CURRENT_BINARY_DIR}/opgenConfig.cmake ${CMAKE_CURRENT_BINARY_DIR}/opgenConfigVersion.cmake
              ${CMAKE_CURRENT_LIST_DIR}/Opgen.cmake ${CMAKE_CURRENT_LIST_DIR}/OpgenCompareTrees.cmake
        DESTINATION ${OPGEN_INSTALL_CMAKEDIR} COMPONENT tool)
