echo a\
b