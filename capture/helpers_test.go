package capture

// oneInput is an accounting of one input of unit, read units read and used
// used (the rest for the test to account for).
func oneInput(unit string, read, used int64) (*Accounting, *InputCount) {
	a := &Accounting{}
	in := a.InputFor(unit)
	in.Read, in.Used = read, used
	return a, in
}
