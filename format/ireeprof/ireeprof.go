// Package ireeprof reads ... (being written).
package ireeprof
