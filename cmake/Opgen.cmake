# opgen_add_library: build a PyTorch operator library from opgen specs and
# handwritten kernels.
#
#   opgen_add_library(<target>
#     NAMESPACE <ns>                  # torch.ops.<ns>
#     SCHEMAS <op>.yaml...            # one spec per op (and _types.yaml, its host classes), or directories of them
#     KERNELS <file>.cpp|.cu...       # CPU and CUDA kernels
#     [PYTHON_PACKAGE <pkg>]          # default: <ns> (opgen_ops for namespace opgen)
#     [FRAGMENT]                      # the namespace is shared: ops added as fragments, no TORCH_LIBRARY claims it
#     [PYTHON_API]                    # the kernels call Python's C API (pybind11): resolved when Python loads it
#     [PYTHON_HEADERS]                # the kernels include Python.h but call none of it: its headers, no Python linked
#     [PYTHON_SOURCES <file>.py...]   # copied into the package (an __init__.py among them replaces the default)
#     [TORCH_TARGET_VERSION <M.m>]    # oldest PyTorch the stable-ABI ops load in; default 2.10
#     [SHARDS <n>]                    # unity TUs per ABI the bindings compile as; 0: one TU per op
#                                     # (default: one per 75 specs, at most 8; see docs/cmake.md)
#     [GENERATED_REFERENCE <dir>]     # committed copy of the output: adds a test and a refresh target
#     [INSTALL_DIR <dir>])            # cmake --install puts the package in <dir>/<pkg> (component python)
#
# Produces the shared library <target> (lib<target>.so, plain C++: no
# Python.h, no libpython, unless PYTHON_API) inside the Python package directory
# ${CMAKE_BINARY_DIR}/python/<pkg>, next to the generated _ops.py/_ops.pyi.
# The tool it runs is the target opgen::opgen (find_package(opgen)) or else
# opgen (the in-tree build, or an imported prebuilt binary).
# opgen runs when a spec or the tool changes and rewrites only the files whose
# contents change; with Ninja (restat) a one-spec edit recompiles one TU (the
# shard that includes the op's TU).

include_guard(GLOBAL)

# The tool's Python package, whose opgen.testing every generated test suite
# imports: beside this file in the source tree, around it in the tool's
# wheel (<site>/opgen/share/cmake/opgen), or where `cmake --install` put it
# (<prefix>/lib/cmake/opgen -> <prefix>/share/opgen/python). CTest runs the
# suites with it on PYTHONPATH.
set(OPGEN_PYTHON_DIR "")
foreach(candidate ${CMAKE_CURRENT_LIST_DIR}/../python ${CMAKE_CURRENT_LIST_DIR}/../../../..
                  ${CMAKE_CURRENT_LIST_DIR}/../../../share/opgen/python)
  if(EXISTS ${candidate}/opgen/testing.py)
    cmake_path(SET OPGEN_PYTHON_DIR NORMALIZE ${candidate})
    string(REGEX REPLACE "(.)/$" "\\1" OPGEN_PYTHON_DIR "${OPGEN_PYTHON_DIR}")  # "a/b/.." normalizes to "a/"
    break()
  endif()
endforeach()

# Locate the torch that Python imports: headers and the libraries to link.
function(_opgen_find_torch)
  if(TARGET opgen_torch)
    return()
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  execute_process(
    COMMAND ${Python3_EXECUTABLE} -c
            "import os, torch; print(os.path.dirname(torch.__file__), end='')"
    OUTPUT_VARIABLE torch_dir RESULT_VARIABLE rc ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "opgen: cannot import torch with ${Python3_EXECUTABLE}: ${err}")
  endif()
  add_library(opgen_torch INTERFACE)
  target_include_directories(opgen_torch SYSTEM INTERFACE ${torch_dir}/include
                             ${torch_dir}/include/torch/csrc/api/include)
  target_link_directories(opgen_torch INTERFACE ${torch_dir}/lib)
  target_link_libraries(opgen_torch INTERFACE torch torch_cpu c10)
  target_compile_definitions(opgen_torch INTERFACE _GLIBCXX_USE_CXX11_ABI=1)
  set(OPGEN_TORCH_DIR ${torch_dir} CACHE INTERNAL "torch package directory")
