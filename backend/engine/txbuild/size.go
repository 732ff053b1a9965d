package txbuild

import (
	"slices"

	"github.com/gagliardetto/solana-go"
)

// sizer counts the serialized size of the v0 transaction that assemble would
// compile from the instructions added to it, without compiling it: compiling
// (solana.NewTransaction) encodes every key in base58, and packing measures a
// transaction once per item it tries to add, which made packing most of a
// build's processor time. The size is that of MarshalBinary with one zeroed
// signature per signer:
//
//	signatures   compact-u16 count, 64 bytes each (one per distinct signer)
//	message      version byte, 3-byte header, compact-u16 key count and 32
//	             bytes per distinct key (fee payer, accounts, programs),
//	             32-byte blockhash, compact-u16 instruction count and per
//	             instruction: program index, compact-u16 account count and
//	             one index byte each, compact-u16 data length and the data;
//	             then one byte of address table lookups (none).
//
// A v1 transaction (txv1, when v1 is set) is its message, then the
// signatures: the 42 bytes before the addresses, 32 bytes per address, the
// config values (config bytes), 4 bytes of header per instruction, then
// each instruction's account indexes and data, and 64 bytes per signer.
//
// TestSizerMatchesCompiled checks it against the compiled transaction.
type sizer struct {
	// keys holds every distinct key; true marks a signer.
	keys    map[solana.PublicKey]bool
	signers int
	ixs     int
	// ixBytes is the instructions' bytes after the count (v0); payload the
	// bytes of their account indexes and data alone (v1).
	ixBytes, payload int
	// v1 counts a v1 transaction of config bytes of config values.
	v1     bool
	config int
}

// newSizer starts a transaction paid by payer (a signer).
func newSizer(payer solana.PublicKey) *sizer {
	return &sizer{keys: map[solana.PublicKey]bool{payer: true}, signers: 1}
}

// newSizerV1 starts a v1 transaction paid by payer whose config values take
// config bytes.
func newSizerV1(payer solana.PublicKey, config int) *sizer {
	z := newSizer(payer)
	z.v1, z.config = true, config
	return z
}

// clone copies z.
func (z *sizer) clone() *sizer {
	c := *z
	c.keys = make(map[solana.PublicKey]bool, len(z.keys)+8)
	for k, v := range z.keys {
		c.keys[k] = v
	}
	return &c
}

// add counts ixs into z.
func (z *sizer) add(ixs []solana.Instruction) {
	for _, ix := range ixs {
		z.key(ix.ProgramID(), false)
		accounts := ix.Accounts()
		for _, m := range accounts {
			z.key(m.PublicKey, m.IsSigner)
		}
		data, _ := ix.Data() // the instructions here encode from bytes already built
		z.ixs++
		z.ixBytes += 1 + compactLen(len(accounts)) + len(accounts) + compactLen(len(data)) + len(data)
		z.payload += len(accounts) + len(data)
	}
}

func (z *sizer) key(k solana.PublicKey, signer bool) {
	was, ok := z.keys[k]
	if !ok || signer && !was {
		z.keys[k] = was || signer
		if signer {
			z.signers++
		}
	}
}

// size is the serialized size of the transaction counted so far, and its
// number of keys (addresses).
func (z *sizer) size() (bytes, keys int) {
	return z.sizeOf(z.signers, len(z.keys), z.ixs, z.ixBytes, z.payload), len(z.keys)
}

// sizeOf is the serialized size of a transaction of signers, keys and ixs
// instructions taking ixBytes (v0) or payload (v1).
func (z *sizer) sizeOf(signers, keys, ixs, ixBytes, payload int) int {
	if z.v1 {
		return 1 + 3 + 4 + 32 + 1 + 1 + 32*keys + z.config + 4*ixs + payload + 64*signers
	}
	return compactLen(signers) + 64*signers +
		1 + 3 + compactLen(keys) + 32*keys + 32 +
		compactLen(ixs) + ixBytes + 1
}

// sizeWith is the size and the number of keys with ixs added, z unchanged.
// It counts the keys ixs add beside z's instead of copying them: packing
// asks it once per item.
func (z *sizer) sizeWith(ixs []solana.Instruction) (bytes, keys int) {
	type pending struct {
		key    solana.PublicKey
		signer bool
	}
	var fresh []pending             // keys z does not hold
	var promoted []solana.PublicKey // keys z holds as non-signers that ixs sign
	signers, ixBytes, payload := z.signers, z.ixBytes, z.payload
	note := func(k solana.PublicKey, signer bool) {
		if was, ok := z.keys[k]; ok {
			if signer && !was && !slices.Contains(promoted, k) {
				promoted = append(promoted, k)
				signers++
			}
			return
		}
		for i := range fresh {
			if fresh[i].key == k {
				if signer && !fresh[i].signer {
					fresh[i].signer = true
					signers++
				}
				return
			}
		}
		fresh = append(fresh, pending{k, signer})
		if signer {
			signers++
		}
	}
	for _, ix := range ixs {
		note(ix.ProgramID(), false)
		accounts := ix.Accounts()
		for _, m := range accounts {
			note(m.PublicKey, m.IsSigner)
		}
		data, _ := ix.Data()
		ixBytes += 1 + compactLen(len(accounts)) + len(accounts) + compactLen(len(data)) + len(data)
		payload += len(accounts) + len(data)
	}
	keys = len(z.keys) + len(fresh)
	return z.sizeOf(signers, keys, z.ixs+len(ixs), ixBytes, payload), keys
}

// compactLen is the length of n as a compact-u16.
func compactLen(n int) int {
	switch {
	case n < 1<<7:
		return 1
	case n < 1<<14:
		return 2
	}
	return 3
}
