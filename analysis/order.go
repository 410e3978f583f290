package analysis

import "sort"

// sortCostliest orders rows costliest first, as every table here is: by
// device time, then by dispatches (both most first), then by name; rows
// equal in all three keep their order. key gives a row's three.
func sortCostliest[T any](rows []T, key func(*T) (device, dispatches int64, name string)) {
	sort.SliceStable(rows, func(x, y int) bool {
		ad, an, as := key(&rows[x])
		bd, bn, bs := key(&rows[y])
		if ad != bd {
			return ad > bd
		}
		if an != bn {
			return an > bn
		}
		return as < bs
	})
}
