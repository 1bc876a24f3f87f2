cat <<"E"F
a $x
EF