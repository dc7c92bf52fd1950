//go:build !unix

package main

import "os"

// peakRSSMiB is not measured on this platform.
func peakRSSMiB(*os.ProcessState) float64 { return 0 }
