package main

import "io"

func cmdRecord(args []string, stdout, stderr io.Writer) int {
	io.WriteString(stderr, "not yet\n")
	return 2
}
func cmdSelftest(args []string, stdout, stderr io.Writer) int {
	io.WriteString(stderr, "not yet\n")
	return 2
}
