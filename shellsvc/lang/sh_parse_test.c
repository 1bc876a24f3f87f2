/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for sh_parse: input -> AST dump for every construct of §3.2. */
#include "sh_test_util.h"

typedef struct dump_case {
    const char *src;
    const char *want;
} dump_case;

/* Every construct: words and parts, expansions, lists, pipelines,
 * compounds, functions, redirections, here-documents, comments. */
static const dump_case cases[] = {
    {"echo hi",
     "(list (cmd \"echo\" \"hi\"))"},
    {"  echo   a\tb  ",
     "(list (cmd \"echo\" \"a\" \"b\"))"},
    {"X=1",
     "(list (cmd (= X \"1\")))"},
    {"X=1 cmd a",
     "(list (cmd (= X \"1\") \"cmd\" \"a\"))"},
    {"A+=x",
     "(list (cmd (+= A \"x\")))"},
    {"X= Y=2 env",
     "(list (cmd (= X (word)) (= Y \"2\") \"env\"))"},
    {"X=a=b",
     "(list (cmd (= X \"a=b\")))"},
    {"1X=a",
     "(list (cmd \"1X=a\"))"},
    {"a[1]=x",
     "(list (cmd (= a[\"1\"] \"x\")))"},
    {"a=(x [2]=y\n'z w') b+=([k]+=v)",
     "(list (cmd (= a (array \"x\" [\"2\"]=\"y\" (word (sq \"z w\")))) "
     "(+= b (array [\"k\"]+=\"v\"))))"},
    {"echo ${a[i+1]} ${!a[@]} ${#a[*]}",
     "(list (cmd \"echo\" (word (param a [\"i+1\"])) (word (keys a "
     "[\"@\"])) (word (len a [\"*\"]))))"},
    {"X=~/bin:~x",
     "(list (cmd (= X (word (tilde \"\") \"/bin:~x\"))))"},
    {"X=~",
     "(list (cmd (= X (word (tilde \"\")))))"},
    {"cmd X=1",
     "(list (cmd \"cmd\" \"X=1\"))"},
    {"echo 'a b' 'x''y' ''",
     "(list (cmd \"echo\" (word (sq \"a b\")) (word (sq \"x\") (sq \"y\")) (word (sq \"\"))))"},
    {"echo \"a b\" \"\" \"x\\\"y\\\\z\\$w\\`v\\a\"",
     "(list (cmd \"echo\" (word (dq \"a b\")) (word (dq)) (word (dq \"x\\\"y\\\\z$w`v\\\\a\"))))"},
    {"echo \\x\\ \\\\ \\'",
     "(list (cmd \"echo\" (word (esc \"x\") (esc \" \") (esc \"\\\\\")) (word (esc \"'\"))))"},
    {"echo a\\\nb",
     "(list (cmd \"echo\" \"ab\"))"},
    {"echo $x $x_y1 $1 $10 ${10} $? $# $@ $* $0 $$ $! $- $",
     "(list (cmd \"echo\" (word (param x)) (word (param x_y1)) (word (param 1)) (word (param 1) \"0\") (word (param 10)) (word (param ?)) (word (param #)) (word (param @)) (word (param *)) (word (param 0)) (word (param $)) (word (param !)) (word (param -)) \"$\"))"},
    {"echo ${x} ${#x} ${#} ${#?} ${x-a} ${x=a} ${x?a} ${x+a}",
     "(list (cmd \"echo\" (word (param x)) (word (len x)) (word (param #)) (word (len ?)) (word (param x - \"a\")) (word (param x = \"a\")) (word (param x ? \"a\")) (word (param x + \"a\"))))"},
    {"echo ${x:-a} ${x:=a} ${x:?a} ${x:+a} ${x:-}",
     "(list (cmd \"echo\" (word (param x :- \"a\")) (word (param x := \"a\")) (word (param x :? \"a\")) (word (param x :+ \"a\")) (word (param x :- (word)))))"},
    {"echo ${x%a} ${x%%a} ${x#a} ${x##a} ${x%.*} ${x##*/}",
     "(list (cmd \"echo\" (word (param x % \"a\")) (word (param x %% \"a\")) (word (param x # \"a\")) (word (param x ## \"a\")) (word (param x % \".*\")) (word (param x ## \"*/\"))))"},
    {"echo ${x:-a b} ${x:-$y} ${x:-${y:-z}} ${x:-'q'\"r\"}",
     "(list (cmd \"echo\" (word (param x :- \"a b\")) (word (param x :- (word (param y)))) (word (param x :- (word (param y :- \"z\")))) (word (param x :- (word (sq \"q\") (dq \"r\"))))))"},
    {"echo \"${x:-\"a b\"}\" \"${x:-'a'}\" \"${x#\\}}\"",
     "(list (cmd \"echo\" (word (dq (param x :- (word (dq \"a b\"))))) (word (dq (param x :- \"'a'\"))) (word (dq (param x # (word (esc \"}\")))))))"},
    {"echo ${x:1} ${x: -1:2} ${x/a/b} ${x//a} ${x/#a/b} ${x/%a/\\/}",
     "(list (cmd \"echo\" (word (param x : \"1\")) (word (param x : \" -1\" \"2\")) (word (param x / \"a\" \"b\")) (word (param x // \"a\")) (word (param x /# \"a\" \"b\")) (word (param x /% \"a\" (word (esc \"/\"))))))"},
    {"echo ${!x} ${!x:-d} ${!p*} ${!p@} ${x@Q} ${!#} ${!-d} ${!}",
     "(list (cmd \"echo\" (word (param !x)) (word (param !x :- \"d\")) (word (param p !*)) (word (param p !@)) (word (param x Q)) (word (param !#)) (word (param ! - \"d\")) (word (param !))))"},
    {"echo $'a\\tb\\'' $\"c\" $[1+[2]] \"$'x'\" \"${x/'a'/b}\" \"${x:-'a'}\"",
     "(list (cmd \"echo\" (word (sq \"a\\tb'\")) (word (dq \"c\")) (word (arith \"1+[2]\")) (word (dq \"$'x'\")) (word (dq (param x / (word (sq \"a\")) \"b\"))) (word (dq (param x :- \"'a'\")))))"},
    {"echo \"$x-$y\" \"${x}y\" \"a$(b)c\"",
     "(list (cmd \"echo\" (word (dq (param x) \"-\" (param y))) (word (dq (param x) \"y\")) (word (dq \"a\" (cmdsub (list (cmd \"b\"))) \"c\"))))"},
    {"echo $(a) $(a | b; c) $( ) $(case x in a) b;; esac)",
     "(list (cmd \"echo\" (word (cmdsub (list (cmd \"a\")))) (word (cmdsub (list (pipe (cmd \"a\") (cmd \"b\")) (cmd \"c\")))) (word (cmdsub (list))) (word (cmdsub (list (case \"x\" (item (pats \"a\") (list (cmd \"b\")))))))))"},
    {"echo `a` `a \\`b\\`` \"`a`\" x=`a`",
     "(list (cmd \"echo\" (word (backq (list (cmd \"a\")))) (word (backq (list (cmd \"a\" (word (backq (list (cmd \"b\")))))))) (word (dq (backq (list (cmd \"a\"))))) (word \"x=\" (backq (list (cmd \"a\"))))))"},
    {"echo $((1+2)) $(( (1+2)*3 )) \"$((x))\" $( (a) ) $((a) | b)",
     "(list (cmd \"echo\" (word (arith \"1+2\")) (word (arith \" (1+2)*3 \")) (word (dq (arith \"x\"))) (word (cmdsub (list (subshell (list (cmd \"a\")))))) (word (cmdsub (list (pipe (subshell (list (cmd \"a\"))) (cmd \"b\")))))))"},
    {"echo ~ ~/x ~user ~user/x ~+ ~- a~ \"~\" \\~ ~$x",
     "(list (cmd \"echo\" (word (tilde \"\")) (word (tilde \"\") \"/x\") (word (tilde \"user\")) (word (tilde \"user\") \"/x\") (word (tilde \"+\")) (word (tilde \"-\")) \"a~\" (word (dq \"~\")) (word (esc \"~\")) (word \"~\" (param x))))"},
    {"a | b",
     "(list (pipe (cmd \"a\") (cmd \"b\")))"},
    {"a | b | c",
     "(list (pipe (cmd \"a\") (cmd \"b\") (cmd \"c\")))"},
    {"! a",
     "(list (not (cmd \"a\")))"},
    {"! a | b",
     "(list (not (pipe (cmd \"a\") (cmd \"b\"))))"},
    {"! ! a",
     "(list (cmd \"a\"))"},
    {"a && b || c",
     "(list (or (and (cmd \"a\") (cmd \"b\")) (cmd \"c\")))"},
    {"a || b && c",
     "(list (and (or (cmd \"a\") (cmd \"b\")) (cmd \"c\")))"},
    {"a; b",
     "(list (cmd \"a\") (cmd \"b\"))"},
    {"a; b;",
     "(list (cmd \"a\") (cmd \"b\"))"},
    {"a & b &",
     "(list (bg (cmd \"a\")) (bg (cmd \"b\")))"},
    {"a && b & c",
     "(list (bg (and (cmd \"a\") (cmd \"b\"))) (cmd \"c\"))"},
    {"a &&\nb",
     "(list (and (cmd \"a\") (cmd \"b\")))"},
    {"a ||\n\nb",
     "(list (or (cmd \"a\") (cmd \"b\")))"},
    {"a |\nb",
     "(list (pipe (cmd \"a\") (cmd \"b\")))"},
    {"{ a; }",
     "(list (group (list (cmd \"a\"))))"},
    {"{ a; b; } > f",
     "(list (group (list (cmd \"a\") (cmd \"b\")) (> \"f\")))"},
    {"{\na\n}",
     "(list (group (list (cmd \"a\"))))"},
    {"( a )",
     "(list (subshell (list (cmd \"a\"))))"},
    {"( a; b ) 2>&1 | c",
     "(list (pipe (subshell (list (cmd \"a\") (cmd \"b\")) (2>& \"1\")) (cmd \"c\")))"},
    {"(a)",
     "(list (subshell (list (cmd \"a\"))))"},
    {"if a; then b; fi",
     "(list (if (list (cmd \"a\")) (list (cmd \"b\"))))"},
    {"if a; then b; else c; fi",
     "(list (if (list (cmd \"a\")) (list (cmd \"b\")) (list (cmd \"c\"))))"},
    {"if a; then b; elif c; then d; elif e; then f; else g; fi",
     "(list (if (list (cmd \"a\")) (list (cmd \"b\")) (if (list (cmd \"c\")) (list (cmd \"d\")) (if (list (cmd \"e\")) (list (cmd \"f\")) (list (cmd \"g\"))))))"},
    {"if a\nthen\nb\nfi",
     "(list (if (list (cmd \"a\")) (list (cmd \"b\"))))"},
    {"if { a; }; then (b); fi",
     "(list (if (list (group (list (cmd \"a\")))) (list (subshell (list (cmd \"b\"))))))"},
    {"while a; do b; done",
     "(list (while (list (cmd \"a\")) (list (cmd \"b\"))))"},
    {"while a; do b; done < f",
     "(list (while (list (cmd \"a\")) (list (cmd \"b\")) (< \"f\")))"},
    {"until a; do b; c; done",
     "(list (until (list (cmd \"a\")) (list (cmd \"b\") (cmd \"c\"))))"},
    {"for v in a \"b c\" $d; do x; done",
     "(list (for v (in \"a\" (word (dq \"b c\")) (word (param d))) (list (cmd \"x\"))))"},
    {"for v; do x; done",
     "(list (for v (list (cmd \"x\"))))"},
    {"for v do x; done",
     "(list (for v (list (cmd \"x\"))))"},
    {"for v\ndo x; done",
     "(list (for v (list (cmd \"x\"))))"},
    {"for v in; do x; done",
     "(list (for v (in) (list (cmd \"x\"))))"},
    {"for v in a b\ndo x\ndone",
     "(list (for v (in \"a\" \"b\") (list (cmd \"x\"))))"},
    {"case $x in a) b;; esac",
     "(list (case (word (param x)) (item (pats \"a\") (list (cmd \"b\")))))"},
    {"case x in a|b|c) d;; (e) f;; *) ;; esac",
     "(list (case \"x\" (item (pats \"a\" \"b\" \"c\") (list (cmd \"d\"))) (item (pats \"e\") (list (cmd \"f\"))) (item (pats \"*\") (list))))"},
    {"case x in\na)\nb\n;;\nesac",
     "(list (case \"x\" (item (pats \"a\") (list (cmd \"b\")))))"},
    {"case x in a) b; c;; d) e\nesac",
     "(list (case \"x\" (item (pats \"a\") (list (cmd \"b\") (cmd \"c\"))) (item (pats \"d\") (list (cmd \"e\")))))"},
    {"case x in esac",
     "(list (case \"x\"))"},
    {"case x in (a) esac",
     "(list (case \"x\" (item (pats \"a\") (list))))"},
    {"case x in if) echo;; esac",
     "(list (case \"x\" (item (pats \"if\") (list (cmd \"echo\")))))"},
    {"f() { a; }",
     "(list (func f (group (list (cmd \"a\")))))"},
    {"f () { a; } > log",
     "(list (func f (group (list (cmd \"a\")) (> \"log\"))))"},
    {"f()\n{\na\n}",
     "(list (func f (group (list (cmd \"a\")))))"},
    {"f() ( a )",
     "(list (func f (subshell (list (cmd \"a\")))))"},
    {"f() if a; then b; fi",
     "(list (func f (if (list (cmd \"a\")) (list (cmd \"b\")))))"},
    {"a >f",
     "(list (cmd \"a\" (> \"f\")))"},
    {"a > f 2>g",
     "(list (cmd \"a\" (> \"f\") (2> \"g\")))"},
    {"a >>f 2>>g",
     "(list (cmd \"a\" (>> \"f\") (2>> \"g\")))"},
    {"a <f 3<g",
     "(list (cmd \"a\" (< \"f\") (3< \"g\")))"},
    {"a <>f >|g",
     "(list (cmd \"a\" (<> \"f\") (>| \"g\")))"},
    {"a 2>&1 >&2 <&0 3<&-",
     "(list (cmd \"a\" (2>& \"1\") (>& \"2\") (<& \"0\") (3<& \"-\")))"},
    {"a >&- 2>&-",
     "(list (cmd \"a\" (>& \"-\") (2>& \"-\")))"},
    {"a &>f &>>g",
     "(list (cmd \"a\" (&> \"f\") (&>> \"g\")))"},
    {">f",
     "(list (cmd (> \"f\")))"},
    {"2>f a",
     "(list (cmd \"a\" (2> \"f\")))"},
    {"a 1>f 10>g",
     "(list (cmd \"a\" (1> \"f\") (10> \"g\")))"},
    {"a 12a>f",
     "(list (cmd \"a\" \"12a\" (> \"f\")))"},
    {"if x; then echo; fi; while y; do :; done",
     "(list (if (list (cmd \"x\")) (list (cmd \"echo\"))) (while (list (cmd \"y\")) (list (cmd \":\"))))"},
    {"echo if then fi do",
     "(list (cmd \"echo\" \"if\" \"then\" \"fi\" \"do\"))"},
    {"echo {a,b} } {",
     "(list (cmd \"echo\" \"{a,b}\" \"}\" \"{\"))"},
    {"{ echo }; }",
     "(list (group (list (cmd \"echo\" \"}\"))))"},
    {"echo a # comment",
     "(list (cmd \"echo\" \"a\"))"},
    {"# only a comment",
     "(list)"},
    {"echo a#b '#'c",
     "(list (cmd \"echo\" \"a#b\" (word (sq \"#\") \"c\")))"},
    {"echo $x#y",
     "(list (cmd \"echo\" (word (param x) \"#y\")))"},
    {"echo 'a\nb'",
     "(list (cmd \"echo\" (word (sq \"a\\nb\"))))"},
    {"a;\nb",
     "(list (cmd \"a\") (cmd \"b\"))"},
    {"cat <<EOF\nhello $x\n`y` $(z) \\$ \\\\ \\\" '\nEOF",
     "(list (cmd \"cat\" (<< \"EOF\" (word \"hello \" (param x) \"\\n\" (backq (list (cmd \"y\"))) \" \" (cmdsub (list (cmd \"z\"))) \" $ \\\\ \\\\\\\" '\\n\"))))"},
    {"cat <<'EOF'\na $x `y`\nEOF",
     "(list (cmd \"cat\" (<<q \"EOF\" \"a $x `y`\\n\")))"},
    {"cat <<\"E\"F\na $x\nEF",
     "(list (cmd \"cat\" (<<q \"EF\" \"a $x\\n\")))"},
    {"cat <<\\E\n$x\nE",
     "(list (cmd \"cat\" (<<q \"E\" \"$x\\n\")))"},
    {"cat <<-E\n\t\ta\n\tb\n\t\tE",
     "(list (cmd \"cat\" (<<- \"E\" \"a\\nb\\n\")))"},
    {"cat <<E\nE",
     "(list (cmd \"cat\" (<< \"E\" (word))))"},
    {"cat <<A <<B\na\nA\nb\nB",
     "(list (cmd \"cat\" (<< \"A\" \"a\\n\") (<< \"B\" \"b\\n\")))"},
    {"cat <<A; cat <<B\na\nA\nb\nB",
     "(list (cmd \"cat\" (<< \"A\" \"a\\n\")) (cmd \"cat\" (<< \"B\" \"b\\n\")))"},
    {"cat <<E | wc\nx\nE",
     "(list (pipe (cmd \"cat\" (<< \"E\" \"x\\n\")) (cmd \"wc\")))"},
    {"while read l; do echo $l; done <<E\nx\nE",
     "(list (while (list (cmd \"read\" \"l\")) (list (cmd \"echo\" (word (param l)))) (<< \"E\" \"x\\n\")))"},
    {"cat <<E; echo $(\nz\n)\nbody\nE",
     "(list (cmd \"cat\" (<< \"E\" \"body\\n\")) (cmd \"echo\" (word (cmdsub (list (cmd \"z\"))))))"},
    {"echo $(cat <<E\nin\nE\n)",
     "(list (cmd \"echo\" (word (cmdsub (list (cmd \"cat\" (<< \"E\" \"in\\n\")))))))"},
    {"cat <<E\na\nE",
     "(list (cmd \"cat\" (<< \"E\" \"a\\n\")))"},
    {"cat 2<<E\na\nE",
     "(list (cmd \"cat\" (2<< \"E\" \"a\\n\")))"},
    /* [[ … ]]: operands are words, operators build a tree */
    {"[[ -f $f ]]",
     "(list (cond (-f (word (param f)))))"},
    {"[[ x ]]",
     "(list (cond (-n \"x\")))"},
    {"[[ $a == *.py ]]",
     "(list (cond ((word (param a)) == \"*.py\")))"},
    {"[[ a = b ]] && [[ a != \"*\" ]]",
     "(list (and (cond (\"a\" = \"b\")) (cond (\"a\" != (word (dq \"*\"))))))"},
    {"[[ -f $f && $x == *.py ]]",
     "(list (cond (&& (-f (word (param f))) ((word (param x)) == \"*.py\"))))"},
    {"[[ a || b && c ]]",
     "(list (cond (|| (-n \"a\") (&& (-n \"b\") (-n \"c\")))))"},
    {"[[ a && b && c || d || e ]]",
     "(list (cond (|| (&& (-n \"a\") (&& (-n \"b\") (-n \"c\"))) (|| (-n \"d\") (-n \"e\")))))"},
    {"[[ ! -d x || ( a < b ) ]]",
     "(list (cond (|| (! (-d \"x\")) (paren (\"a\" < \"b\")))))"},
    {"[[ ! ! a > b ]]",
     "(list (cond (! (! (\"a\" > \"b\")))))"},
    {"[[ 1+1 -eq 2 && a -nt b && a -ef b ]]",
     "(list (cond (&& (\"1+1\" -eq \"2\") (&& (\"a\" -nt \"b\") (\"a\" -ef \"b\")))))"},
    {"[[ $v =~ ^v([0-9]+)\\.([0-9]+) ]]",
     "(list (cond ((word (param v)) =~ (word \"^v([0-9]+)\" (esc \".\") \"([0-9]+)\"))))"},
    {"[[ $l =~ ^([a-z]+)=(.*)$ ]]",
     "(list (cond ((word (param l)) =~ \"^([a-z]+)=(.*)$\")))"},
    {"[[ x =~ (a b|c) ]]",
     "(list (cond (\"x\" =~ \"(a b|c)\")))"},
    {"[[ x =~ a|b ]]",
     "(list (cond (\"x\" =~ \"a|b\")))"},
    {"[[ x =~ \"a.\"b ]]",
     "(list (cond (\"x\" =~ (word (dq \"a.\") \"b\"))))"},
    {"[[ x == @(a|b) ]]",
     "(list (cond (\"x\" == \"@(a|b)\")))"},
    {"[[ -z \"\" && -n '' ]]",
     "(list (cond (&& (-z (word (dq))) (-n (word (sq \"\"))))))"},
    {"[[ -n == ]]",
     "(list (cond (-n \"==\")))"},
    {"[[ \"-f\" ]]",
     "(list (cond (-n (word (dq \"-f\")))))"},
    {"[[ a == ]]x ]]",
     "(list (cond (\"a\" == \"]]x\")))"},
    {"[[ -v x || -o errexit || -t 1 ]]",
     "(list (cond (|| (-v \"x\") (|| (-o \"errexit\") (-t \"1\")))))"},
    {"[[\na == a &&\n\n b ]]",
     "(list (cond (&& (\"a\" == \"a\") (-n \"b\"))))"},
    {"[[ a ]] >f; echo [[ ]]",
     "(list (cond (-n \"a\") (> \"f\")) (cmd \"echo\" \"[[\" \"]]\"))"},
    {"if [[ -d \"$d\" && ! -L \"$d\" ]]; then :; fi",
     "(list (if (list (cond (&& (-d (word (dq (param d)))) (! (-L (word (dq (param d)))))))) (list (cmd \":\"))))"},
    {"while [[ $i -lt 3 ]]; do i=1; done",
     "(list (while (list (cond ((word (param i)) -lt \"3\"))) (list (cmd (= i \"1\")))))"},
    {"f() [[ -n $1 ]]",
     "(list (func f (cond (-n (word (param 1))))))"},
    {"x=1 [[ a ]]",
     "(list (cmd (= x \"1\") \"[[\" \"a\" \"]]\"))"},    /* bash: (( )), for (( ; ; )), case ;& ;;&, <<<, time */
    {"(( x = 1 + 2 ))", "(list (arith \" x = 1 + 2 \"))"},
    {"((x))>f", "(list (arith \"x\" (> \"f\")))"},
    {"((echo a); echo b)",
     "(list (subshell (list (subshell (list (cmd \"echo\" \"a\"))) "
     "(cmd \"echo\" \"b\"))))"},
    {"( (a) )", "(list (subshell (list (subshell (list (cmd \"a\"))))))"},
    {"(( (1) + (2) )) && b",
     "(list (and (arith \" (1) + (2) \") (cmd \"b\")))"},
    {"! ((0))", "(list (not (arith \"0\")))"},
    {"f() ((1))", "(list (func f (arith \"1\")))"},
    {"echo $((1)) \"((\"", "(list (cmd \"echo\" (word (arith \"1\")) (word (dq \"((\"))))"},
    {"for ((i=0; i<3; i++)); do a; done",
     "(list (for-arith \"i=0\" \" i<3\" \" i++\" (list (cmd \"a\"))))"},
    {"for ((;;)) { a; }",
     "(list (for-arith \"\" \"\" \"\" (group (list (cmd \"a\")))))"},
    {"for (( f(1); ; )) do a; done",
     "(list (for-arith \" f(1)\" \"\" \"\" (list (cmd \"a\"))))"},
    {"for ((;;))\n\ndo a; done >o",
     "(list (for-arith \"\" \"\" \"\" (list (cmd \"a\")) (> \"o\")))"},
    {"case x in a) b;& c) d;;& e) f;; esac",
     "(list (case \"x\" (item (pats \"a\") (list (cmd \"b\")) (fall)) "
     "(item (pats \"c\") (list (cmd \"d\")) (test)) "
     "(item (pats \"e\") (list (cmd \"f\")))))"},
    {"case x in a) ;& esac",
     "(list (case \"x\" (item (pats \"a\") (list) (fall))))"},
    {"cat <<< \"$x y\" 3<<<z",
     "(list (cmd \"cat\" (<<< (word (dq (param x) \" y\"))) (3<<< \"z\")))"},
    {"time a | b", "(list (time (pipe (cmd \"a\") (cmd \"b\"))))"},
    {"time -p ! a", "(list (time -p (not (cmd \"a\"))))"},
    {"! time a", "(list (not (time (cmd \"a\"))))"},
    {"time; time -p", "(list (time nil) (time -p nil))"},
    {"time a && b", "(list (and (time (cmd \"a\")) (cmd \"b\")))"},
    {"a | time b", "(list (pipe (cmd \"a\") (cmd \"time\" \"b\")))"},
    {"\"time\" a", "(list (cmd (word (dq \"time\")) \"a\"))"},
    {"a |& b 2>x | c", "(list (pipe (cmd \"a\" (2>& \"1\")) (cmd \"b\" (2> \"x\")) (cmd \"c\")))"},
    {"{ a; } >f |&\n b", "(list (pipe (group (list (cmd \"a\")) (> \"f\") (2>& \"1\")) (cmd \"b\")))"},
    {"for i in a b; { c; }", "(list (for i (in \"a\" \"b\") (group (list (cmd \"c\")))))"},
    {"for i\n{ c; }", "(list (for i (group (list (cmd \"c\")))))"},
    {"for i { c; } >f", "(list (for i (group (list (cmd \"c\"))) (> \"f\")))"},
    {"for ((;;)) { c; } >f", "(list (for-arith \"\" \"\" \"\" (group (list (cmd \"c\"))) (> \"f\")))"},
    /* process substitution: a word part, also inside a word */
    {"cat <(a) >(b c)", "(list (cmd \"cat\" (word (procsub< (list (cmd \"a\")))) (word (procsub> (list (cmd \"b\" \"c\"))))))"},
    {"echo x<(a)y 2>(b) > >(c)", "(list (cmd \"echo\" (word \"x\" (procsub< (list (cmd \"a\"))) \"y\") (word \"2\" (procsub> (list (cmd \"b\")))) (> (word (procsub> (list (cmd \"c\")))))))"},
    /* {fd}> redirections: after a command word or a compound */
    {"exec {fd}>f {in}<&-", "(list (cmd \"exec\" ({fd}> \"f\") ({in}<& \"-\")))"},
    {"{ a; } {fd}>f", "(list (group (list (cmd \"a\")) ({fd}> \"f\")))"},
    /* not {fd}> redirections: a space, a quote, not a name */
    {"echo {fd} >f {1}>g '{x}'>h", "(list (cmd \"echo\" \"{fd}\" \"{1}\" (word (sq \"{x}\")) (> \"f\") (> \"g\") (> \"h\")))"},
};

