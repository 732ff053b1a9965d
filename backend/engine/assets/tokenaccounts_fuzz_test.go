package assets

import (
	"fmt"
	"testing"

	"github.com/gagliardetto/solana-go"

	"github.com/reclaim-sol/reclaim/backend/chain/spltoken"
)

// FuzzTokenAccountsAnswer feeds tokenAccountsAnswer what a provider could
// answer: it must not panic, and whenever it and solana-go's decoder both
// read an answer, every account it lists solana-go lists too, in the same
// order. (It is the stricter: encoding/json also takes "Value" for "value",
// and an entry without "pubkey" for the zero address; a node writes
// neither. TestTokenAccountsAnswerEqualsSolanaGo checks equality on what
// nodes write.)
func FuzzTokenAccountsAnswer(f *testing.F) {
	wallet := solana.MustPublicKeyFromBase58("9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM")
	for _, program := range spltoken.Programs {
		f.Add(tokenAccountsAnswerJSON(f, wallet, program, 2))
	}
	f.Add([]byte(`{"jsonrpc":"2.0","error":{"code":-32602,"message":"Invalid param"},"id":1}`))
	f.Add([]byte(`{"jsonrpc":"2.0","result":{"context":{"slot":1},"value":[]},"id":1}`))
	f.Add([]byte(`{"jsonrpc":"2.0","result":null,"id":1}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := tokenAccountsAnswer(body, wallet)
		if err != nil {
			return
		}
		want, ok := solanaGoTokenAccounts(body, wallet)
		if !ok {
			return // solana-go refuses what the reader took: nothing to compare
		}
		i := 0
		for _, a := range want {
			if i < len(got) && fmt.Sprint(got[i]) == fmt.Sprint(a) {
				i++
			}
		}
		if i < len(got) {
			t.Fatalf("the reader lists\n%v\nsolana-go lists\n%v", got, want)
		}
	})
}
