# FetchWiresharkPrivateHeaders.cmake - make Wireshark's file-reader headers available.
#
# WHY THIS EXISTS
#   A Wireshark file reader (a "wiretap" plugin such as plugin/etl_wiretap.c) must fill in
#   `struct wtap` (fh, random_fh, priv, subtype_read, subtype_seek_read, file_type_subtype,
#   file_encap, file_tsprec, ...) and use wtap_read_bytes()/wtap_add_generated_idb().  Up to
#   Wireshark 4.4 those live in the PRIVATE header wiretap/wtap-int.h, which distributions do
#   not install (Debian 12's libwiretap-dev 4.0.17 does not; neither does 4.4).  The installed
#   wiretap/file_wrappers.h also includes <wsutil/file_util.h>, which is not installed either.
#   Wireshark's own plugins build inside its source tree and never notice.
#
#   `struct wtap` changes layout between minor releases (4.4 inserts fields before `priv`), so
#   the header must come from the EXACT version the plugin will be loaded into, never from a
#   copy kept in this repository (and this project commits no Wireshark file).  So at build
#   time we take the two headers from the Debian source package of the installed version
#   (`dpkg-query` tells the version of libwiretap-dev; apt fetches `wireshark=<that version>`
#   through a private configuration that turns the system's `deb` entries into `deb-src`
#   entries; see cmake/fetch-wireshark-private-headers.sh).  The result is cached in the build
#   tree and reused by every later configure.
#
#   Wireshark 4.6 installs wiretap/wtap_module.h (the public home of `struct wtap`) and
#   wsutil/file_util.h, so nothing is fetched there.
#
# USAGE
#   include(FetchWiresharkPrivateHeaders)   # after find_package(Wireshark ... CONFIG)
#   etlshark_wireshark_private_headers(<dir_var> <ok_var> <why_var>)
#   if(<ok_var>) target_include_directories(<reader> PRIVATE ${<dir_var>}) endif()
#   <dir_var> may be empty (nothing to add: the installed headers suffice).  When the headers
#   cannot be had, <ok_var> is FALSE and <why_var> says what is missing and how to get it; the
#   caller decides whether that stops configure (plugin/CMakeLists.txt builds the dissector and
#   etldump anyway unless ETLSHARK_REQUIRE_READER is ON).  A failed download is remembered in the
#   cache folder for the same version, so later configures do not wait for it again; delete
#   <cache>/<package>-<version>.failed (or the build folder) to retry.
#
# INPUTS (cache variables)
#   ETLSHARK_WIRESHARK_SOURCE_DIR  a Wireshark source tree of exactly the installed version;
#                                  when set, the headers are copied from it (no download).
#   ETLSHARK_WIRESHARK_PRIVATE_HEADERS_CACHE  where fetched headers are kept
#                                  (default: <build>/wireshark-private-headers).
#   ETLSHARK_FETCH_WIRESHARK_HEADERS  OFF: never download (configure offline); default ON.
# ENVIRONMENT
#   ETLSHARK_APT_SOURCES           a one-line-format apt source list the download uses instead
#                                  of the system's entries (a private mirror; the tests point it
#                                  at nothing to exercise the failure path).

set(_etlshark_fwph_dir "${CMAKE_CURRENT_LIST_DIR}")

