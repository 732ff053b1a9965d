package mplcore_test

import (
	"encoding/binary"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/internal/mplref"
	"github.com/reclaim-sol/reclaim/backend/mplcore"
)

func assetData(owner []byte, authKind byte, auth []byte, name, uri string) []byte {
	b := append([]byte{byte(mplcore.KeyAssetV1)}, owner...)
	b = append(b, authKind)
	b = append(b, auth...)
	for _, s := range []string{name, uri} {
		b = binary.LittleEndian.AppendUint32(b, uint32(len(s)))
		b = append(b, s...)
	}
	return append(b, 0) // seq: None
}

func TestParseAsset(t *testing.T) {
	owner, col := mplref.Key("owner"), mplref.Key("collection")
	a, err := mplcore.ParseAsset(assetData(owner[:], mplcore.UpdateAuthorityCollection, col[:], "Core #1", "https://x/1.json"))
	if err != nil || a.Owner != owner || a.Collection == nil || *a.Collection != col || a.Name != "Core #1" || a.URI != "https://x/1.json" {
		t.Fatalf("ParseAsset = %+v, %v", a, err)
	}
	a, err = mplcore.ParseAsset(assetData(owner[:], mplcore.UpdateAuthorityAddress, col[:], "n", "u"))
	if err != nil || a.Collection != nil || a.Name != "n" {
		t.Fatalf("address authority: %+v, %v", a, err)
	}
	a, err = mplcore.ParseAsset(assetData(owner[:], mplcore.UpdateAuthorityNone, nil, "n", "u"))
	if err != nil || a.Collection != nil || a.URI != "u" {
		t.Fatalf("no authority: %+v, %v", a, err)
	}
	for name, data := range map[string][]byte{
		"empty":      nil,
		"stub":       {0},
		"collection": append([]byte{byte(mplcore.KeyCollectionV1)}, make([]byte, 80)...),
		"truncated":  assetData(owner[:], mplcore.UpdateAuthorityNone, nil, "name", "uri")[:40],
		"bad kind":   assetData(owner[:], 9, nil, "n", "u"),
	} {
		if _, err := mplcore.ParseAsset(data); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

func TestParseCollection(t *testing.T) {
	auth := mplref.Key("authority")
	data := append([]byte{byte(mplcore.KeyCollectionV1)}, auth[:]...)
	data = binary.LittleEndian.AppendUint32(data, 5)
	data = append(append(data, "Cores"...), make([]byte, 12)...)
	c, err := mplcore.ParseCollection(data)
	if err != nil || c.Name != "Cores" || c.UpdateAuthority != auth {
		t.Fatalf("ParseCollection = %+v, %v", c, err)
	}
	for name, data := range map[string][]byte{
		"empty":     nil,
		"an asset":  assetData(auth[:], mplcore.UpdateAuthorityNone, nil, "n", "u"),
		"truncated": data[:40],
	} {
		if _, err := mplcore.ParseCollection(data); err == nil {
			t.Errorf("%s: parsed", name)
		}
	}
}

// rent is the default Rent (3480 lamports per byte-year, threshold 2).
func rent(n uint64) uint64 { return (128 + n) * 3480 * 2 }

func TestRefund(t *testing.T) {
	got, ok := mplcore.Refund(150, rent)
	if want := rent(150) - rent(1); !ok || got != want {
		t.Fatalf("Refund(150) = %d, %v; want %d (the stub keeps the rent of 1 byte)", got, ok, want)
	}
	if _, ok := mplcore.Refund(0, rent); ok {
		t.Fatal("Refund(0) ok")
	}
}

func TestBurnAccounts(t *testing.T) {
	asset, payer, col := mplref.Key("asset"), mplref.Key("payer"), mplref.Key("collection")
	got := mplcore.BurnAccounts{Collection: &col}.BurnV1(asset, payer)
	if got.Asset != asset || got.Payer != payer || got.Collection == nil || *got.Collection != col {
		t.Fatalf("BurnV1 = %+v", got)
	}
}
