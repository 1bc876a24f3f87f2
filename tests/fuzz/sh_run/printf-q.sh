printf "%q\n" "a b" "it's" $'\t\n' "" "*?[" "é"
