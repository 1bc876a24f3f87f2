a=(x [5]=yy z); declare -A m=([k]=v [j k]=w); echo "${a[@]:1:2}" "${a[@]/y/Y}" "${!a[@]}" "${m[@]@Q}" ${#a[@]} "${!a[1]}" "${a[*]^^}"; unset 'a[5]' m[k]; mapfile -t L <<< $'1\n2'; echo "${L[@]: -1}"
