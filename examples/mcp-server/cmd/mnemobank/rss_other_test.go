//go:build !linux

package main

import "errors"

// peakRSSMiB is measured from /proc, on Linux only.
func peakRSSMiB(int) (float64, error) {
	return 0, errors.New("the server's own peak memory is read from /proc, on Linux only")
}