static void
run_cases(const dump_case *cs, size_t n, unsigned flags)
{
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        char *got = sh_test_dump(cs[i].src, strlen(cs[i].src), flags);
        if (strcmp(got, cs[i].want) != 0) {
            print_error("case %zu: %s\n  got:  %s\n  want: %s\n", i, cs[i].src,
                        got, cs[i].want);
            bad++;
        }
        box_free(got);
    }
    assert_int_equal(bad, 0);
}

static void
test_constructs(void **state)
{
    run_cases(cases, NELEM(cases), 0);
}

/* Every node, redirection and case arm carries the line it starts on. */
static const dump_case line_cases[] = {
    {"a\nb; c\n\n  d",
     "(list@1 (cmd@1 \"a\") (cmd@2 \"b\") (cmd@2 \"c\") (cmd@4 \"d\"))"},
    {"if x\nthen\n  y\nelif z\nthen w\nfi",
     "(list@1 (if@1 (list@1 (cmd@1 \"x\")) (list@3 (cmd@3 \"y\")) "
     "(if@4 (list@4 (cmd@4 \"z\")) (list@5 (cmd@5 \"w\")))))"},
    {"case x in\na) b;;\nc)\n d\nesac",
     "(list@1 (case@1 \"x\" (item@2 (pats \"a\") (list@2 (cmd@2 \"b\"))) "
     "(item@3 (pats \"c\") (list@4 (cmd@4 \"d\")))))"},
    {"echo \"a\nb\" c\nd >f\\\n 2>g",
     "(list@1 (cmd@1 \"echo\" (word (dq \"a\\nb\")) \"c\") "
     "(cmd@3 \"d\" (>@3 \"f\") (2>@4 \"g\")))"},
    {"cat <<E; x\nbody\nE\ny `\nz`",
     "(list@1 (cmd@1 \"cat\" (<<@1 \"E\" \"body\\n\")) (cmd@1 \"x\") "
     "(cmd@4 \"y\" (word (backq (list@5 (cmd@5 \"z\"))))))"},
    {"f() {\n a\n} &\n! b | c",
     "(list@1 (bg (func f@1 (group@1 (list@2 (cmd@2 \"a\"))))) "
     "(not@4 (pipe@4 (cmd@4 \"b\") (cmd@4 \"c\"))))"},
    {"[[ a &&\n b ||\n ( c )\n ]]",
     "(list@1 (cond@1 (||@1 (&&@1 (-n@1 \"a\") (-n@2 \"b\")) "
     "(paren@3 (-n@3 \"c\")))))"},
    {"while a\ndo\n  b &&\n  c\ndone",
     "(list@1 (while@1 (list@1 (cmd@1 \"a\")) (list@3 (and@3 (cmd@3 \"b\") "
     "(cmd@4 \"c\")))))"},
};

