// Compiled by `npm run typecheck`: the package as an integrator uses it, in
// a browser (connect-web) and in Node (connect-node). Lamports are bigint.
import { createClient } from "@connectrpc/connect";
import { createConnectTransport as webTransport } from "@connectrpc/connect-web";
import { createConnectTransport as nodeTransport } from "@connectrpc/connect-node";
import { ProjectService, SessionService, WalletService, apiKey, formatSol, sessionToken } from "@reclaim-sol/client";
import type { BuiltTransaction, WalletItem } from "@reclaim-sol/client";

export async function browser(baseUrl: string, token: string, wallet: string): Promise<string> {
  const transport = webTransport({ baseUrl, interceptors: [sessionToken(() => token)] });
  const wallets = createClient(WalletService, transport);
  const listing = await wallets.listAssets({ address: wallet });
  const closable: WalletItem[] = listing.items.filter((it) => it.actions.includes("close"));
  // An Idempotency-Key makes the build safe to send again: the same key
  // and body answer the same transactions and tickets.
  let replayed = false;
  const built = await wallets.buildTransactions(
    {
      address: wallet,
      items: closable.map((it) => ({ type: it.type, address: it.address, action: "close" })),
      donationPercentage: 0.1,
      // 1 when the wallet's supportedTransactionVersions has 1.
      transactionVersion: 1,
    },
    { headers: { "Idempotency-Key": crypto.randomUUID() }, onHeader: (h) => (replayed = h.get("Idempotent-Replayed") === "true") },
  );
  if (replayed) console.log("the first build's answer");
  const first: BuiltTransaction | undefined = built.transactions[0];
  const version: number = first?.transactionVersion ?? 0;
  const net: bigint = built.totals?.netRebate ?? 0n;
  for await (const chunk of wallets.streamWalletAssets({ address: wallet, chunkSize: 50 })) {
    if (chunk.complete) break;
  }
  const stats = await createClient(ProjectService, transport).getStats({});
  return `${first?.submissionTicket} v${version} ${formatSol(net)} ${formatSol(stats.totalGrossRebate)}`;
}

export async function server(baseUrl: string, key: string, wallet: string): Promise<string> {
  const transport = nodeTransport({ baseUrl, httpVersion: "1.1", interceptors: [apiKey(key)] });
  const session = await createClient(SessionService, transport).createSession({ walletAddress: wallet, ttlSeconds: 600n });
  return session.token;
}
