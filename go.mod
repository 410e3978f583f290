module github.com/tallyprof/tally

go 1.26.8

require golang.org/x/sys v0.50.0

require google.golang.org/protobuf v1.36.11
