echo 'a
b'