function(etlshark_wireshark_private_headers out_var ok_var why_var)
    if(NOT DEFINED Wireshark_VERSION)
        message(FATAL_ERROR "etlshark_wireshark_private_headers: call find_package(Wireshark CONFIG) first")
    endif()
    set(_ver "${Wireshark_VERSION}")
    set(_inc "${Wireshark_INCLUDE_DIR}")

    # 4.6+: the public wtap_module.h replaces wtap-int.h.
    if(_ver VERSION_GREATER_EQUAL 4.6)
        if(NOT EXISTS "${_inc}/wiretap/wtap_module.h")
            _etlshark_fwph_unavailable("Wireshark ${_ver} should install "
                "${_inc}/wiretap/wtap_module.h, but it is missing: install the Wireshark "
                "development package (libwiretap-dev).")
            return()
        endif()
        _etlshark_fwph_found("")
        return()
    endif()

    # Some packagings may install the private headers: then use them.
    if(EXISTS "${_inc}/wiretap/wtap-int.h" AND EXISTS "${_inc}/wsutil/file_util.h")
        _etlshark_fwph_found("")
        return()
    endif()

    set(ETLSHARK_WIRESHARK_SOURCE_DIR "" CACHE PATH
        "Wireshark source tree of exactly the installed version (provides wiretap/wtap-int.h)")
    set(ETLSHARK_WIRESHARK_PRIVATE_HEADERS_CACHE "${CMAKE_BINARY_DIR}/wireshark-private-headers"
        CACHE PATH "Where Wireshark's private headers fetched at build time are kept")
    option(ETLSHARK_FETCH_WIRESHARK_HEADERS
        "Download Wireshark's private headers from the Debian source package when needed" ON)

    set(_headers wiretap/wtap-int.h wsutil/file_util.h)

    # (a) An explicit source tree.
    if(ETLSHARK_WIRESHARK_SOURCE_DIR)
        set(_dest "${ETLSHARK_WIRESHARK_PRIVATE_HEADERS_CACHE}/from-source-tree")
        foreach(_h IN LISTS _headers)
            if(NOT EXISTS "${ETLSHARK_WIRESHARK_SOURCE_DIR}/${_h}")
                message(FATAL_ERROR "ETLSHARK_WIRESHARK_SOURCE_DIR=${ETLSHARK_WIRESHARK_SOURCE_DIR} "
                    "has no ${_h}; point it at a Wireshark ${_ver} source tree.")
            endif()
            get_filename_component(_sub "${_h}" DIRECTORY)
            file(COPY "${ETLSHARK_WIRESHARK_SOURCE_DIR}/${_h}" DESTINATION "${_dest}/${_sub}")
        endforeach()
        message(STATUS "Wireshark private headers: from ${ETLSHARK_WIRESHARK_SOURCE_DIR}")
        _etlshark_fwph_found("${_dest}")
        return()
    endif()

    # (No semicolons in these texts: CMake would read them as list separators.)
    string(CONCAT _missing "The .etl file reader (etl_reader.so) needs wiretap/wtap-int.h and "
        "wsutil/file_util.h of exactly Wireshark ${_ver}. Wireshark installs them only from 4.6 "
        "on.")
    string(CONCAT _howto
        "To build the reader, either\n"
        "  * let apt reach the Debian source packages of your mirrors (this build uses the deb "
        "entries of /etc/apt/sources.list.d/*.sources and /etc/apt/sources.list as deb-src "
        "through a private apt configuration, nothing on the system is changed), or\n"
        "  * fetch the source yourself: add `deb-src` to the `Types:` line of "
        "/etc/apt/sources.list.d/debian.sources (`Types: deb deb-src`, or in the one-line format a "
        "`deb-src` line beside each `deb` line), run `apt-get update` and "
        "`apt-get source wireshark=<installed Debian version>`, then configure with "
        "-DETLSHARK_WIRESHARK_SOURCE_DIR=/path/to/wireshark-${_ver}\n"
        "  (a Wireshark ${_ver} source tarball from wireshark.org, unpacked, works too, and on "
        "macOS and Windows it is the only way).")

    # (b) The Debian source package of the installed version.
    find_program(ETLSHARK_DPKG_QUERY dpkg-query)
    if(NOT ETLSHARK_DPKG_QUERY)
        _etlshark_fwph_unavailable("${_missing} This is not a Debian-based system, where they "
            "could be fetched automatically. Configure with "
            "-DETLSHARK_WIRESHARK_SOURCE_DIR=/path/to/wireshark-${_ver} (an unpacked Wireshark "
            "${_ver} source tree).")
        return()
    endif()
    execute_process(
        COMMAND ${ETLSHARK_DPKG_QUERY} -W "-f=\${Version}\n\${source:Package}" libwiretap-dev
        OUTPUT_VARIABLE _dpkg_out RESULT_VARIABLE _dpkg_rc ERROR_QUIET
        OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(NOT _dpkg_rc EQUAL 0 OR _dpkg_out STREQUAL "")
        _etlshark_fwph_unavailable("${_missing} dpkg-query does not know libwiretap-dev, so the "
            "installed Debian version (whose source package holds them) is unknown: install it "
            "(apt-get install libwiretap-dev) or configure with "
            "-DETLSHARK_WIRESHARK_SOURCE_DIR=/path/to/wireshark-${_ver}.")
        return()
    endif()
    string(REPLACE "\n" ";" _dpkg_list "${_dpkg_out}")
    list(GET _dpkg_list 0 _deb_version)
    list(GET _dpkg_list 1 _src_pkg)
    if(_src_pkg STREQUAL "")
        set(_src_pkg wireshark)
    endif()
    # The Debian version must be the one CMake found (upstream part, e.g. 4.0.17 of 4.0.17-0+deb12u3).
    string(REGEX REPLACE "^([0-9]+:)?([0-9]+\\.[0-9]+\\.[0-9]+).*$" "\\2" _deb_upstream "${_deb_version}")
    if(NOT _deb_upstream STREQUAL _ver)
        _etlshark_fwph_unavailable("${_missing} libwiretap-dev is ${_deb_version} but the "
            "Wireshark CMake package found is ${_ver}, so its source package would not match. "
            "Configure with -DETLSHARK_WIRESHARK_SOURCE_DIR=/path/to/wireshark-${_ver}.")
        return()
    endif()

    string(REGEX REPLACE "[^A-Za-z0-9.+_-]" "_" _ver_dir "${_deb_version}")
    set(_dest "${ETLSHARK_WIRESHARK_PRIVATE_HEADERS_CACHE}/${_src_pkg}-${_ver_dir}")
    set(_have TRUE)
    foreach(_h IN LISTS _headers)
        if(NOT EXISTS "${_dest}/${_h}")
            set(_have FALSE)
        endif()
    endforeach()
    if(EXISTS "${_dest}/VERSION")
        file(READ "${_dest}/VERSION" _stamp)
        string(STRIP "${_stamp}" _stamp)
        if(NOT _stamp STREQUAL "${_src_pkg} ${_deb_version}")
            set(_have FALSE)
        endif()
    else()
        set(_have FALSE)
    endif()

    set(_failed "${_dest}.failed")
    if(NOT _have AND EXISTS "${_failed}")
        # Tried for this very version at an earlier configure and failed: say so again, but do
        # not wait for apt again.
        file(READ "${_failed}" _why)
        _etlshark_fwph_unavailable("${_why}\n(Remembered from an earlier configure: delete "
            "${_failed} to try the download again.)")
        return()
    endif()
    if(NOT _have AND NOT ETLSHARK_FETCH_WIRESHARK_HEADERS)
        _etlshark_fwph_unavailable("${_missing} They would come from the Debian source package "
            "${_src_pkg}=${_deb_version}, but ETLSHARK_FETCH_WIRESHARK_HEADERS is OFF.\n" ${_howto})
        return()
    endif()
    if(NOT _have)
        message(STATUS "Wireshark private headers: fetching from Debian source package "
            "${_src_pkg}=${_deb_version} (once; cached in ${_dest})")
        execute_process(
            COMMAND sh "${_etlshark_fwph_dir}/fetch-wireshark-private-headers.sh"
                    "${_src_pkg}" "${_deb_version}" "${_dest}" "${_dest}.work"
            RESULT_VARIABLE _rc
            OUTPUT_VARIABLE _fetch_log ERROR_VARIABLE _fetch_log
            TIMEOUT 900)
        if(NOT _rc EQUAL 0)
            file(REMOVE_RECURSE "${_dest}")
            # The fetch script's last ERROR line says which step failed.
            string(REGEX MATCHALL "ERROR: [^\n]*" _errs "${_fetch_log}")
            set(_err "the download did not finish (${_rc})")
            if(_errs)
                list(GET _errs -1 _err)
            endif()
            file(WRITE "${_dest}.fetch.log" "${_fetch_log}")
            string(CONCAT _why "${_missing} Fetching them from the Debian source package "
                "${_src_pkg}=${_deb_version} failed: ${_err} (full log: ${_dest}.fetch.log).\n"
                ${_howto})
            file(WRITE "${_failed}" "${_why}")
            _etlshark_fwph_unavailable("${_why}")
            return()
        endif()
    else()
        message(STATUS "Wireshark private headers: cached in ${_dest}")
    endif()
    _etlshark_fwph_found("${_dest}")
endfunction()

# Results of etlshark_wireshark_private_headers (macros: they set the caller's variables).
macro(_etlshark_fwph_found dir)
    set(${out_var} "${dir}" PARENT_SCOPE)
    set(${ok_var} TRUE PARENT_SCOPE)
    set(${why_var} "" PARENT_SCOPE)
endmacro()
macro(_etlshark_fwph_unavailable)
    string(CONCAT _etlshark_fwph_why ${ARGN})
    set(${out_var} "" PARENT_SCOPE)
    set(${ok_var} FALSE PARENT_SCOPE)
    set(${why_var} "${_etlshark_fwph_why}" PARENT_SCOPE)
endmacro()
