printf 'apple pie\nbanana\nCherry\n\nx\0y\ncaf\xe9\n' > f
grep -n -C1 -e an -e '^$' f; grep -ovbiw 'a.' f; grep -cE 'a|b' f
grep -xF -e apple -e '' f; grep -Pw '\w+e' f; grep -m1 -A2 --group-separator=:: a f
grep -lLHhZ a f - </dev/null; grep -zT -nb a f; grep -a -3 y f; grep --color=always -H a f
grep -e '[[:alpha:]]\{2,\}' -e '\(a\)\1' f; grep -E '(a|b)+$' --no-group-separator -B2 f
