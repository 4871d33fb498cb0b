#!/bin/sh
# funclen.sh [-n LIMIT] [FILE...]: the length in lines of every C function
# (from the opening brace of its body to the closing one), longest first;
# with -n, only those over LIMIT, and exit 1 if there are any.  Without
# files, every .c file under src/ except the generated parser and scanner.
# It relies on the project's layout: the name at the start of a line after
# the return type, braces of a function body alone at the start of a line.
limit=0
if [ "$1" = "-n" ]; then
	limit=$2
	shift 2
fi
if [ $# -eq 0 ]; then
	set -- $(find src -name '*.c' ! -name exprparse.c ! -name exprscan.c | sort)
fi
awk -v limit="$limit" '
FNR == 1 { name = ""; body = 0 }
!body && /^[A-Za-z_][A-Za-z0-9_]*\(/ {
	name = $0; sub(/\(.*/, "", name); line = FNR
}
!body && name != "" && /^\{/ { body = 1; start = FNR }
body && /^\}/ {
	n = FNR - start + 1
	if (n > limit)
		printf "%5d %s:%d %s\n", n, FILENAME, line, name
	body = 0; name = ""
}' "$@" | sort -rn | {
	over=0
	while IFS= read -r line; do
		echo "$line"
		over=1
	done
	[ "$limit" -eq 0 ] || [ $over -eq 0 ]
}
