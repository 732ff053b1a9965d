package txv1

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os"
	"testing"
)

// FuzzUnmarshal: the decoders never panic, and whatever they accept
// encodes back to the same bytes (one encoding per message, so a
// signature covers exactly what was decoded). Seeds: kit's goldens.
func FuzzUnmarshal(f *testing.F) {
	b, err := os.ReadFile(goldenPath)
	if err != nil {
		f.Fatal(err)
	}
	var g kitGoldens
	if err := json.Unmarshal(b, &g); err != nil {
		f.Fatal(err)
	}
	for _, c := range g.Cases {
		for _, s := range []string{c.Message, c.Transaction} {
			seed, err := base64.StdEncoding.DecodeString(s)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(seed)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var tx Transaction
		if err := tx.UnmarshalBinary(data); err == nil {
			again, err := tx.MarshalBinary()
			if err != nil || !bytes.Equal(again, data) {
				t.Fatalf("transaction decoded, then encoded to %x, %v; was %x", again, err, data)
			}
		}
		var m Message
		if err := m.UnmarshalBinary(data); err == nil {
			again, err := m.MarshalBinary()
			if err != nil || !bytes.Equal(again, data) {
				t.Fatalf("message decoded, then encoded to %x, %v; was %x", again, err, data)
			}
			if m.Size() != len(data) {
				t.Fatalf("Size() = %d for %d bytes", m.Size(), len(data))
			}
		}
	})
}

// BenchmarkMarshal encodes the sixty-instruction message.
func BenchmarkMarshal(b *testing.B) {
	m := sixty(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := m.MarshalBinary(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnmarshal decodes the sixty-instruction message.
func BenchmarkUnmarshal(b *testing.B) {
	data, err := sixty(b).MarshalBinary()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var m Message
		if err := m.UnmarshalBinary(data); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCompile compiles the sixty instructions, as a packer does for
// each candidate.
func BenchmarkCompile(b *testing.B) {
	c := kitCases()[3]
	payer, hash := c.signers[0].PublicKey(), kitBlockhash()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Compile(payer, hash, c.config, c.instructions...); err != nil {
			b.Fatal(err)
		}
	}
}
