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
// TestSizerMatchesCompiled checks it against the compiled transaction.
type sizer struct {
	// keys holds every distinct key; true marks a signer.
	keys    map[solana.PublicKey]bool
	signers int
	ixs     int
	// ixBytes is the instructions' bytes after the count.
	ixBytes int
}

// newSizer starts a transaction paid by payer (a signer).
func newSizer(payer solana.PublicKey) *sizer {
	return &sizer{keys: map[solana.PublicKey]bool{payer: true}, signers: 1}
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

// size is the serialized size of the transaction counted so far.
func (z *sizer) size() int {
	return sizeOf(z.signers, len(z.keys), z.ixs, z.ixBytes)
}

// sizeOf is the serialized size of a transaction of signers, keys and ixs
// instructions taking ixBytes.
func sizeOf(signers, keys, ixs, ixBytes int) int {
	return compactLen(signers) + 64*signers +
		1 + 3 + compactLen(keys) + 32*keys + 32 +
		compactLen(ixs) + ixBytes + 1
}

// sizeWith is the size with ixs added, z unchanged. It counts the keys ixs
// add beside z's instead of copying them: packing asks it once per item.
func (z *sizer) sizeWith(ixs []solana.Instruction) int {
	type pending struct {
		key    solana.PublicKey
		signer bool
	}
	var fresh []pending             // keys z does not hold
	var promoted []solana.PublicKey // keys z holds as non-signers that ixs sign
	signers, ixBytes := z.signers, z.ixBytes
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
	}
	return sizeOf(signers, len(z.keys)+len(fresh), z.ixs+len(ixs), ixBytes)
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
