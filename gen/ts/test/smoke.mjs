// The client from Node against a running service, as an integrator's backend
// and app would use it (run by the e2e suite, e2e/tsclient_test.go):
//
//   node test/smoke.mjs BASE_URL API_KEY WALLET
//
// mints a session with the API key (connect-node), lists the wallet, reads
// the server stream, builds a transaction for every closable item with a
// 10% donation, and reads the stats; it prints what it decoded as one JSON
// line, 64-bit integers as decimal strings, with their JavaScript types.
import { createClient } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-node";
import { ProjectService, SessionService, WalletService, apiKey, sessionToken } from "@reclaim-sol/client";

const [baseUrl, key, wallet] = process.argv.slice(2);
const server = createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors: [apiKey(key)] });
const session = await createClient(SessionService, server).createSession({ walletAddress: wallet, ttlSeconds: 600n });
const app = createConnectTransport({ baseUrl, httpVersion: "1.1", interceptors: [sessionToken(() => session.token)] });
const wallets = createClient(WalletService, app);

const listing = await wallets.listAssets({ address: wallet });
const streamed = [];
for await (const chunk of wallets.streamWalletAssets({ address: wallet, chunkSize: 2 })) {
  streamed.push(...chunk.items.map((it) => it.address));
}
const closable = listing.items.filter((it) => it.actions.includes("close"));
const built = await wallets.buildTransactions({
  address: wallet,
  items: closable.map((it) => ({ type: it.type, address: it.address, action: "close" })),
  donationPercentage: 0.1,
  priorityFeeLevel: "none",
});
const stats = await createClient(ProjectService, app).getStats({});

const str = (v) => v.toString();
console.log(JSON.stringify({
  scopes: session.scopes,
  items: listing.items.map((it) => ({ address: it.address, lamports: str(it.lamports), type: typeof it.lamports })),
  streamed,
  transactions: built.transactions.map((t) => ({
    grossRebate: str(t.grossRebate), netRebate: str(t.netRebate), donationAmount: str(t.donationAmount), type: typeof t.netRebate,
  })),
  totalNetRebate: str(built.totals.netRebate),
  statsType: typeof stats.totalGrossRebate,
}));
