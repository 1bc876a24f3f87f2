# SPDX-License-Identifier: Apache-2.0
# One helper to register a cmocka test binary with a timeout.

# box_test(NAME SOURCES src... LIBS lib... [TIMEOUT s])
function(box_test name)
  cmake_parse_arguments(T "" "TIMEOUT" "SOURCES;LIBS" ${ARGN})
  if(NOT T_TIMEOUT)
    set(T_TIMEOUT 120)
  endif()
  add_executable(${name} ${T_SOURCES})
  target_link_libraries(${name} PRIVATE ${T_LIBS} PkgConfig::CMOCKA)
  add_test(NAME ${name} COMMAND ${name})
  set_tests_properties(${name} PROPERTIES TIMEOUT ${T_TIMEOUT}
    ENVIRONMENT "BOX_BUILD_DIR=${CMAKE_BINARY_DIR};BOX_SOURCE_DIR=${CMAKE_SOURCE_DIR}")
endfunction()
