// Command scan_asm generates the AVX2 scanners of package jsonbytes
// (scan_amd64.s, and their declarations in scan_stubs_amd64.go) with avo.
// It is a module of its own so that thinkgate's module does not depend on
// avo; run it with go generate in internal/jsonbytes.
package main

import (
	. "github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	. "github.com/mmcloughlin/avo/reg"
)

func main() {
	ConstraintExpr("!purego")

	quotes := splat("quotes", 0x22)
	backslashes := splat("backslashes", 0x5c)
	controls := splat("controls", 0x1f)

	indexSpecial(quotes, backslashes, controls)
	shapeScan(quotes, backslashes, controls)
	stringMasks(quotes, backslashes, controls)

	Generate()
}

// splat defines name as 32 bytes of b.
func splat(name string, b byte) Mem {
	m := GLOBL(name, RODATA|NOPTR)
	for i := 0; i < 32; i += 8 {
		DATA(i, U64(uint64(b)*0x0101010101010101))
	}
	return m
}

// classifyString sets Y1's bytes to 0xFF where the bytes of src are '"'
// (Y8), '\\' (Y9) or at most 0x1F (Y10): what ends or interrupts a JSON
// string.
func classifyString(src VecPhysical) {
	VPCMPEQB(src, Y8, Y1)
	VPCMPEQB(src, Y9, Y2)
	VPMINUB(src, Y10, Y3)
	VPCMPEQB(src, Y3, Y3)
	VPOR(Y1, Y2, Y1)
	VPOR(Y1, Y3, Y1)
}

// classify is classifyString with c1, c2 and c3 (Y5–Y7) too.
func classify(src VecPhysical) {
	classifyString(src)
	VPCMPEQB(src, Y5, Y2)
	VPCMPEQB(src, Y6, Y3)
	VPOR(Y2, Y3, Y2)
	VPCMPEQB(src, Y7, Y3)
	VPOR(Y2, Y3, Y2)
	VPOR(Y1, Y2, Y1)
}

