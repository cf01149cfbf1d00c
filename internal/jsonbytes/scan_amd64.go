//go:build !purego

package jsonbytes

import "golang.org/x/sys/cpu"

// Every byte of a translated stream's text passes two scans: for the end of
// its JSON string on the way in, and for what needs escaping (with a UTF-8
// check) on the way out. Eight bytes at a time these were the largest cost
// of a stream, and Go's standard library has no vector search for a class
// of bytes, nor a vector UTF-8 check (utf8.Valid mispredicts a branch at
// each rune of text that mixes scripts). So the searches are written here
// for AVX2, and the UTF-8 check is segmentio/asm's, with the portable loops
// beside them for other machines (and for -tags purego, which CI also
// tests).

// useAVX2 selects the vector scanner; tests turn it off to check the
// portable loops give the same answers.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI2

// indexSpecialAVX2 returns the index of the first byte of p that is a
// control character, '"', '\\', c1, c2 or c3, or len(p) if there is none,
// and whether a byte of 0x80 or more comes before it. len(p) must be at
// least 32. (scan_amd64.s)
//
//go:noescape
func indexSpecialAVX2(p []byte, c1, c2, c3 byte) (idx int, high bool)

// shapeScanAVX2 returns -1 if p does not start with head, else the index of
// the first '"', '\\' or control byte of p from len(head) on, or len(p).
// len(head) must be at least 32, and len(p) at least len(head)+32: the
// head compare and the string scan of a shaped event in one call.
// (scan_amd64.s)
//
//go:noescape
func shapeScanAVX2(p, head []byte) int
