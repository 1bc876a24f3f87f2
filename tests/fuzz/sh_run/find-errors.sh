find . \( -name x -o ; find . -o -print ; find . -type q,; find . -size 1kk
find . -perm /000 -printf '%z\q\c' ; find . -regextype foo ; find . -exec echo {} {} +
find nosuch '' . -maxdepth 0 -regex '\(' ; find . -name a z , -not
printf "a 'b\n" | xargs; printf 'a\n' | xargs -n 0; xargs -a nosuch; printf '' | xargs -I{} -r