endfunction()

# CUDA is optional: kernels/*.cu build whenever nvcc is there. Languages
# must be enabled at directory scope, so this runs when the file is included.
option(OPGEN_ENABLE_CUDA "Compile CUDA kernels when a CUDA compiler is found" ON)
# A build whose point is the CUDA kernels (the device check, a release) sets
# this: no CUDA compiler is then an error, never a quiet CPU-only library.
option(OPGEN_REQUIRE_CUDA "Fail the configuration when no CUDA compiler is found" OFF)
if(OPGEN_REQUIRE_CUDA AND NOT OPGEN_ENABLE_CUDA)
  message(FATAL_ERROR "OPGEN_REQUIRE_CUDA=ON contradicts OPGEN_ENABLE_CUDA=OFF")
endif()
if(OPGEN_ENABLE_CUDA)
  if(NOT CMAKE_CUDA_COMPILER)
    include(CheckLanguage)
    check_language(CUDA)
  endif()
  if(OPGEN_REQUIRE_CUDA AND NOT CMAKE_CUDA_COMPILER)
    message(FATAL_ERROR "OPGEN_REQUIRE_CUDA=ON, but no CUDA compiler was found (CUDACXX, "
                        "-DCMAKE_CUDA_COMPILER=<path to nvcc>, or nvcc on the PATH)")
  endif()
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
  endif()
endif()
if(CMAKE_CUDA_COMPILER AND NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION)
  # CMake 3.25 does not know that nvcc >= 12 speaks C++20 (which the torch
  # headers need): teach it the flag.
  set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION "-std=c++20")
  set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION "-std=c++20")
endif()

# A prebuilt tool, -DOPGEN_EXECUTABLE=<path>, for a project that neither
# builds opgen nor installed it: it stands in for the opgen target.
if(OPGEN_EXECUTABLE AND NOT TARGET opgen AND NOT TARGET opgen::opgen)
  add_executable(opgen IMPORTED GLOBAL)
  set_target_properties(opgen PROPERTIES IMPORTED_LOCATION ${OPGEN_EXECUTABLE})
endif()

