# ember's CMake package: build a C++/CUDA extension against an installed ember.
#
#   find_package(Python COMPONENTS Interpreter Development.Module REQUIRED)
#   execute_process(COMMAND "${Python_EXECUTABLE}" -c "import ember.utils; print(ember.utils.cmake_prefix_path)"
#                   OUTPUT_VARIABLE ember_prefix OUTPUT_STRIP_TRAILING_WHITESPACE)
#   find_package(ember CONFIG REQUIRED PATHS "${ember_prefix}")   # or CMAKE_PREFIX_PATH
#   pybind11_add_module(my_ext my_ext.cpp)
#   target_link_libraries(my_ext PRIVATE ember::ember)
#
# ember::ember is an interface target: ember's public headers (include/ember/,
# docs/extensions.md) and C++17. It links nothing of ember: the extension finds
# ember's C API table at run time (ember._C._C_API), so it works with any ember
# of the same C API version. Variables: ember_INCLUDE_DIRS, ember_ROOT_DIR (the
# installed package), ember_PYBIND11_INCLUDE_DIR (the pybind11 headers ember was
# built with, for projects that do not bring their own).
get_filename_component(ember_ROOT_DIR "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)
set(ember_INCLUDE_DIRS "${ember_ROOT_DIR}/include")
set(ember_PYBIND11_INCLUDE_DIR "${ember_ROOT_DIR}/include/third_party")
if(NOT EXISTS "${ember_INCLUDE_DIRS}/ember/extension.h")
  set(ember_FOUND FALSE)
  set(ember_NOT_FOUND_MESSAGE "ember's headers are missing under ${ember_INCLUDE_DIRS}: reinstall ember")
  return()
endif()
if(NOT TARGET ember::ember)
  add_library(ember::ember INTERFACE IMPORTED)
  set_target_properties(ember::ember PROPERTIES
    INTERFACE_INCLUDE_DIRECTORIES "${ember_INCLUDE_DIRS}"
    INTERFACE_COMPILE_FEATURES cxx_std_17
    INTERFACE_LINK_LIBRARIES "${CMAKE_DL_LIBS}")
endif()
