package server

import (
	"context"
	"errors"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"connectrpc.com/connect"
	"github.com/coder/websocket"

	"github.com/reclaim-sol/reclaim/backend/engine/assets"
	"github.com/reclaim-sol/reclaim/backend/pkg/clientip"
	"github.com/reclaim-sol/reclaim/backend/pkg/fault"
	"github.com/reclaim-sol/reclaim/backend/server/gateway"
	"github.com/reclaim-sol/reclaim/backend/service/wallet"
	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// The wallet stream: the Connect server stream StreamWalletAssets and the
// WebSocket at GET /v1/wallet/{address}/stream send the same chunks, built
// here (docs/decisions.md, "wallet stream").
const (
	// wsSubprotocol is the subprotocol a browser offers beside its token
	// ("bearer.<token>"); the server answers with it, never with the token.
	wsSubprotocol   = "reclaim.v1"
	wsTokenProtocol = "bearer."
	// wsEvent names the chunks, as the contract's scope table does.
	wsEvent = "streamWalletAssets"
	// wsWriteTimeout bounds one message's write: a client that stops reading
	// is dropped rather than holding the discovery behind it.
	wsWriteTimeout = 10 * time.Second
	// wsPingInterval and wsPongTimeout find peers that vanished without a
	// close while discovery has nothing to send.
	wsPingInterval = 20 * time.Second
	wsPongTimeout  = 10 * time.Second
	// wsReadLimit: clients send nothing but control frames.
	wsReadLimit = 1 << 10
	// maxCloseReason is what a close frame can carry.
	maxCloseReason = 123
)

// streamSendError marks a failure to deliver a chunk: the client is gone or
// too slow, so there is no one left to tell.
type streamSendError struct{ err error }

func (e *streamSendError) Error() string { return "send chunk: " + e.err.Error() }
func (e *streamSendError) Unwrap() error { return e.err }

// walletSocket serves the stream as a WebSocket. Credentials, rate limit and
// the requirement table are the Connect auth interceptor's
// (AuthInterceptor.Admit) for the StreamWalletAssets procedure.
type walletSocket struct {
	auth    *gateway.AuthInterceptor
	wallet  *walletServer
	codec   *gateway.JSONCodec
	origins *gateway.OriginPolicy
}

func newWalletSocket(g *gateway.AuthInterceptor, w *walletServer, codec *gateway.JSONCodec, origins *gateway.OriginPolicy) http.Handler {
	return &walletSocket{auth: g, wallet: w, codec: codec, origins: origins}
}

func (h *walletSocket) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet {
		gateway.NewRESTError(http.StatusMethodNotAllowed, connect.CodeUnimplemented,
			r.Method+" "+r.URL.Path+": the wallet stream takes GET with Upgrade: websocket", "").Write(w)
		return
	}
	if !gateway.IsWebSocket(r) {
		// Credentials first, as on every route: the refusal a WebSocket
		// would get as its first event.
		_, note, err := h.credentials(r.Context(), r, r.PathValue("address"))
		ce := connect.NewError(connect.CodeInvalidArgument, errors.New("this route is a WebSocket: connect with Upgrade: websocket "+
			"(or use the Connect server stream reclaim.v1.WalletService/StreamWalletAssets)"))
		if err != nil {
			ce = gateway.ToConnectError(r.Context(), h.auth, err)
		}
		note.SetHeaders(w.Header())
		for k, v := range ce.Meta() {
			w.Header()[k] = v
		}
		gateway.RestErrorOf(ce).Write(w)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: []string{wsSubprotocol},
		// Browsers do not apply CORS to WebSockets: admit checks the
		// Origin against the session's project once it is known, and
		// answers a refusal as an error event the page can read.
		InsecureSkipVerify: true,
	})
	if err != nil {
		return // Accept answered the handshake's error
	}
	defer c.CloseNow()
	c.SetReadLimit(wsReadLimit)
	// The connection's context: it ends when the client closes or drops
	// (CloseRead reads control frames until then), stopping the discovery;
	// or when the server stops (Lifecycle.Stop ends the request's context),
	// with that as its cause, while the socket stays open for the close.
	ctx, cancel := context.WithCancelCause(c.CloseRead(context.WithoutCancel(r.Context())))
	defer cancel(nil)
	defer context.AfterFunc(r.Context(), func() { cancel(context.Cause(r.Context())) })()
	go keepAlive(ctx, c)

	address := r.PathValue("address")
	ctx, in, err := h.admit(ctx, r, address)
	if err != nil {
		h.closeWith(ctx, c, err)
		return
	}
	err = h.wallet.streamChunks(ctx, address, in, func(msg *reclaimv1.StreamWalletAssetsResponse) error {
		data, err := h.codec.MarshalAppend(nil, msg)
		if err != nil {
			return err
		}
		return writeEvent(ctx, c, wsEvent, data)
	})
	var sendErr *streamSendError
	switch {
	case err == nil:
		gateway.Settle(ctx, "", nil)
		_ = c.Close(websocket.StatusNormalClosure, "complete")
	case errors.Is(context.Cause(ctx), gateway.ErrStopping):
		// The server stopped before the stream ended (its drain bound
		// passed): going away, so the client reconnects elsewhere.
		gateway.Settle(ctx, "", connect.NewError(connect.CodeUnavailable, gateway.ErrStopping))
		_ = c.Close(websocket.StatusGoingAway, "server shutting down: reconnect")
	case errors.As(err, &sendErr), ctx.Err() != nil:
		// The client left or stopped reading: nobody to tell.
		gateway.Settle(ctx, "", connect.NewError(connect.CodeCanceled, err))
	default:
		h.closeWith(ctx, c, err)
	}
}

