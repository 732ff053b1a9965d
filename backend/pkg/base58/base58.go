// Package base58 decodes Solana addresses (32 bytes in Bitcoin's base58
// alphabet) without the general decoder's big-number arithmetic one byte at
// a time: five characters at a time into eight 32-bit limbs. A listing of
// 10,000 token accounts decodes 10,000 addresses between the cluster's
// answer and the stream's first chunk; the general decoder (mr-tron/base58,
// through solana.PublicKeyFromBase58) took about a third of that answer's
// reading.
package base58

import "encoding/binary"

const alphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// digits maps a character to its value, or -1 outside the alphabet.
var digits = func() (d [256]int8) {
	for i := range d {
		d[i] = -1
	}
	for i := range len(alphabet) {
		d[alphabet[i]] = int8(i)
	}
	return d
}()

// pow58 is 58 to the power of 0 to 5.
var pow58 = [6]uint64{1, 58, 58 * 58, 58 * 58 * 58, 58 * 58 * 58 * 58, 58 * 58 * 58 * 58 * 58}

// Decode32 decodes s, the base58 text of exactly 32 bytes, as
// solana.PublicKeyFromBase58 does: ok is false where that refuses s (a
// character outside the alphabet, a value of more than 32 bytes, or a text
// whose leading '1's do not match the value's leading zero bytes, as a
// decode to other than 32 bytes).
func Decode32(s []byte) (out [32]byte, ok bool) {
	if len(s) == 0 || len(s) > 44 {
		return out, false
	}
	ones := 0
	for ones < len(s) && s[ones] == '1' {
		ones++
	}
	var limbs [8]uint32 // little-endian: limbs[0] is the least significant
	for i := 0; i < len(s); {
		n := 5
		if i == 0 && len(s)%5 != 0 {
			n = len(s) % 5
		}
		var v uint64
		for _, c := range s[i : i+n] {
			d := digits[c]
			if d < 0 {
				return out, false
			}
			v = v*58 + uint64(d)
		}
		carry, mul := v, pow58[n]
		for k := range limbs {
			t := uint64(limbs[k])*mul + carry
			limbs[k], carry = uint32(t), t>>32 //nolint:gosec // the low 32 bits, by intent
		}
		if carry != 0 {
			return out, false // more than 32 bytes
		}
		i += n
	}
	for k, l := range limbs {
		binary.BigEndian.PutUint32(out[28-4*k:], l)
	}
	zeros := 0
	for zeros < len(out) && out[zeros] == 0 {
		zeros++
	}
	// Each leading '1' stands for one leading zero byte, and the value's
	// own bytes follow: 32 bytes in all only when the counts agree.
	return out, zeros == ones
}
