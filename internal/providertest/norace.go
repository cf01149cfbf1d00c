//go:build !race

package providertest

// RaceEnabled reports a build with the race detector, under which
// sync.Pool keeps fewer values and encoding/json's buffers are allocated
// more often: a test of what a conversion allocates checks it without.
const RaceEnabled = false