// admit authenticates, rate-limits and authorises as the interceptor does,
// then checks the request as the Connect handler does.
func (h *walletSocket) admit(ctx context.Context, r *http.Request, address string) (context.Context, wallet.StreamRequest, error) {
	ctx, _, err := h.credentials(ctx, r, address)
	if err != nil {
		return ctx, wallet.StreamRequest{}, err
	}
	// A browser always sends Origin; other clients need not, and are
	// admitted as before, and so are pages of this server's own origin.
	if origin := r.Header.Get("Origin"); origin != "" && !gateway.SameHost(origin, r.Host) && !h.origins.Allows(ctx, origin, gateway.PrincipalFrom(ctx).ProjectID) {
		return ctx, wallet.StreamRequest{}, connect.NewError(connect.CodePermissionDenied, errors.New("origin "+origin+
			" is not allowed to use this project's sessions: add it to the project's allowed origins in the console's Settings"))
	}
	q := r.URL.Query()
	keys := make([]string, 0, len(q))
	for k := range q {
		keys = append(keys, k)
	}
	sort.Strings(keys) // the same error for the same query, as REST's
	for _, k := range keys {
		switch {
		case k != "token" && k != "chunkSize":
			return ctx, wallet.StreamRequest{}, gateway.InvalidParam(k, "unknown query parameter %q: the stream takes chunkSize (and token)", k)
		case len(q[k]) > 1: // as REST refuses it
			return ctx, wallet.StreamRequest{}, gateway.InvalidParam(k, "%s is given %d times: give it once", k, len(q[k]))
		}
	}
	var n *uint32
	if v := q.Get("chunkSize"); v != "" || q.Has("chunkSize") {
		u, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return ctx, wallet.StreamRequest{}, gateway.Invalidf("chunkSize", "must be from 1 to %d, got %q", assets.MaxChunkSize, v)
		}
		u32 := uint32(u)
		n = &u32
	}
	in, err := wallet.ParseStream(address, n)
	return ctx, in, err
}

