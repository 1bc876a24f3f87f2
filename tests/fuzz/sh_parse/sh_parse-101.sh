cat <<A <<B
a
A
b
B