unset a; echo ${a:-d} ${a-e} ${a:=f} $a ${a:+g} ${b+h}; echo ${#a} ${c:?missing}