function(opgen_add_library target)
  cmake_parse_arguments(ARG "FRAGMENT;PYTHON_API;PYTHON_HEADERS" "NAMESPACE;PYTHON_PACKAGE;TORCH_TARGET_VERSION;SHARDS;GENERATED_REFERENCE;INSTALL_DIR"
                        "SCHEMAS;KERNELS;PYTHON_SOURCES" ${ARGN})
  if(NOT ARG_NAMESPACE)
    message(FATAL_ERROR "opgen_add_library(${target}): NAMESPACE is required")
  endif()
  if(TARGET opgen::opgen)
    set(tool opgen::opgen)
  elseif(TARGET opgen)
    set(tool opgen)
  else()
    message(FATAL_ERROR "opgen_add_library(${target}): no opgen tool; find_package(opgen CONFIG) first, "
                        "or give a built one with -DOPGEN_EXECUTABLE=<path>")
  endif()
  if(NOT ARG_PYTHON_PACKAGE)
    # As the tool's default: `opgen` is the tool's own package (opgen.testing).
    if(ARG_NAMESPACE STREQUAL "opgen")
      set(ARG_PYTHON_PACKAGE opgen_ops)
    else()
      set(ARG_PYTHON_PACKAGE ${ARG_NAMESPACE})
    endif()
  endif()
  if(NOT ARG_TORCH_TARGET_VERSION)
    set(ARG_TORCH_TARGET_VERSION 2.10)
  endif()
  # Relative paths name files of the calling directory, as add_library's do
  # (the tool and the copies run elsewhere).
  foreach(list SCHEMAS KERNELS PYTHON_SOURCES)
    set(absolute)
    foreach(path IN LISTS ARG_${list})
      cmake_path(ABSOLUTE_PATH path BASE_DIRECTORY ${CMAKE_CURRENT_SOURCE_DIR} NORMALIZE)
      list(APPEND absolute ${path})
    endforeach()
    set(ARG_${list} ${absolute})
  endforeach()
  # A directory in SCHEMAS stands for its specs (`*.yaml`, as opgen reads one; `opgen import` prints the specs'
  # directory): the files opgen writes, one TU per op with SHARDS 0 among them, are predicted from their names, the
  # default shard count is theirs, and a spec added there reconfigures the build.
  set(schemas)
  foreach(path IN LISTS ARG_SCHEMAS)
    if(IS_DIRECTORY ${path})
      file(GLOB specs CONFIGURE_DEPENDS ${path}/*.yaml)
      list(SORT specs)
      if(NOT specs)
        set(specs ${path})  # none: opgen says so
      endif()
      list(APPEND schemas ${specs})
    else()
      list(APPEND schemas ${path})
    endif()
  endforeach()
  set(ARG_SCHEMAS ${schemas})
  if(NOT DEFINED ARG_SHARDS)
    # Torch's headers are most of a binding TU's compile time (~10 s with
    # ATen at -O2), an op's own code ~0.2 s. Measured on 150 real schemas, 2
    # cores (bench/build/many_ops.py, docs/benchmarks.md): 2 shards per ABI
    # built as fast as one hand-written binding file (29 s), 4 took 40 s,
    # one TU per op 783 s; an edit rebuilds one shard of ~75 ops in 25 s.
    # A function of the spec count, not of the machine, so the generated
    # tree is the same everywhere.
    list(LENGTH ARG_SCHEMAS spec_count)
    math(EXPR ARG_SHARDS "(${spec_count} + 74) / 75")
    if(ARG_SHARDS GREATER 8)
      set(ARG_SHARDS 8)
    endif()
  endif()
  if(NOT ARG_SHARDS MATCHES "^[0-9]+$" OR ARG_SHARDS GREATER 64)
    message(FATAL_ERROR "opgen_add_library(${target}): SHARDS must be a whole number from 0 to 64, not '${ARG_SHARDS}'")
  endif()
  find_package(Python3 REQUIRED COMPONENTS Interpreter)
  _opgen_find_torch()

  set(cuda_kernels ${ARG_KERNELS})
  list(FILTER cuda_kernels INCLUDE REGEX "\\.cu$")
  set(kernels ${ARG_KERNELS})
  set(exclude_args)
  get_property(languages GLOBAL PROPERTY ENABLED_LANGUAGES)
  if(cuda_kernels AND NOT "CUDA" IN_LIST languages)
    # Without nvcc the ops keep their CPU kernels: the CUDA ones are left
    # out of the build and out of the registrations, so nothing dangles.
    message(WARNING "opgen_add_library(${target}): no CUDA compiler; building without the CUDA kernels")
    list(FILTER kernels EXCLUDE REGEX "\\.cu$")
    set(cuda_kernels)
    set(exclude_args --exclude-dispatch-key CUDA)
  endif()

  # The files opgen writes, predicted from the spec file names.
  set(gen_dir ${CMAKE_CURRENT_BINARY_DIR}/${target}_generated)
  set(op_sources ${gen_dir}/csrc/${ARG_NAMESPACE}-library.cpp)
  set(gen_outputs ${gen_dir}/include/${ARG_NAMESPACE}/opgen_adapt.h)
  foreach(schema IN LISTS ARG_SCHEMAS)
    get_filename_component(op ${schema} NAME_WLE)
    if(op STREQUAL "_types")  # the library's host classes (docs/host-objects.md), not an op
      continue()
    endif()
    list(APPEND op_sources ${gen_dir}/csrc/${op}.cpp)
    list(APPEND gen_outputs ${gen_dir}/include/${ARG_NAMESPACE}/kernels/${op}.h)
  endforeach()
  list(APPEND gen_outputs ${op_sources})
  # The TUs the build compiles: the shards, which include the ops' TUs (the
  # compiler's dependency file then ties each shard to its ops), or else
  # each op's TU.
  set(gen_sources ${op_sources})
  if(ARG_SHARDS GREATER 0)
    set(gen_sources)
    math(EXPR last_shard "${ARG_SHARDS} - 1")
    foreach(abi stable unstable)
      foreach(shard RANGE ${last_shard})
        list(APPEND gen_sources ${gen_dir}/csrc/${ARG_NAMESPACE}-${abi}-shard${shard}.cpp)
      endforeach()
    endforeach()
    list(APPEND gen_outputs ${gen_sources})
  endif()
  set(gen_python ${gen_dir}/python/${ARG_PYTHON_PACKAGE}/_ops.py ${gen_dir}/python/${ARG_PYTHON_PACKAGE}/_ops.pyi
                 ${gen_dir}/python/${ARG_PYTHON_PACKAGE}/py.typed
                 ${gen_dir}/python/${ARG_PYTHON_PACKAGE}/_opgen_runtime.py)
  set(gen_tests ${gen_dir}/tests/test_${ARG_PYTHON_PACKAGE}_ops.py)
  list(APPEND gen_outputs ${gen_python} ${gen_tests})

  set(fragment_arg "")
  if(ARG_FRAGMENT)
    set(fragment_arg --fragment)
  endif()
  add_custom_command(
    OUTPUT ${gen_outputs}
    COMMAND ${tool} generate --namespace ${ARG_NAMESPACE} --python-package ${ARG_PYTHON_PACKAGE}
            --library-name ${target} --torch-target-version ${ARG_TORCH_TARGET_VERSION} --shards ${ARG_SHARDS}
            --source-root ${CMAKE_CURRENT_SOURCE_DIR} ${exclude_args} ${fragment_arg} -o ${gen_dir} ${ARG_SCHEMAS}
    DEPENDS ${ARG_SCHEMAS} ${tool}
    COMMENT "opgen: generating the ${ARG_NAMESPACE} op bindings"
    VERBATIM)

  set(package_dir ${CMAKE_BINARY_DIR}/python/${ARG_PYTHON_PACKAGE})
  add_library(${target} SHARED ${gen_sources} ${kernels})
  target_include_directories(${target} PRIVATE ${gen_dir}/include)
  target_link_libraries(${target} PRIVATE opgen_torch)
  if(ARG_PYTHON_API)
    # Kernels that call Python's C API (they take pybind11 objects: DeepSpeed's
    # DeepCompile state) find the interpreter's symbols, and torch_python's,
    # in the Python process that loads the library, as an extension module
    # does: the link leaves undefined symbols open, those of a kernel nobody
    # defined among them (the package's import then fails, naming it).
    find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
    target_link_libraries(${target} PRIVATE Python3::Module torch_python)
  else()
    if(ARG_PYTHON_HEADERS)
      # A project's source that includes Python.h for what the library does not
      # keep (FlashAttention 3's bindings, for the module init import deletes):
      # the headers, and still no symbol of Python's, which the link checks.
      find_package(Python3 REQUIRED COMPONENTS Interpreter Development.Module)
      target_include_directories(${target} PRIVATE ${Python3_INCLUDE_DIRS})
    endif()
    # A kernel the registrations name but nobody defined is a link error here,
    # not a library that fails to load.
    target_link_options(${target} PRIVATE LINKER:--no-undefined)
  endif()
  # A kernel whose definition no longer matches its generated declaration
  # fails to compile with a message that names neither (GCC: "should have
  # been declared inside"). The compiler runs under `opgen compile`, which
  # then adds a note naming the declaration, its header and its spec. A
  # launcher already set (ccache) still runs, after it.
  foreach(lang CXX CUDA)
    set_property(TARGET ${target} PROPERTY ${lang}_COMPILER_LAUNCHER
                 $<TARGET_FILE:${tool}> compile --kernel-headers ${gen_dir}/include -- ${CMAKE_${lang}_COMPILER_LAUNCHER})
  endforeach()
  # The generated bindings compile warning-free with g++ and clang; keep them
  # so. The kernels are the project's, compiled with the warnings it gives
  # them (an imported project's sources as its own build compiles them).
  set(gen_warnings -Wall -Wextra)
  if(OPGEN_WERROR)
    list(APPEND gen_warnings -Werror)
  endif()
  set_property(SOURCE ${gen_sources} APPEND PROPERTY COMPILE_OPTIONS ${gen_warnings})
  set_target_properties(${target} PROPERTIES
    LIBRARY_OUTPUT_DIRECTORY ${package_dir}
    CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON
    CUDA_STANDARD 20 CUDA_STANDARD_REQUIRED ON
    CUDA_RUNTIME_LIBRARY Shared
    POSITION_INDEPENDENT_CODE ON)
  if(cuda_kernels)
    target_compile_definitions(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:USE_CUDA>)
    target_compile_options(${target} PRIVATE $<$<COMPILE_LANGUAGE:CUDA>:--expt-relaxed-constexpr>)
    target_link_libraries(${target} PRIVATE torch_cuda c10_cuda)
  endif()

  # The Python package: the generated module, stub, py.typed and opgen's runtime, the user's sources,
  # and a default __init__.py unless the user brings one.
  set(package_files)
  foreach(file IN LISTS gen_python ARG_PYTHON_SOURCES)
    get_filename_component(name ${file} NAME)
    add_custom_command(OUTPUT ${package_dir}/${name}
                       COMMAND ${CMAKE_COMMAND} -E copy_if_different ${file} ${package_dir}/${name}
                       DEPENDS ${file} VERBATIM)
    list(APPEND package_files ${package_dir}/${name})
  endforeach()
  set(user_init ${ARG_PYTHON_SOURCES})
  list(FILTER user_init INCLUDE REGEX "/__init__\\.py$")
  set(installed_files ${package_files})
  if(NOT user_init)
    file(WRITE ${package_dir}/__init__.py "from ._ops import *  # noqa: F401,F403\n")
    list(APPEND installed_files ${package_dir}/__init__.py)
  endif()
  add_custom_target(${target}_python ALL DEPENDS ${package_files})
  add_dependencies(${target} ${target}_python)

  if(DEFINED ARG_INSTALL_DIR)
    # The installed package is the build's package directory, file for file.
    # Under scikit-build-core the prefix is the wheel's site-packages, so
    # INSTALL_DIR . puts it at the top of the wheel.
    cmake_path(SET install_dest NORMALIZE "${ARG_INSTALL_DIR}/${ARG_PYTHON_PACKAGE}")
    install(TARGETS ${target} LIBRARY DESTINATION ${install_dest} COMPONENT python)
    install(FILES ${installed_files} DESTINATION ${install_dest} COMPONENT python)
  endif()

  # The generated test suite (from the specs' samples), run by CTest.
  if(BUILD_TESTING OR OPGEN_BUILD_TESTS)
    add_test(NAME ${target}.generated_tests
             COMMAND ${Python3_EXECUTABLE} -m pytest -q -p no:cacheprovider ${gen_tests})
    set_tests_properties(${target}.generated_tests PROPERTIES
                         ENVIRONMENT "PYTHONPATH=${CMAKE_BINARY_DIR}/python:${OPGEN_PYTHON_DIR}")
  endif()

  if(ARG_GENERATED_REFERENCE)
    # A test that the committed tree matches this build's, and the one
    # command that refreshes it.
    add_custom_target(${target}_refresh_generated
      COMMAND ${CMAKE_COMMAND} -E rm -rf ${ARG_GENERATED_REFERENCE}
      COMMAND ${CMAKE_COMMAND} -E copy_directory ${gen_dir} ${ARG_GENERATED_REFERENCE}
      COMMAND ${CMAKE_COMMAND} -E rm -f ${ARG_GENERATED_REFERENCE}/.opgen-stamp
      DEPENDS ${gen_outputs}
      COMMENT "opgen: refreshing ${ARG_GENERATED_REFERENCE}"
      VERBATIM)
    if(exclude_args)
      message(STATUS "opgen_add_library(${target}): not comparing with ${ARG_GENERATED_REFERENCE} (CUDA left out)")
    elseif(BUILD_TESTING OR OPGEN_BUILD_TESTS)
      add_test(NAME ${target}.generated_is_committed
               COMMAND ${CMAKE_COMMAND} -DEXPECTED=${ARG_GENERATED_REFERENCE} -DACTUAL=${gen_dir}
                       "-DREFRESH=cmake --build ${CMAKE_BINARY_DIR} --target ${target}_refresh_generated"
                       -P ${_OPGEN_CMAKE_DIR}/OpgenCompareTrees.cmake)
    endif()
  endif()
endfunction()

set(_OPGEN_CMAKE_DIR ${CMAKE_CURRENT_LIST_DIR} CACHE INTERNAL "")
