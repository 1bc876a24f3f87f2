v=hello; set -- a 'b c' d
echo ${v:1} ${v: -2:1} ${v:(-3):-1} ${v:i+1:n*2} ${@:2} "${*:1:2}"
echo ${v/l/L} ${v//l} ${v/#h/H} ${v/%o/O} "${v//\//-}" "${v/'l'/\&}"
a=v; echo ${!a} ${!a:-x} ${!a/l/&} ${!v*} "${!v@}" ${!#}
echo ${v@Q} ${v@E} ${v@A} ${v@a} ${v@U} ${v@u} ${v@L} ${v@K} "${@@Q}"
echo $'a\tb\x41\u00e9\U0001F600\101\cA\e\'' $"plain $v" $[1+2*3] $(( ${#v} + ${v:0:1}0 ))
cat <<END
${v:1:2} ${v/l/'x'} $'kept'
END