// credentials authenticates, rate-limits and authorises the stream's
// request as the interceptor does, with its session token wherever the
// request carries it.
func (h *walletSocket) credentials(ctx context.Context, r *http.Request, address string) (context.Context, gateway.RateNote, error) {
	token, err := socketToken(r)
	if err != nil {
		return ctx, nil, err
	}
	hdr := http.Header{clientip.Header: r.Header.Values(clientip.Header)}
	hdr.Set("X-Api-Key", r.Header.Get("X-Api-Key"))
	if token != "" {
		hdr.Set("Authorization", "Bearer "+token)
	}
	return h.auth.Admit(ctx, reclaimv1connect.WalletServiceStreamWalletAssetsProcedure, hdr, r.RemoteAddr,
		&reclaimv1.StreamWalletAssetsRequest{Address: address})
}

// socketToken finds the session token: ?token=, a "bearer.<token>"
// subprotocol, or an Authorization header (for clients that can set one).
// More than one is refused, as two credential headers are.
func socketToken(r *http.Request) (string, error) {
	var found []string
	found = append(found, r.URL.Query()["token"]...) // given twice: two tokens
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if t, ok := strings.CutPrefix(strings.TrimSpace(p), wsTokenProtocol); ok {
				found = append(found, t)
			}
		}
	}
	if a := r.Header.Get("Authorization"); a != "" {
		scheme, t, ok := strings.Cut(a, " ")
		if !ok || !strings.EqualFold(scheme, "Bearer") {
			return "", fault.New(fault.KindUnauthenticated, "malformed Authorization header: want Bearer SESSION_TOKEN")
		}
		found = append(found, strings.TrimSpace(t))
	}
	switch {
	case len(found) > 1:
		return "", fault.New(fault.KindUnauthenticated, "send the session token once: ?token=, a bearer.<token> subprotocol or Authorization")
	case len(found) == 1 && found[0] == "":
		return "", fault.New(fault.KindUnauthenticated, "empty session token")
	case len(found) == 1:
		return found[0], nil
	}
	return "", nil // the Authenticator words the missing credential
}

// writeEvent sends one message: {"event": name, "data": data}.
func writeEvent(ctx context.Context, c *websocket.Conn, name string, data []byte) error {
	frame := make([]byte, 0, len(data)+len(name)+22)
	frame = append(frame, `{"event":"`...)
	frame = append(frame, name...)
	frame = append(frame, `","data":`...)
	frame = append(frame, data...)
	frame = append(frame, '}')
	wctx, cancel := context.WithTimeout(ctx, wsWriteTimeout)
	defer cancel()
	return c.Write(wctx, websocket.MessageText, frame)
}

// closeWith reports a refusal or failure: an "error" event whose data is the
// REST error body, then a close frame with code 4000 + the HTTP status REST
// would answer (4401, 4429, 4400, 4503, ...) and the message as reason.
func (h *walletSocket) closeWith(ctx context.Context, c *websocket.Conn, err error) {
	ce := gateway.ToConnectError(ctx, h.auth, err)
	gateway.Settle(ctx, "", ce)
	body := gateway.RestErrorOf(ce)
	_ = writeEvent(ctx, c, "error", body.Encode())
	_ = c.Close(websocket.StatusCode(4000+body.StatusCode), closeReason(body.Message))
}

// closeReason fits a message into a close frame, on a rune boundary.
func closeReason(msg string) string {
	if len(msg) <= maxCloseReason {
		return msg
	}
	cut := maxCloseReason - len("...")
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return msg[:cut] + "..."
}

// keepAlive pings the client while the connection lives; a client that does
// not answer within wsPongTimeout is dropped, ending ctx.
func keepAlive(ctx context.Context, c *websocket.Conn) {
	t := time.NewTicker(wsPingInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		pctx, cancel := context.WithTimeout(ctx, wsPongTimeout)
		err := c.Ping(pctx)
		cancel()
		if err != nil {
			_ = c.CloseNow()
			return
		}
	}
}
