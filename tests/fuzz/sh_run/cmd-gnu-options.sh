printf 'b,2\na,1\nc,3\na,1\n' > f
sort -t, -k2,2n f | uniq -c | sort -rn | head -n 2
cut -d, -f2 --output-delimiter=: f; cut --c 1 f; cut -b 1-2,4- f
tr a-z A-Z < f; tr -cd '[:alnum:]\n' < f; tr -s ',' < f
seq -w 8 10; seq -s, 3; seq 1 0.5 2; seq -f '%03g' 2
head -n -1 f; head -c 3 f; head -2v f; tail +2 f; tail -c 4 f; tail -n 1K f
basename -s .c a/b.c x.c; dirname //a a/b/
printf 'x\n' | tee t1 t2 > /dev/null; tac f; rev f; nl f; paste -d, f f; fold -w 2 f
comm <(sort f) <(sort -u f); yes | head -n 2; sort --so=ge f; uniq --all-repeated=sep f
