// Package cputime reads the process's CPU time for the benchmarks: on a
// shared, oversubscribed machine a benchmark's CPU time per MB stays
// meaningful where its wall-clock time does not.
package cputime
