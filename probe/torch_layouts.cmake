# PyTorch releases the probe recognises (included by probe/CMakeLists.txt).
#
# tools/torch_layout_gen.cpp is compiled against each libtorch header set
# found and run once; what it prints, one TorchLayout initializer per release
# (src/torch_layout.h), goes into generated/torch_layouts.inc, which
# src/recognise_torch.cpp compiles in. A release found twice keeps its first
# header set. Header sets, in order:
#   REFSCOPE_TORCH_INCLUDE_DIRS (cache, list): e.g. a wheel's torch/include;
#   /usr/include when it has c10/core/TensorImpl.h (Debian's libtorch-dev);
#   libtorch-dev packages unpacked under REFSCOPE_THIRD_PARTY_DIR
#   (packaging/fetch-third-party.sh).
# A measured layout is kept in ${CMAKE_CURRENT_BINARY_DIR}/torch-layouts/,
# named after the header set's path, its TensorImpl.h, the compiler and the
# generator, so reconfiguring measures again only when one of them changes.
set(REFSCOPE_TORCH_INCLUDE_DIRS "" CACHE STRING "Extra libtorch include directories to measure")
set(_torch_verified 2.6 2.14)

set(_torch_dirs ${REFSCOPE_TORCH_INCLUDE_DIRS})
if(EXISTS /usr/include/c10/core/TensorImpl.h)
    list(APPEND _torch_dirs /usr/include)
endif()
file(GLOB _found LIST_DIRECTORIES true "${REFSCOPE_THIRD_PARTY_DIR}/libtorch-dev-*/usr/include")
list(SORT _found)
list(APPEND _torch_dirs ${_found})

set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${CMAKE_CURRENT_SOURCE_DIR}/tools/torch_layout_gen.cpp)
file(MD5 ${CMAKE_CURRENT_SOURCE_DIR}/tools/torch_layout_gen.cpp _generator_hash)
set(_torch_inc "")
set(_torch_releases "")
foreach(_dir IN LISTS _torch_dirs)
    if(NOT EXISTS "${_dir}/c10/core/TensorImpl.h")
        message(STATUS "refscope probe: ${_dir} has no c10/core/TensorImpl.h; no PyTorch layout from it")
        continue()
    endif()
    file(MD5 "${_dir}/c10/core/TensorImpl.h" _header_hash)
    set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_dir}/c10/core/TensorImpl.h")
    string(MD5 _key "${_dir} ${_header_hash} ${_generator_hash} ${CMAKE_CXX_COMPILER_ID} ${CMAKE_CXX_COMPILER_VERSION}")
    set(_measured ${CMAKE_CURRENT_BINARY_DIR}/torch-layouts/${_key}.inc)
    if(NOT EXISTS ${_measured})
        # Private members are read with -fno-access-control; nothing links
        # libc10 (inline functions the headers emit are never called).
        try_run(_ran _compiled ${CMAKE_CURRENT_BINARY_DIR}/torch-layouts/${_key}
                ${CMAKE_CURRENT_SOURCE_DIR}/tools/torch_layout_gen.cpp
                CMAKE_FLAGS "-DINCLUDE_DIRECTORIES=${_dir}"
                COMPILE_DEFINITIONS -w -O1 -fno-access-control
                LINK_OPTIONS -Wl,--unresolved-symbols=ignore-all
                CXX_STANDARD 20 CXX_STANDARD_REQUIRED ON
                COMPILE_OUTPUT_VARIABLE _log RUN_OUTPUT_VARIABLE _layout)
        if(NOT _compiled OR NOT _ran EQUAL 0 OR NOT _layout MATCHES "^{\\.major = ")
            string(LENGTH "${_log}" _length)
            if(_length GREATER 2000)
                string(SUBSTRING "${_log}" 0 2000 _log)
            endif()
            message(STATUS "refscope probe: cannot measure PyTorch's layout in ${_dir}; not recognised:\n${_log}")
            continue()
        endif()
        file(WRITE ${_measured} "${_layout}")
    endif()
    file(READ ${_measured} _layout)
    string(REGEX MATCH "\\.major = ([0-9]+), \\.minor = ([0-9]+)" _ "${_layout}")
    set(_release "${CMAKE_MATCH_1}.${CMAKE_MATCH_2}")
    if(_release IN_LIST _torch_releases)
        continue()
    endif()
    if(NOT _release IN_LIST _torch_verified AND NOT _dir IN_LIST REFSCOPE_TORCH_INCLUDE_DIRS)
        message(STATUS "refscope probe: PyTorch ${_release} in ${_dir} is not a verified release "
                       "(${_torch_verified}); not recognised (give it as REFSCOPE_TORCH_INCLUDE_DIRS to try it)")
        continue()
    endif()
    list(APPEND _torch_releases ${_release})
    string(APPEND _torch_inc "// PyTorch ${_release}, measured in ${_dir}\n${_layout}")
    message(STATUS "refscope probe: recognises PyTorch ${_release} (${_dir})")
endforeach()
if(NOT _torch_releases)
    message(STATUS "refscope probe: no libtorch headers found; PyTorch not recognised "
                   "(packaging/fetch-third-party.sh fetches them)")
endif()
set_property(GLOBAL PROPERTY REFSCOPE_TORCH_RELEASES "${_torch_releases}")
file(GENERATE OUTPUT ${CMAKE_CURRENT_BINARY_DIR}/generated/torch_layouts.inc CONTENT "${_torch_inc}")
