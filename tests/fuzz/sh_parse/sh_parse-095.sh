cat <<EOF
hello $x
`y` $(z) \$ \\ \" '
EOF