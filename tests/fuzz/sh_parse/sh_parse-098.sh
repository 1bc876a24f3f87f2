cat <<\E
$x
E