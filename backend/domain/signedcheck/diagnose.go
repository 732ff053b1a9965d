package signedcheck

// diagnose says how the signed instructions own (at positions in the
// message) differ from the built ones, once their sums differ. The digest's
// fingerprints locate the first difference; the message names what stands
// there. A difference the fingerprints cannot see (4-byte prefixes
// colliding) is still refused, in general terms.
func (m *message) diagnose(d Digest, own []instruction, positions []int) *MismatchError {
	built := make([]fingerprint, len(d.Instructions))
	for i, s := range d.Instructions {
		f, ok := parseFingerprint(s)
		if !ok {
			return refuse("the signed instructions differ from the built ones")
		}
		built[i] = f
	}
	signed := make([]fingerprint, len(own))
	for i, ix := range own {
		signed[i] = m.fingerprint(ix)
	}
	at := func(j int) (int, string) {
		return positions[j], describe(m.keys[own[j].program], own[j].data)
	}
	switch {
	case len(signed) > len(built):
		j := firstSurplus(signed, built)
		pos, what := at(j)
		if contains(built, signed[j]) {
			return refuse("instruction %d (%s) repeats a built instruction", pos, what)
		}
		return refuse("an instruction was added at index %d: %s", pos, what)
	case len(signed) < len(built):
		k := firstDifference(signed, built)
		return refuse("built instruction %d of %d (%s) is missing", k, len(built), builtInstruction(built[k]))
	}
	k := firstDifference(signed, built)
	if k == len(built) {
		return refuse("the signed instructions differ from the built ones")
	}
	pos, what := at(k)
	if sameMultiset(signed, built) {
		return refuse("the built instructions were reordered: instruction %d (%s) was built as built instruction %d, not %d", pos, what, index(built, signed[k]), k)
	}
	s, b := signed[k], built[k]
	switch {
	case [4]byte(s[0:4]) != [4]byte(b[0:4]):
		return refuse("instruction %d is a %s where the transaction was built with %s", pos, what, builtInstruction(b))
	case [4]byte(s[4:8]) != [4]byte(b[4:8]) && [4]byte(s[8:12]) != [4]byte(b[8:12]):
		return refuse("instruction %d (%s) changed its accounts and its data", pos, what)
	case [4]byte(s[4:8]) != [4]byte(b[4:8]):
		return refuse("instruction %d (%s) changed its accounts or their signer and writable flags", pos, what)
	}
	return refuse("instruction %d (%s) changed its data", pos, what)
}

func firstDifference(signed, built []fingerprint) int {
	k := 0
	for k < len(signed) && k < len(built) && signed[k] == built[k] {
		k++
	}
	return k
}

// firstSurplus is the first signed instruction that is one too many: not
// built, or built fewer times than signed so far.
func firstSurplus(signed, built []fingerprint) int {
	left := map[fingerprint]int{}
	for _, f := range built {
		left[f]++
	}
	for j, f := range signed {
		if left[f] == 0 {
			return j
		}
		left[f]--
	}
	return len(signed) - 1
}

func contains(list []fingerprint, f fingerprint) bool { return index(list, f) >= 0 }

func index(list []fingerprint, f fingerprint) int {
	for i, g := range list {
		if g == f {
			return i
		}
	}
	return -1
}

func sameMultiset(a, b []fingerprint) bool {
	if len(a) != len(b) {
		return false
	}
	n := map[fingerprint]int{}
	for _, f := range a {
		n[f]++
	}
	for _, f := range b {
		if n[f]--; n[f] < 0 {
			return false
		}
	}
	return true
}
