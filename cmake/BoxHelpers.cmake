# SPDX-License-Identifier: Apache-2.0
# The helpers that register tests: box_test (cmocka) and box_fuzz (fuzz targets).

# box_test(NAME SOURCES src... LIBS lib... [TIMEOUT s])
# SHARDS N registers N tests NAME_0 … NAME_{N-1} of the one binary, each
# with BOX_TEST_SHARD=K/N (the test runs its K-th share of its cases), so
# ctest -j runs a long table in parallel, each share with its own timeout.
function(box_test name)
  cmake_parse_arguments(T "" "TIMEOUT;SHARDS" "SOURCES;LIBS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} PkgConfig::CMOCKA)
  set(env "BOX_BUILD_DIR=${CMAKE_BINARY_DIR};BOX_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
  if(NOT T_SHARDS)
    add_test(NAME ${name} COMMAND ${name})
    set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT}
      ENVIRONMENT "${env}")
    return()
  endif()
  math(EXPR last "${T_SHARDS} - 1")
  foreach(k RANGE 0 ${last})
    add_test(NAME ${name}_${k} COMMAND ${name})
    set_tests_properties(${name}_${k} PROPERTIES TIMEOUT ${T_TIMEOUT}
      ENVIRONMENT "${env};BOX_TEST_SHARD=${k}/${T_SHARDS}")
  endforeach()
endfunction()

# box_fuzz(NAME SOURCES src... LIBS lib...)
# One fuzz target: SOURCES define LLVMFuzzerTestOneInput (tests/fuzz/
# box_fuzz.h). With BOX_FUZZ (clang) it is the libFuzzer binary fuzz_NAME,
# built by the `fuzz` target; otherwise, with BOX_TESTS, the same entry
# point is linked to the replay main and the ctest fuzz_NAME_replay runs
# every file under tests/fuzz/NAME/ (seeds and kept crashes) through it,
# so a crash once fixed stays fixed in every test build.
function(box_fuzz name)
  cmake_parse_arguments(F "" "" "SOURCES;LIBS" ${ARGN})
  if(BOX_FUZZ)
    add_executable(fuzz_${name} ${F_SOURCES})
    target_link_libraries(fuzz_${name} PRIVATE ${F_LIBS})
    target_link_options(fuzz_${name} PRIVATE -fsanitize=fuzzer)
    add_dependencies(fuzz fuzz_${name})
  elseif(BOX_TESTS)
    add_executable(fuzz_${name} ${F_SOURCES} ${BOX_FUZZ_DIR}/fuzz_replay.c)
    target_link_libraries(fuzz_${name} PRIVATE ${F_LIBS})
    add_test(NAME fuzz_${name}_replay
             COMMAND fuzz_${name} ${BOX_FUZZ_DIR}/${name})
    set_tests_properties(fuzz_${name}_replay PROPERTIES TIMEOUT 300)
  endif()
endfunction()