static void
test_lines(void **state)
{
    run_cases(line_cases, NELEM(line_cases), SH_DUMP_LINES);
}

/* Word parts keep their own lines, and strings are NUL-terminated views. */
static void
test_word_details(void **state)
{
    box_arena *a = box_arena_new(SH_TEST_ARENA);
    sh_node *n = NULL;
    sh_diag d;
    const char *src = "X=1 echo \"$y\nz\" 'q'";
    assert_int_equal(sh_parse(src, strlen(src), a, &n, &d), BOX_OK);
    const sh_node *c = n->u.list.items;
    assert_int_equal(c->n_kind, SH_N_SIMPLE);
    assert_string_equal(c->u.simple.assigns->a_name, "X");
    const sh_word *w = c->u.simple.words->w_next;
    assert_int_equal(w->w_rawlen, 6);
    assert_memory_equal(w->w_raw, "\"$y\nz\"", 6);
    const sh_wpart *dq = w->w_parts;
    assert_int_equal(dq->wp_kind, SH_WP_DQUOTE);
    assert_int_equal(dq->u.dq->wp_kind, SH_WP_PARAM);
    assert_string_equal(dq->u.dq->u.param.name, "y");
    assert_int_equal(dq->u.dq->wp_next->wp_line, 1);
    assert_string_equal(w->w_next->w_parts->u.text.s, "q");
    /* A NUL byte stays inside the length. */
    const char nul[] = "echo a\0b";
    assert_int_equal(sh_parse(nul, sizeof(nul) - 1, a, &n, &d), BOX_OK);
    w = n->u.list.items->u.simple.words->w_next;
    assert_int_equal(w->w_parts->u.text.len, 3);
    box_arena_free(a);
}

