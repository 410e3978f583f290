// Package kineto reads ... (being written).
package kineto
