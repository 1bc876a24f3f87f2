tail -c 3 </dev/null; printf '' | tail -n 2; tail </dev/null; head -n -1 </dev/null; head -c -2 </dev/null; tail -n +2 </dev/null