static void
test_names(void **state)
{
    assert_string_equal(sh_node_kind_name(SH_N_FUNC), "func");
    assert_string_equal(sh_wpart_kind_name(SH_WP_TILDE), "tilde");
    assert_string_equal(sh_param_op_name(SH_PO_RLPREFIX), "##");
    assert_string_equal(sh_redir_kind_name(SH_R_BOTH_APPEND), "&>>");
    assert_string_equal(sh_node_kind_name(SH_N_COUNT), "?");
}

/* Nesting up to the cap is fine. */
static void
test_deep_but_allowed(void **state)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    for (int i = 0; i < 60; i++)
        assert_int_equal(box_buf_puts(&b, "{ "), BOX_OK);
    assert_int_equal(box_buf_puts(&b, "a; "), BOX_OK);
    for (int i = 0; i < 60; i++)
        assert_int_equal(box_buf_puts(&b, "} "), BOX_OK);
    char *got = sh_test_dump(b.b_data, b.b_len, 0);
    assert_true(strncmp(got, "(list (group (list (group", 25) == 0);
    box_free(got);
    box_buf_reset(&b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_constructs),
        cmocka_unit_test(test_lines),
        cmocka_unit_test(test_word_details),
        cmocka_unit_test(test_names),
        cmocka_unit_test(test_deep_but_allowed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
