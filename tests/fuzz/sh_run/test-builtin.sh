test 1 -lt 2 -a \( abc = abc -o x \); echo $?; [ -n x ] && [ ! -z y ]; echo $?
