package assets

import (
	"strings"
	"testing"
)

// TestImageURI: what metadata JSON may put in "image" that a client would
// render or follow. Only http(s), ipfs and ar with a host pass.
func TestImageURI(t *testing.T) {
	t.Parallel()
	const cid = "bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi"
	cases := []struct{ in, want string }{
		{"https://arweave.net/Q3mZ2dJ9nq8W1xYzTQe0b4k2k7Yh1oVvN2WcW6rBq0s", "https://arweave.net/Q3mZ2dJ9nq8W1xYzTQe0b4k2k7Yh1oVvN2WcW6rBq0s"},
		{"http://game.example/potion.png?v=2", "http://game.example/potion.png?v=2"},
		{" HTTPS://Game.Example/a b.png ", "https://Game.Example/a%20b.png"},
		{"ipfs://" + cid + "/1.png", "ipfs://" + cid + "/1.png"},
		{"ar://Q3mZ2dJ9nq8W1xYzTQe0b4k2k7Yh1oVvN2WcW6rBq0s", "ar://Q3mZ2dJ9nq8W1xYzTQe0b4k2k7Yh1oVvN2WcW6rBq0s"},
		{"javascript:alert(document.cookie)", ""},
		{"JavaScript://%0aalert(1)", ""},
		{"data:image/svg+xml;base64,PHN2Zz48c2NyaXB0PmFsZXJ0KDEpPC9zY3JpcHQ+PC9zdmc+", ""},
		{"data:text/html,<script>alert(1)</script>", ""},
		{"vbscript:msgbox", ""},
		{"file:///etc/passwd", ""},
		{"ftp://files.example/a.png", ""},
		{"blob:https://app.example/uuid", ""},
		{"//cdn.example/a.png", ""},
		{"/a.png", ""},
		{"https://", ""},
		{"ipfs://", ""},
		{"https://wallet.example@evil.example/a.png", ""},
		{"https://user:pw@cdn.example/a.png", ""},
		{"https://cdn.example/\x00.png", ""},
		{"https://cdn.example/" + strings.Repeat("a", 2048), ""},
		{"", ""},
	}
	for _, c := range cases {
		if got := ImageURI(c.in); got != c.want {
			t.Errorf("ImageURI(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
