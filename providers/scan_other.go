//go:build !amd64 || purego

package providers

var useAVX2 = false

func indexSpecialAVX2(p []byte, c1, c2, c3 byte) (int, bool) {
	panic("providers: no vector scanner on this platform")
}

func validUTF8AVX2(p []byte) bool {
	panic("providers: no vector scanner on this platform")
}

func shapeScanAVX2(p, head []byte) int {
	panic("providers: no vector scanner on this platform")
}
