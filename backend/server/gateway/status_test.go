package gateway

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"connectrpc.com/connect"
	"connectrpc.com/vanguard"

	reclaimv1 "github.com/reclaim-sol/reclaim/gen/reclaim/v1"
	"github.com/reclaim-sol/reclaim/gen/reclaim/v1/reclaimv1connect"
)

// codeSession fails CreateSession with the code its walletAddress names.
type codeSession struct {
	reclaimv1connect.UnimplementedSessionServiceHandler
}

func (codeSession) CreateSession(_ context.Context, req *connect.Request[reclaimv1.CreateSessionRequest]) (*connect.Response[reclaimv1.CreateSessionResponse], error) {
	n, _ := strconv.Atoi(req.Msg.GetWalletAddress())
	return nil, connect.NewError(connect.Code(n), errors.New("failed on purpose"))
}

// The status table we write REST statuses from (WebSocket close codes,
// errors answered before vanguard) is vanguard's, code by code.
func TestStatusTableMatchesVanguard(t *testing.T) {
	path, h := reclaimv1connect.NewSessionServiceHandler(codeSession{})
	tc, err := vanguard.NewTranscoder([]*vanguard.Service{vanguard.NewService(path, h)})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(tc)
	t.Cleanup(srv.Close)
	for code := connect.CodeCanceled; code <= connect.CodeUnauthenticated; code++ {
		body := `{"walletAddress":"` + strconv.Itoa(int(code)) + `"}`
		resp, err := http.Post(srv.URL+"/v1/sessions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if got := httpStatusFor(code); resp.StatusCode != got {
			t.Errorf("%s: vanguard answers %d, our table %d", code, resp.StatusCode, got)
		}
		if code != connect.CodeUnknown && code != connect.CodeDataLoss && code != connect.CodeFailedPrecondition &&
			code != connect.CodeOutOfRange && code != connect.CodeAborted {
			// A status that one code alone gives maps back to that code.
			if back := CodeForStatus(resp.StatusCode); back != code {
				t.Errorf("%s: status %d maps back to %s", code, resp.StatusCode, back)
			}
		}
	}
}
