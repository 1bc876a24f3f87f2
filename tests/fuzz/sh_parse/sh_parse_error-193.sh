cat <<EOF
a