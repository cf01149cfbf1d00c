//go:build race

package load_test

const raceEnabled = true
