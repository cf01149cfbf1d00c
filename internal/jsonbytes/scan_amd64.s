//go:build !purego

#include "textflag.h"

// CLASSIFY_STRING sets Y1's bytes to 0xFF where the bytes of src are '"'
// (Y8), '\\' (Y9) or at most 0x1F (Y10): what ends or interrupts a JSON
// string.
#define CLASSIFY_STRING(src) \
	VPCMPEQB src, Y8, Y1; \
	VPCMPEQB src, Y9, Y2; \
	VPMINUB  src, Y10, Y3; \
	VPCMPEQB src, Y3, Y3; \
	VPOR     Y1, Y2, Y1; \
	VPOR     Y1, Y3, Y1

// CLASSIFY is CLASSIFY_STRING with c1, c2 and c3 (Y5–Y7) too.
#define CLASSIFY(src) \
	CLASSIFY_STRING(src); \
	VPCMPEQB src, Y5, Y2; \
	VPCMPEQB src, Y6, Y3; \
	VPOR     Y2, Y3, Y2; \
	VPCMPEQB src, Y7, Y3; \
	VPOR     Y2, Y3, Y2; \
	VPOR     Y1, Y2, Y1

// SPLAT defines name as 32 bytes of the 8-byte pattern b.
#define SPLAT(name, b) \
	DATA name<>+0(SB)/8, $b; \
	DATA name<>+8(SB)/8, $b; \
	DATA name<>+16(SB)/8, $b; \
	DATA name<>+24(SB)/8, $b; \
	GLOBL name<>(SB), RODATA|NOPTR, $32

SPLAT(quotes, 0x2222222222222222)
SPLAT(backslashes, 0x5c5c5c5c5c5c5c5c)
SPLAT(controls, 0x1f1f1f1f1f1f1f1f)

// func indexSpecialAVX2(p []byte, c1, c2, c3 byte) (idx int, high bool)
// Requires AVX2, BMI2 and len(p) >= 32.
TEXT ·indexSpecialAVX2(SB), NOSPLIT, $0-41
	MOVQ    p_base+0(FP), SI
	MOVQ    p_len+8(FP), BX
	VPBROADCASTB c1+24(FP), Y5
	VPBROADCASTB c2+25(FP), Y6
	VPBROADCASTB c3+26(FP), Y7
	VMOVDQU quotes<>(SB), Y8
	VMOVDQU backslashes<>(SB), Y9
	VMOVDQU controls<>(SB), Y10
	XORL    R9, R9        // high bits of the bytes passed
	XORQ    DI, DI        // offset of the chunk
	MOVQ    BX, R8
	ANDQ    $~31, R8      // end of the whole chunks

loop:
	CMPQ      DI, R8
	JEQ       tail
	VMOVDQU   (SI)(DI*1), Y0
	CLASSIFY(Y0)
	VPMOVMSKB Y1, AX
	VPMOVMSKB Y0, DX
	TESTL     AX, AX
	JNZ       found
	ORL       DX, R9
	ADDQ      $32, DI
	JMP       loop

tail:
	// The last bytes, in one load that overlaps the chunk before: the
	// masks are shifted past the bytes already seen.
	CMPQ      DI, BX
	JEQ       done
	MOVQ      BX, DI
	SUBQ      $32, DI
	VMOVDQU   (SI)(DI*1), Y0
	CLASSIFY(Y0)
	VPMOVMSKB Y1, AX
	VPMOVMSKB Y0, DX
	MOVQ      R8, CX
	SUBQ      DI, CX
	SHRXL     CX, AX, AX
	SHRXL     CX, DX, DX
	MOVQ      R8, DI
	TESTL     AX, AX
	JNZ       found
	ORL       DX, R9
	MOVQ      BX, DI
	JMP       done

found:
	TZCNTL AX, CX
	BZHIL  CX, DX, DX     // the high bits before the found byte
	ORL    DX, R9
	ADDQ   CX, DI

done:
	MOVQ   DI, idx+32(FP)
	TESTL  R9, R9
	SETNE  high+40(FP)
	VZEROUPPER
	RET

// HEAD_CHUNK compares the 32 bytes at CX of p (SI) and head (DI).
#define HEAD_CHUNK \
	VMOVDQU   (SI)(CX*1), Y0; \
	VPCMPEQB  (DI)(CX*1), Y0, Y0; \
	VPMOVMSKB Y0, AX; \
	CMPL      AX, $0xffffffff; \
	JNE       mismatch

// func shapeScanAVX2(p, head []byte) int
// Requires AVX2, BMI2, len(head) >= 32 and len(p) >= len(head)+32.
// Returns -1 if p does not start with head, else the index of the first
// '"', '\\' or control byte of p from len(head) on, or len(p).
TEXT ·shapeScanAVX2(SB), NOSPLIT, $0-56
	MOVQ p_base+0(FP), SI
	MOVQ p_len+8(FP), BX
	MOVQ head_base+24(FP), DI
	MOVQ head_len+32(FP), R8
	// The head, 32 bytes at a time, its last 32 bytes last (they may
	// overlap the chunk before).
	XORQ CX, CX

head:
	LEAQ      32(CX), DX
	CMPQ      DX, R8
	JA        headLast
	HEAD_CHUNK
	MOVQ      DX, CX
	JMP       head

headLast:
	CMPQ      CX, R8
	JEQ       scan
	LEAQ      -32(R8), CX
	HEAD_CHUNK

scan:
	VMOVDQU quotes<>(SB), Y8
	VMOVDQU backslashes<>(SB), Y9
	VMOVDQU controls<>(SB), Y10
	MOVQ    R8, CX             // offset of the chunk
	MOVQ    BX, R9
	SUBQ    R8, R9
	ANDQ    $~31, R9
	ADDQ    R8, R9             // end of the whole chunks

scanLoop:
	CMPQ      CX, R9
	JEQ       scanTail
	VMOVDQU   (SI)(CX*1), Y0
	CLASSIFY_STRING(Y0)
	VPMOVMSKB Y1, AX
	TESTL     AX, AX
	JNZ       found
	ADDQ      $32, CX
	JMP       scanLoop

scanTail:
	CMPQ      CX, BX
	JEQ       done
	LEAQ      -32(BX), CX
	VMOVDQU   (SI)(CX*1), Y0
	CLASSIFY_STRING(Y0)
	VPMOVMSKB Y1, AX
	MOVQ      R9, DX
	SUBQ      CX, DX
	SHRXL     DX, AX, AX       // past the bytes already seen
	MOVQ      R9, CX
	TESTL     AX, AX
	JNZ       found
	MOVQ      BX, CX
	JMP       done

found:
	TZCNTL AX, AX
	ADDQ   AX, CX

done:
	MOVQ CX, ret+48(FP)
	VZEROUPPER
	RET

mismatch:
	MOVQ $-1, ret+48(FP)
	VZEROUPPER
	RET
