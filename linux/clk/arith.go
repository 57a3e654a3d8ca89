package clk

import "math/bits"

// divRoundUp64 is DIV_ROUND_UP_ULL(n, d) stored into an unsigned long: the 64-bit
// quotient truncated to 32 bits. d must not be 0.
func divRoundUp64(n uint64, d uint32) uint32 {
	return uint32((n + uint64(d) - 1) / uint64(d))
}

// divRoundUpInt is DIV_ROUND_UP_ULL(n, d) where Linux passes a divisor held in
// a C int: n + d - 1 with d sign-extended to 64 bits, divided by d as the u32
// do_div takes, truncated to a 32-bit unsigned long. It differs from
// divRoundUp64 only for d = INT_MIN (a POWER_OF_TWO divisor of 2^31): 0 for a
// parent above 2^31, otherwise 2^32-1 or 2^32-2, which callers read as a
// negative long (an error).
func divRoundUpInt(n uint64, d int32) uint32 {
	return uint32((n + uint64(int64(d)) - 1) / uint64(uint32(d)))
}

// absLong is the kernel's abs() on an unsigned long: the value is read as a signed
// 32-bit long first, so a difference of 2^31 or more looks negative, and abs of
// LONG_MIN stays LONG_MIN.
func absLong(x uint32) int32 {
	v := int32(x)
	if v < 0 {
		return -v
	}
	return v
}

// roundupPowOfTwo is __roundup_pow_of_two on 32-bit ARM: 1UL << fls_long(n - 1).
// For n = 0 (and n > 2^31) the shift is by 32, which ARM's register-specified
// LSL turns into 0, as does Go.
func roundupPowOfTwo(n uint32) uint32 {
	return uint32(1) << bits.Len32(n-1)
}

// rounddownPowOfTwo is __rounddown_pow_of_two: 1UL << (fls_long(n) - 1). For n = 0
// Linux shifts by -1 (undefined); ARM's LSL by 255 gives 0, and so does this.
func rounddownPowOfTwo(n uint32) uint32 {
	if n == 0 {
		return 0
	}
	return uint32(1) << (bits.Len32(n) - 1)
}

func isPowerOfTwo(n uint32) bool { return n != 0 && n&(n-1) == 0 }
