package exitcode

import "testing"

// The numbers are a contract with scripts and CI: --help states them.
func TestNumbers(t *testing.T) {
	for _, c := range []struct {
		name      string
		got, want int
	}{{"OK", OK, 0}, {"Failed", Failed, 1}, {"Error", Error, 2}} {
		if c.got != c.want {
			t.Errorf("%s = %d, want %d", c.name, c.got, c.want)
		}
	}
}
