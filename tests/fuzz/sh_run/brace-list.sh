echo a{b,c{d,e},}f {x,y}{1,2} {,a} {a} \{a,b} "{a,b}" {a..}
