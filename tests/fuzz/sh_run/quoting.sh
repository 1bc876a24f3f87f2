echo $'a\tb\x41\u263a' $"loc" 'lit$x' "${HOME}"\"; IFS=:; v=a:b::c; set -- $v; echo $#
