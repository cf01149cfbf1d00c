//go:build !amd64 || purego

package jsonbytes

var useAVX2 = false

func indexSpecialAVX2(p []byte, c1, c2, c3 byte) (int, bool) {
	panic("jsonbytes: no vector scanner on this platform")
}

func shapeScanAVX2(p, head []byte) int {
	panic("jsonbytes: no vector scanner on this platform")
}

func stringMasksAVX2(p *[64]byte) (quote, backslash, control, high, short, slash, u uint64) {
	panic("jsonbytes: no vector scanner on this platform")
}
