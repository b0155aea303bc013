# embed.cmake - write the kernel class document into a C source file, so the decoder library
# carries its description of the classic kernel events and needs no data file at run time.
#
#   cmake -DINPUT=kernel-classes.man -DOUTPUT=kernel_classes_data.c [-DNAME=symbol] -P embed.cmake
#
# NAME (default etl_kernel_classes_man) names the array; NAME_len is its length.  The built-in
# packet capture document (../packet/packet-capture.man) is embedded the same way.
#
# The bytes become a hex array (a string literal this long would exceed what C compilers must
# accept), with a NUL after them so the text can also be read as a C string.
if(NOT DEFINED NAME)
  set(NAME etl_kernel_classes_man)
endif()
get_filename_component(input_name "${INPUT}" NAME)
file(READ "${INPUT}" hex HEX)
string(LENGTH "${hex}" hexlen)
math(EXPR len "${hexlen} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){24})" "\\1\n" body "${body}")
file(WRITE "${OUTPUT}.tmp"
"/* Generated from ${input_name} by decoder/schema/kernel/embed.cmake: do not edit. */
#include <stddef.h>
const unsigned char ${NAME}[] = {
${body}0x00};
const size_t ${NAME}_len = ${len};
")
# only touch the output when it changed, so dependents do not rebuild for nothing
execute_process(COMMAND ${CMAKE_COMMAND} -E copy_if_different "${OUTPUT}.tmp" "${OUTPUT}")
file(REMOVE "${OUTPUT}.tmp")
