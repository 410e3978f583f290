package format

// Claimers lists the registered formats that claim output lines (Claims is
// set), in name order. A recorder takes the list once and asks each format
// about each line, so it keeps every line some reader will use.
func Claimers() []Format {
	var out []Format
	for _, f := range Formats() {
		if f.Claims != nil {
			out = append(out, f)
		}
	}
	return out
}

// Claim returns the name of the first of formats that claims line, or "".
func Claim(formats []Format, line []byte) string {
	for _, f := range formats {
		if f.Claims(line) {
			return f.Name
		}
	}
	return ""
}
