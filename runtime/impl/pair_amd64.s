//go:build !purego

#include "textflag.h"

// func pairNext(s string, b int, c0, cb byte) int
//
// Sixteen offsets i at a time: the bytes at i and at i+b compared with
// c0 and cb (PCMPEQB), and-ed, the first set bit of the mask (PMOVMSKB)
// the answer; then one offset at a time for the last fewer than sixteen.
// Every load lies inside s: an offset i is a candidate only when
// i+b < len(s), and a block of sixteen is read only when its last
// candidate is one.
TEXT ·pairNext(SB), NOSPLIT, $0-40
	MOVQ   s_base+0(FP), SI
	MOVQ   s_len+8(FP), DX
	MOVQ   b+16(FP), BX
	MOVBLZX c0+24(FP), AX
	MOVBLZX cb+25(FP), CX
	TESTQ  BX, BX           // b <= 0 is no pair: nothing read before s
	JLE    none
	SUBQ   BX, DX           // DX: the number of candidate offsets
	JLE    none
	LEAQ   (SI)(BX*1), R9   // R9: s[b:]
	// X0: c0 in every byte, X1: cb in every byte.
	MOVQ   AX, X0
	PUNPCKLBW X0, X0
	PUNPCKLWL X0, X0
	PSHUFL $0, X0, X0
	MOVQ   CX, X1
	PUNPCKLBW X1, X1
	PUNPCKLWL X1, X1
	PSHUFL $0, X1, X1
	XORQ   DI, DI
block:
	LEAQ   16(DI), R8
	CMPQ   R8, DX
	JA     tail
	MOVOU  (SI)(DI*1), X2
	MOVOU  (R9)(DI*1), X3
	PCMPEQB X0, X2
	PCMPEQB X1, X3
	PAND   X3, X2
	PMOVMSKB X2, R10
	TESTL  R10, R10
	JNZ    found
	MOVQ   R8, DI
	JMP    block
found:
	BSFL   R10, R10
	ADDQ   R10, DI
	MOVQ   DI, ret+32(FP)
	RET
tail:
	CMPQ   DI, DX
	JAE    none
	CMPB   (SI)(DI*1), AL
	JNE    next
	CMPB   (R9)(DI*1), CL
	JEQ    hit
next:
	INCQ   DI
	JMP    tail
hit:
	MOVQ   DI, ret+32(FP)
	RET
none:
	MOVQ   $-1, ret+32(FP)
	RET
