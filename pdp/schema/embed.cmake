# SPDX-License-Identifier: Apache-2.0
# Turns a data file into a C array at build time: cmake -DIN=f -DOUT=c -DSYM=name -P embed.cmake

file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" nhex)
math(EXPR nbytes "${nhex} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){16})" "\\1\n    " body "${body}")
file(WRITE "${OUT}.tmp"
  "/* SPDX-License-Identifier: Apache-2.0 */\n"
  "/* Generated from ${IN} by pdp/schema/embed.cmake; do not edit. */\n"
  "#include <stddef.h>\n\n"
  "const char ${SYM}[] = {\n    ${body}0x00\n};\n"
  "const size_t ${SYM}_len = ${nbytes};\n")
file(RENAME "${OUT}.tmp" "${OUT}")