// addr is the frame address of an argument or result.
func addr(c gotypes.Component) Mem {
	b, err := c.Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

func indexSpecial(quotes, backslashes, controls Mem) {
	TEXT("indexSpecialAVX2", NOSPLIT, "func(p []byte, c1, c2, c3 byte) (idx int, high bool)")
	Pragma("noescape")
	Doc(
		"indexSpecialAVX2 returns the index of the first byte of p that is a",
		"control character, '\"', '\\\\', c1, c2 or c3, or len(p) if there is none,",
		"and whether a byte of 0x80 or more comes before it. It requires AVX2,",
		"BMI2 and len(p) of at least 32.",
	)
	Load(Param("p").Base(), RSI)
	Load(Param("p").Len(), RBX)
	VPBROADCASTB(addr(Param("c1")), Y5)
	VPBROADCASTB(addr(Param("c2")), Y6)
	VPBROADCASTB(addr(Param("c3")), Y7)
	VMOVDQU(quotes, Y8)
	VMOVDQU(backslashes, Y9)
	VMOVDQU(controls, Y10)
	Comment("R9: the high bits of the bytes passed; DI: the offset of the chunk;", "R8: the end of the whole chunks.")
	XORL(R9L, R9L)
	XORQ(RDI, RDI)
	MOVQ(RBX, R8)
	ANDQ(I32(-32), R8)

	Label("loop")
	CMPQ(RDI, R8)
	JEQ(LabelRef("tail"))
	VMOVDQU(Mem{Base: RSI, Index: RDI, Scale: 1}, Y0)
	classify(Y0)
	VPMOVMSKB(Y1, EAX)
	VPMOVMSKB(Y0, EDX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("found"))
	ORL(EDX, R9L)
	ADDQ(U8(32), RDI)
	JMP(LabelRef("loop"))

	Label("tail")
	Comment("The last bytes, in one load that overlaps the chunk before: the", "masks are shifted past the bytes already seen.")
	CMPQ(RDI, RBX)
	JEQ(LabelRef("done"))
	MOVQ(RBX, RDI)
	SUBQ(U8(32), RDI)
	VMOVDQU(Mem{Base: RSI, Index: RDI, Scale: 1}, Y0)
	classify(Y0)
	VPMOVMSKB(Y1, EAX)
	VPMOVMSKB(Y0, EDX)
	MOVQ(R8, RCX)
	SUBQ(RDI, RCX)
	SHRXL(ECX, EAX, EAX)
	SHRXL(ECX, EDX, EDX)
	MOVQ(R8, RDI)
	TESTL(EAX, EAX)
	JNZ(LabelRef("found"))
	ORL(EDX, R9L)
	MOVQ(RBX, RDI)
	JMP(LabelRef("done"))

	Label("found")
	TZCNTL(EAX, ECX)
	Comment("The high bits before the found byte.")
	BZHIL(ECX, EDX, EDX)
	ORL(EDX, R9L)
	ADDQ(RCX, RDI)

	Label("done")
	Store(RDI, Return("idx"))
	TESTL(R9L, R9L)
	SETNE(addr(Return("high")))
	VZEROUPPER()
	RET()
}

// headChunk compares the 32 bytes at CX of p (SI) and head (DI).
func headChunk() {
	VMOVDQU(Mem{Base: RSI, Index: RCX, Scale: 1}, Y0)
	VPCMPEQB(Mem{Base: RDI, Index: RCX, Scale: 1}, Y0, Y0)
	VPMOVMSKB(Y0, EAX)
	CMPL(EAX, U32(0xffffffff))
	JNE(LabelRef("mismatch"))
}

func shapeScan(quotes, backslashes, controls Mem) {
	TEXT("shapeScanAVX2", NOSPLIT, "func(p, head []byte) int")
	Pragma("noescape")
	Doc(
		"shapeScanAVX2 returns -1 if p does not start with head, else the index of",
		"the first '\"', '\\\\' or control byte of p from len(head) on, or len(p):",
		"the head compare and the string scan of a shaped event in one call. It",
		"requires AVX2, BMI2, len(head) of at least 32 and len(p) of at least",
		"len(head)+32.",
	)
	Load(Param("p").Base(), RSI)
	Load(Param("p").Len(), RBX)
	Load(Param("head").Base(), RDI)
	Load(Param("head").Len(), R8)
	Comment("The head, 32 bytes at a time, its last 32 bytes last (they may", "overlap the chunk before).")
	XORQ(RCX, RCX)

	Label("head")
	LEAQ(Mem{Base: RCX, Disp: 32}, RDX)
	CMPQ(RDX, R8)
	JA(LabelRef("headLast"))
	headChunk()
	MOVQ(RDX, RCX)
	JMP(LabelRef("head"))

	Label("headLast")
	CMPQ(RCX, R8)
	JEQ(LabelRef("scan"))
	LEAQ(Mem{Base: R8, Disp: -32}, RCX)
	headChunk()

	Label("scan")
	VMOVDQU(quotes, Y8)
	VMOVDQU(backslashes, Y9)
	VMOVDQU(controls, Y10)
	Comment("CX: the offset of the chunk; R9: the end of the whole chunks.")
	MOVQ(R8, RCX)
	MOVQ(RBX, R9)
	SUBQ(R8, R9)
	ANDQ(I32(-32), R9)
	ADDQ(R8, R9)

	Label("scanLoop")
	CMPQ(RCX, R9)
	JEQ(LabelRef("scanTail"))
	VMOVDQU(Mem{Base: RSI, Index: RCX, Scale: 1}, Y0)
	classifyString(Y0)
	VPMOVMSKB(Y1, EAX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("found"))
	ADDQ(U8(32), RCX)
	JMP(LabelRef("scanLoop"))

	Label("scanTail")
	CMPQ(RCX, RBX)
	JEQ(LabelRef("done"))
	LEAQ(Mem{Base: RBX, Disp: -32}, RCX)
	VMOVDQU(Mem{Base: RSI, Index: RCX, Scale: 1}, Y0)
	classifyString(Y0)
	VPMOVMSKB(Y1, EAX)
	MOVQ(R9, RDX)
	SUBQ(RCX, RDX)
	Comment("Past the bytes already seen.")
	SHRXL(EDX, EAX, EAX)
	MOVQ(R9, RCX)
	TESTL(EAX, EAX)
	JNZ(LabelRef("found"))
	MOVQ(RBX, RCX)
	JMP(LabelRef("done"))

	Label("found")
	TZCNTL(EAX, EAX)
	ADDQ(RAX, RCX)

	Label("done")
	Store(RCX, ReturnIndex(0))
	VZEROUPPER()
	RET()

	Label("mismatch")
	MOVQ(I32(-1), RCX)
	Store(RCX, ReturnIndex(0))
	VZEROUPPER()
	RET()
}

// stringMasks writes the bit masks of a 64-byte block of a JSON string's
// bytes, a bit a byte, the first byte the lowest bit: what the callers
// need to find the string's end and check its escapes with bit
// arithmetic, however close together the escapes come.
func stringMasks(quotes, backslashes, controls Mem) {
	// The bytes that may follow a backslash: the escapes the escaper
	// writes (with '"' and '\\' from the masks above), then '/' and 'u'.
	short := []Mem{splat("escN", 'n'), splat("escR", 'r'), splat("escT", 't'), splat("escB", 'b'), splat("escF", 'f')}
	slashes := splat("slashes", '/')
	us := splat("escU", 'u')
	TEXT("stringMasksAVX2", NOSPLIT, "func(p *[64]byte) (quote, backslash, control, high, short, slash, u uint64)")
	Pragma("noescape")
	Doc(
		"stringMasksAVX2 returns, for the 64 bytes at p, the masks of the bytes",
		"that are '\"', '\\\\', control characters (below 0x20), 0x80 or more,",
		"one of '\"', '\\\\', 'n', 'r', 't', 'b', 'f' (the short escapes), '/', and",
		"'u'; bit i is byte i. It requires AVX2.",
	)
	Load(Param("p"), RSI)
	VMOVDQU(quotes, Y8)
	VMOVDQU(backslashes, Y9)
	VMOVDQU(controls, Y10)
	results := []string{"quote", "backslash", "control", "high", "short", "slash", "u"}
	masks := []GPPhysical{RAX, RBX, RCX, RDX, RDI, R8, R9}
	for half := 0; half < 2; half++ {
		Commentf("Bytes %d to %d: each mask's %s 32 bits.", 32*half, 32*half+31, []string{"low", "high"}[half])
		VMOVDQU(Mem{Base: RSI, Disp: 32 * half}, Y0)
		VPCMPEQB(Y0, Y8, Y1)
		VPCMPEQB(Y0, Y9, Y2)
		VPMINUB(Y0, Y10, Y3)
		VPCMPEQB(Y0, Y3, Y3)
		VPOR(Y1, Y2, Y4)
		for _, c := range short {
			VPCMPEQB(c, Y0, Y5)
			VPOR(Y5, Y4, Y4)
		}
		VPCMPEQB(slashes, Y0, Y5)
		VPCMPEQB(us, Y0, Y6)
		for i, v := range []VecPhysical{Y1, Y2, Y3, Y0, Y4, Y5, Y6} {
			if half == 0 {
				VPMOVMSKB(v, masks[i].As32())
				continue
			}
			VPMOVMSKB(v, R10L)
			SHLQ(U8(32), R10)
			ORQ(R10, masks[i])
			Store(masks[i], Return(results[i]))
		}
	}
	VZEROUPPER()
	RET()
}
