(( n = 0 ))
for (( i = 0; i < 10; i++ )); do
  (( i % 2 )) && continue
  case $i in
    0) echo zero ;&
    2|4) echo even ;;&
    *) (( n += i )) ;;
  esac
done
while read -r a b; do echo "$a" {x,y}-{1..3}; done <<< "one two"
time -p { ((echo sub); echo b) > /dev/null; }
mkdir -p dir/{src,test}/{05..10..2}
