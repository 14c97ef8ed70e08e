# Finds the CUDA libraries that come beside the toolkit, in a Debian prefix or in Python wheels
# (site-packages/nvidia/<package>/{include,lib}). Wheels, and some toolkits, hold only the versioned file
# (libcudnn.so.9, libnccl.so.2, libcublasLt.so.13); find_library adds the lib prefix and the .so suffix only to
# a plain name, so each versioned file name is given in full. Included by Dependencies.cmake and by the
# configure test in tests/cmake, which runs it on a fake prefix tree.
#
# Inputs: CUDAToolkit_LIBRARY_DIR and CUDAToolkit_INCLUDE_DIRS (FindCUDAToolkit), MLBENCH_EXTRA_PREFIXES.

# The folders searched, in this order: the toolkit's, each extra prefix and each prefix's nvidia/* wheel folders.
function(mlbench_cuda_search_hints out)
  set(hints ${CUDAToolkit_LIBRARY_DIR} ${CUDAToolkit_INCLUDE_DIRS} ${MLBENCH_EXTRA_PREFIXES})
  foreach(prefix ${MLBENCH_EXTRA_PREFIXES})
    file(GLOB wheel_dirs LIST_DIRECTORIES true "${prefix}/nvidia/*")
    list(APPEND hints ${wheel_dirs})
  endforeach()
  set(${out} ${hints} PARENT_SCOPE)
endfunction()

# mlbench_find_cuda_lib(<var> <target> <header> <lib> <major>...): finds <header> and lib<lib>.so or
# lib<lib>.so.<major> (every folder is searched for all names before the next one, so the toolkit's copy wins)
# and creates the imported target <target>. Sets <var>_FOUND (1 or 0) and <var>_DETAIL (what was found, or
# what is missing) in the caller; the cache holds <var>_INCLUDE_DIR and <var>_LIBRARY.
function(mlbench_find_cuda_lib var target header lib)
  set(names ${lib})
  set(shown lib${lib}.so)
  foreach(major ${ARGN})
    list(APPEND names lib${lib}.so.${major})
    string(APPEND shown " or lib${lib}.so.${major}")
  endforeach()
  mlbench_cuda_search_hints(hints)
  find_path(${var}_INCLUDE_DIR ${header} HINTS ${hints} PATH_SUFFIXES include)
  find_library(${var}_LIBRARY NAMES ${names} NAMES_PER_DIR HINTS ${hints}
               PATH_SUFFIXES lib lib64 lib/x86_64-linux-gnu)
  if(${var}_INCLUDE_DIR AND ${var}_LIBRARY)
    add_library(${target} UNKNOWN IMPORTED)
    set_target_properties(${target} PROPERTIES IMPORTED_LOCATION ${${var}_LIBRARY}
                                               INTERFACE_INCLUDE_DIRECTORIES ${${var}_INCLUDE_DIR})
    set(${var}_FOUND 1 PARENT_SCOPE)
    set(${var}_DETAIL "(${${var}_LIBRARY})" PARENT_SCOPE)
  else()
    set(missing)
    if(NOT ${var}_INCLUDE_DIR)
      list(APPEND missing ${header})
    endif()
    if(NOT ${var}_LIBRARY)
      list(APPEND missing ${shown})
    endif()
    list(JOIN missing " and " missing)
    set(${var}_FOUND 0 PARENT_SCOPE)
    set(${var}_DETAIL "(${missing} not found)" PARENT_SCOPE)
  endif()
endfunction()
