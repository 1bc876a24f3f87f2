shopt -s extglob; [[ aab == +(a)b ]] && echo 1; [[ x == !(y) ]] && echo 2; [[ ab == @(a|b)* ]] && echo 3
