module github.com/tallyprof/tally

go 1.26.8
