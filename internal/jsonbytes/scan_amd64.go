//go:build !purego

package jsonbytes

//go:generate go run -C asm . -out ../scan_amd64.s -stubs ../scan_stubs_amd64.go -pkg jsonbytes

import "golang.org/x/sys/cpu"

// Every byte of a translated stream's text passes two scans: for the end of
// its JSON string on the way in, and for what needs escaping (with a UTF-8
// check) on the way out. Eight bytes at a time these were the largest cost
// of a stream, and Go's standard library has no vector search for a class
// of bytes, nor a vector UTF-8 check (utf8.Valid mispredicts a branch at
// each rune of text that mixes scripts). So the searches are generated for
// AVX2 with avo (asm/scan_asm.go writes scan_amd64.s and their declarations
// in scan_stubs_amd64.go), and the UTF-8 check is segmentio/asm's, with the
// portable loops beside them for other machines (and for -tags purego,
// which CI also tests).

// useAVX2 selects the vector scanner; tests turn it off to check the
// portable loops give the same answers.
var useAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasBMI2
