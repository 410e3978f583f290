package golden

import (
	"fmt"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	for _, tc := range []struct {
		name, want, got, diff string
	}{
		{"equal", "a\nb\n", "a\nb\n", ""},
		{"changed line, context of three", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\n", `--- want
+++ got
@@ -2,7 +2,7 @@
 2
 3
 4
-5
+five
 6
 7
 8
`},
		{"two hunks", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "one\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\ntwelve\n", `--- want
+++ got
@@ -1,4 +1,4 @@
-1
+one
 2
 3
 4
@@ -9,4 +9,4 @@
 9
 10
 11
-12
+twelve
`},
		{"added at the end", "a\n", "a\nb\nc\n", `--- want
+++ got
@@ -1 +1,3 @@
 a
+b
+c
`},
		{"into an empty file", "", "x\n", `--- want
+++ got
@@ -0,0 +1 @@
+x
`},
		{"final newline only", "a\nb", "a\nb\n", `--- want
+++ got
\ the files differ only in their final newline
`},
	} {
		if got := Diff("want", "got", []byte(tc.want), []byte(tc.got)); got != tc.diff {
			t.Errorf("%s: got\n%s\nwant\n%s", tc.name, got, tc.diff)
		}
	}
}

// TestDiffLarge: a diff of everything still comes back, cut to a readable
// length, when the table would be too large.
func TestDiffLarge(t *testing.T) {
	var a, b strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&a, "a%d\n", i)
		fmt.Fprintf(&b, "b%d\n", i)
	}
	d := Diff("want", "got", []byte(a.String()), []byte(b.String()))
	if !strings.HasPrefix(d, "--- want\n+++ got\n@@ -1,5000 +1,5000 @@\n-a0\n") || !strings.HasSuffix(d, "… (diff cut at 200 lines)\n") {
		t.Errorf("got a diff of %d lines starting %.80q and ending %q, want the first 200 lines of -1,5000 +1,5000, then the cut", strings.Count(d, "\n"), d, d[max(len(d)-40, 0):])
	}
}
