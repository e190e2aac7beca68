# The Debian package and the .tar.gz of the same tree (docs/packaging.md,
# "The Debian package"), included by packaging/CMakeLists.txt once the wheels
# are known (${_wheels}).
#
# The installed tree is what `cmake --install` writes: the app's own rules
# (app/gui/window, app/cli: binaries, .desktop, icon, shared-mime-info) and
# the ones below. make_deb.py installs it into a staging folder with
# --prefix /usr --strip and packs it; it is not part of `all` (an install, a
# strip, and an xz and a gzip of 10 MB: about 9 s here):
#
#   cmake --build build/dev --target refscope_package
#       -> build/dev/packages/refscope_<version>_<arch>.deb and .tar.gz
#
# Results, for tests/packaging:
#   REFSCOPE_DEB_PACKER   (global property) the environment that lets a test
#                         pack as the target does, into a folder of its own:
#                         REFSCOPE_MAKE_DEB, REFSCOPE_BUILD_DIR,
#                         REFSCOPE_VERSION, REFSCOPE_CMAKE
if(NOT TARGET refscope OR NOT TARGET refscope-cli)
    return()
endif()
include(GNUInstallDirs)

set(_resources ${PROJECT_SOURCE_DIR}/resources)
install(FILES ${_resources}/refscope.metainfo.xml DESTINATION ${CMAKE_INSTALL_DATADIR}/metainfo)
install(FILES ${_resources}/man/refscope.1 ${_resources}/man/refscope-cli.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${_resources}/completion/refscope-cli.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME refscope-cli)

# The probe, in the place the app looks for it (<bindir>/../lib/refscope,
# app/gui/session/probe_location.cpp): the wheels as built, for
# `pip install` into a venv, and one package folder with every wheel's
# refscope/ unpacked into it, so it holds an extension for each Python the
# build had (the modules are the same in every wheel). Taken from the wheels
# so that what is installed is exactly what the wheels ship.
set(_probe_dir lib/refscope)
install(FILES ${_wheels} DESTINATION ${_probe_dir}/wheels)
foreach(_wheel IN LISTS _wheels)
    install(CODE "file(ARCHIVE_EXTRACT INPUT \"${_wheel}\"
        DESTINATION \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${_probe_dir}/python\" PATTERNS \"refscope/*\")")
endforeach()

list(GET _pythons 0 _packer_python)
set(_packer ${_packer_python} -B ${CMAKE_CURRENT_SOURCE_DIR}/make_deb.py
    --build-dir ${CMAKE_BINARY_DIR} --version ${PROJECT_VERSION} --cmake ${CMAKE_COMMAND})
set_property(GLOBAL PROPERTY REFSCOPE_DEB_PACKER "REFSCOPE_MAKE_DEB=${CMAKE_CURRENT_SOURCE_DIR}/make_deb.py"
    "REFSCOPE_BUILD_DIR=${CMAKE_BINARY_DIR}" "REFSCOPE_VERSION=${PROJECT_VERSION}" "REFSCOPE_CMAKE=${CMAKE_COMMAND}")
add_custom_target(refscope_package
    COMMAND ${_packer} --out-dir ${CMAKE_BINARY_DIR}/packages
    COMMENT "refscope Debian package and .tar.gz (build/dev/packages)"
    VERBATIM)
add_dependencies(refscope_package refscope refscope-cli refscope_wheels)
