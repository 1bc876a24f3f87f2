a=$(printf "%s" "$(echo inner)"); echo "$a" $(( $(echo 3) + 4 )) `echo back`
