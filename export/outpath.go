package export

import (
	"fmt"
	"os"

	"github.com/tallyprof/tally/internal/checkedfile"
)

// needRegularFile refuses an output that is a device or a directory for the
// formats that write a second file beside it: OUT.gaps.csv cannot sit
// beside /dev/stdout, and a table without its gaps is what tally exists to
// prevent.
func needRegularFile(path, to string) error {
	st, err := os.Stat(path)
	if err != nil || (st.Mode().IsRegular() && !checkedfile.IsDescriptor(path)) {
		return nil
	}
	return fmt.Errorf("cannot write %s: it is not a regular file, and %s writes its gaps file beside it (%s.gaps.%s); give a file path", path, to, path, to)
}
