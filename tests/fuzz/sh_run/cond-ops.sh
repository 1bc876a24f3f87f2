[[ -n "" ]]; echo $?; [[ -z x ]]; echo $?; [[ 1 -eq 1.0 ]]; echo $?; [[ -v HOME && -d / && ! -e /nope ]] && echo ok; [[ 3+4 -eq 7 ]] && echo arith
