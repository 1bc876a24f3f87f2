cat <<EOF
x=$((1+2)) ${HOME#/}
EOF
cat <<< "here string $((2**3))"
