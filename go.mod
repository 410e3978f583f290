module github.com/tallyprof/tally

go 1.26.8

require (
	github.com/klauspost/compress v1.20.4
	golang.org/x/sys v0.50.0
)
