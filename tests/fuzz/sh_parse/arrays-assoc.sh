declare -A m=([k]=v); m[$k]+=x; a[${b[1]}]=2
