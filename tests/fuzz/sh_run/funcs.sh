f() { local x=$1; echo $(( x * 2 )); return $((x % 256)); }; f 3; f 257; echo $?; g() { f "$@"; }; g 4
