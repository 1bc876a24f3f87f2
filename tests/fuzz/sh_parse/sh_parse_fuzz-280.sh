echo $(echo $(echo "$(a)")) 'q' \x "a\"b"
