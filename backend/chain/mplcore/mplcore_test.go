package mplcore_test

import (
	"encoding/binary"
	"testing"

	"github.com/reclaim-sol/reclaim/backend/chain/mplcore"
	"github.com/reclaim-sol/reclaim/backend/chain/mplref"
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
	t.Parallel()
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
	t.Parallel()
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
	t.Parallel()
	got, ok := mplcore.Refund(150, rent)
	if want := rent(150) - rent(1); !ok || got != want {
		t.Fatalf("Refund(150) = %d, %v; want %d (the stub keeps the rent of 1 byte)", got, ok, want)
	}
	if _, ok := mplcore.Refund(0, rent); ok {
		t.Fatal("Refund(0) ok")
	}
}

func TestBurnAccounts(t *testing.T) {
	t.Parallel()
	asset, payer, col := mplref.Key("asset"), mplref.Key("payer"), mplref.Key("collection")
	got := mplcore.BurnAccounts{Collection: &col}.BurnV1(asset, payer)
	if got.Asset != asset || got.Payer != payer || got.Collection == nil || *got.Collection != col {
		t.Fatalf("BurnV1 = %+v", got)
	}
}

// withPlugins appends a PluginHeaderV1 and a PluginRegistryV1 to an account's
// base layout, the plugins first, as Core lays them out: each plugin is its
// type byte and data; the registry records its type, authority and offset.
func withPlugins(base []byte, plugins ...[]byte) []byte {
	b := append([]byte(nil), base...)
	header := len(b)
	b = append(b, byte(mplcore.KeyPluginHeaderV1))
	b = append(b, make([]byte, 8)...)
	var records []byte
	for i, p := range plugins {
		off := len(b)
		b = append(b, p...)
		records = append(records, p[0])
		if i%2 == 0 {
			records = append(records, 1) // Authority::Owner
		} else {
			addr := mplref.Key("plugin authority")
			records = append(append(records, 3), addr[:]...) // Authority::Address
		}
		records = binary.LittleEndian.AppendUint64(records, uint64(off))
	}
	binary.LittleEndian.PutUint64(b[header+1:], uint64(len(b)))
	b = append(b, byte(mplcore.KeyPluginRegistryV1))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(plugins)))
	b = append(b, records...)
	return binary.LittleEndian.AppendUint32(b, 0) // no external plugin adapters
}

func TestAssetPlugins(t *testing.T) {
	t.Parallel()
	owner := mplref.Key("owner")
	base := assetData(owner[:], mplcore.UpdateAuthorityNone, nil, "n", "u")
	royalties := append([]byte{0}, make([]byte, 7)...)
	freeze := func(typ mplcore.PluginType, frozen byte) []byte { return []byte{byte(typ), frozen} }
	groups := func(n uint32) []byte {
		return append(binary.LittleEndian.AppendUint32([]byte{byte(mplcore.PluginGroups)}, n), make([]byte, 32*n)...)
	}
	for _, c := range []struct {
		name                string
		data                []byte
		frozen, burnRefused bool
	}{
		{"no plugins", base, false, false},
		{"royalties, thawed freeze delegate", withPlugins(base, royalties, freeze(mplcore.PluginFreezeDelegate, 0)), false, false},
		{"frozen freeze delegate", withPlugins(base, royalties, freeze(mplcore.PluginFreezeDelegate, 1)), true, true},
		{"frozen permanent freeze delegate", withPlugins(base, freeze(mplcore.PluginPermanentFreezeDelegate, 1)), true, true},
		{"in a group", withPlugins(base, groups(1)), false, true},
		{"no group", withPlugins(base, groups(0), royalties), false, false},
	} {
		a, err := mplcore.ParseAsset(c.data)
		if err != nil || a.Frozen != c.frozen || a.BurnRefused != c.burnRefused || a.Name != "n" {
			t.Errorf("%s: %+v, %v; want frozen %v, burn refused %v", c.name, a, err, c.frozen, c.burnRefused)
		}
	}
	bad := withPlugins(base, freeze(mplcore.PluginFreezeDelegate, 1))
	bad[len(base)+1] = 0xff // the registry offset past the end
	if _, err := mplcore.ParseAsset(bad); err == nil {
		t.Error("a registry offset past the end parsed")
	}
	col := append([]byte{byte(mplcore.KeyCollectionV1)}, owner[:]...)
	col = binary.LittleEndian.AppendUint32(col, 5)
	col = append(append(col, "Cores"...), make([]byte, 4)...)
	col = binary.LittleEndian.AppendUint32(binary.LittleEndian.AppendUint32(col, 7), 3)
	for frozen, data := range map[bool][]byte{
		false: withPlugins(col, groups(2)),
		true:  withPlugins(col, freeze(mplcore.PluginPermanentFreezeDelegate, 1)),
	} {
		c, err := mplcore.ParseCollection(data)
		if err != nil || c.FreezesAssets != frozen || c.NumMinted != 7 || c.CurrentSize != 3 {
			t.Errorf("collection: %+v, %v; want freezes assets %v, 3 of 7 minted", c, err, frozen)
		}
	}
}
