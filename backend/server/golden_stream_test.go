package server_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// The wallet stream: the Connect server stream (Connect JSON and protobuf,
// gRPC) and the WebSocket, whose answer is its upgrade, its messages and its
// close frame.

const streamWires = connectJSON | connectProto | grpcProto

func (f *flow) stream(g *golden) {
	owner := f.owner.String()
	c := call{op: opStream, address: owner, cred: f.session, wires: streamWires}
	g.send(named(c, "stream in chunks of 3", `{"chunkSize":3}`))
	g.send(named(c, "stream in the default chunks", ``))
	g.send(call{name: "stream a wallet without token accounts", op: opStream, address: seededAddress("empty wallet").String(),
		cred: g.newSession("create a session of a wallet without token accounts", f.key,
			map[string]any{"walletAddress": seededAddress("empty wallet").String()}), wires: connectJSON})
	g.send(named(c, "stream in chunks of 0", `{"chunkSize":0}`))
	g.send(named(c, "stream in chunks of 501", `{"chunkSize":501}`))
	c.cred = f.key
	g.send(named(c, "stream with an API key", ``))
	c.cred = f.lacking["wallet:stream"]
	g.send(named(c, "stream with a session without wallet:stream", ``))
	c.cred = f.otherSession
	g.send(named(c, "stream with a session of another wallet", ``))
	g.send(call{name: "stream not an address", op: opStream, address: "0OIl", cred: f.session, wires: connectJSON})

	token := strings.TrimPrefix(g.header(f.session, "Authorization"), "Bearer ")
	sub := []string{"reclaim.v1", "bearer." + token}
	asSub := gcred{label: f.session.label + " as a subprotocol"}
	inQuery := gcred{label: f.session.label + " in ?token="}
	only := []string{"reclaim.v1"}
	ws := func(name, query string, cred gcred, protocols []string) {
		g.socket(name, "/v1/wallet/"+owner+"/stream"+query, cred, protocols)
	}
	ws("socket in chunks of 3", "?chunkSize=3", asSub, sub)
	ws("socket with the token in the query", "?token="+token, inQuery, only)
	ws("socket with the token in Authorization", "?chunkSize=500", f.session, only)
	ws("socket in chunks of 0", "?chunkSize=0", asSub, sub)
	ws("socket in chunks of abc", "?chunkSize=abc", asSub, sub)
	ws("socket with an unknown parameter", "?extra=1", asSub, sub)
	ws("socket with the token twice", "?token="+token, inQuery.named("the session in ?token= and as a subprotocol"), sub)
	ws("socket with an empty token", "?token=", gcred{label: "empty ?token="}, only)
	ws("socket with a token that is not one", "?token=x", gcred{label: "?token=x"}, only)
	ws("socket with an empty chunkSize", "?chunkSize=", asSub, sub)
	ws("socket with chunkSize twice", "?chunkSize=2&chunkSize=3", asSub, sub)
	ws("socket without credentials", "", gcred{label: "none"}, only)
	ws("socket with an API key", "", f.key, only)
	ws("socket with a session without wallet:stream", "", f.lacking["wallet:stream"], only)
	ws("socket with a session of another wallet", "", f.otherSession, only)
	g.socket("socket on a path not an address", "/v1/wallet/0OIl/stream", f.session, only)

	rest := call{op: opStream, address: owner, cred: f.session, wires: restJSON}
	g.send(named(rest, "the socket's route without Upgrade", ``))
	rest.method = "POST"
	g.send(named(rest, "POST on the socket's route", `{}`))
	rest.method, rest.path = "", "/v1/wallet//stream"
	g.send(named(rest, "the socket's route without address", ``))
	// Credentials first: asked who is calling before told it is a WebSocket.
	rest.method, rest.path, rest.cred = "", "", gcred{label: "none"}
	g.send(named(rest, "the socket's route without Upgrade or credentials", ``))
}

// named is c with a name and body.
func named(c call, name, body string) call {
	c.name, c.body = name, body
	return c
}

// named is the credential shown with another label.
func (c gcred) named(label string) gcred {
	c.label = label
	return c
}

// header is the value cred sets for k.
func (g *golden) header(c gcred, k string) string {
	h := http.Header{}
	c.set(h)
	return h.Get(k)
}

// socket opens the wallet's WebSocket and records the upgrade, every
// message and the close.
func (g *golden) socket(name, path string, cred gcred, protocols []string) {
	g.t.Helper()
	g.dial(name, path, cred, protocols, "")
}

// socketFrom opens the WebSocket as a browser page of origin does.
func (g *golden) socketFrom(name, path string, cred gcred, origin string) {
	g.t.Helper()
	g.dial(name, path, cred, []string{"reclaim.v1"}, origin)
}

func (g *golden) dial(name, path string, cred gcred, protocols []string, origin string) {
	g.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	h := http.Header{}
	if cred.set != nil {
		cred.set(h)
	}
	if origin != "" {
		h.Set("Origin", origin)
	}
	fmt.Fprintf(&g.out, "### %s · WebSocket\n> GET %s\n", name, g.norm.text(path))
	fmt.Fprintf(&g.out, "> (credential: %s)\n", cred.label)
	g.headers("> ", http.Header{"Origin": {origin}, "Sec-Websocket-Protocol": {strings.Join(protocols, ", ")}}, map[string]bool{"Origin": origin == ""})
	conn, resp, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(g.e.srv.URL, "http")+path,
		&websocket.DialOptions{HTTPHeader: h, Subprotocols: protocols})
	if resp != nil {
		fmt.Fprintf(&g.out, "< %d\n", resp.StatusCode)
		g.headers("< ", resp.Header, droppedHeaders)
	}
	if err != nil {
		g.t.Fatalf("%s: %v", name, err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(10 << 20)
	for {
		_, msg, err := conn.Read(ctx)
		var ce websocket.CloseError
		if errors.As(err, &ce) {
			fmt.Fprintf(&g.out, "close %d %q\n\n", ce.Code, ce.Reason)
			return
		}
		if err != nil {
			g.t.Fatalf("%s: %v", name, err)
		}
		fmt.Fprintf(&g.out, "message\n%s\n", g.jsonIndented(string(msg)))
	}
}
