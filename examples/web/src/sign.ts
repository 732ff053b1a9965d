// The signing page an agent's build links to (Reclaim's RECLAIM_SIGN_URL):
// /sign?build=ID. It reads the build Reclaim kept for that id (the
// transactions, never a credential), has the person connect the build's
// wallet, builds again when the tickets expired, has the wallet sign,
// submits with a session from the integrator's backend, and follows the
// transactions until confirmed.
import type { BuildTransactionsRequest, BuildTransactionsResponse } from "@reclaim-sol/client";
import { BuildTransactionsRequestSchema, BuildTransactionsResponseSchema } from "@reclaim-sol/client";
import { fromJson, type JsonValue } from "@bufbuild/protobuf";
import {
  $, allConfirmed, connectWallet, el, fail, follow, loadConfig, offerWallets, paging, plural, showResults, showStats, showTotals, signAndSubmit, status, typeName,
} from "./common";

/** What GET /mcp/builds/{id} answers. */
interface Stashed {
  walletAddress: string;
  build: JsonValue;
  request: JsonValue;
  builtAt: string;
  expiresAt: string;
}

async function main() {
  const config = await loadConfig();
  const id = new URLSearchParams(location.search).get("build");
  if (!id) throw new Error("this page signs a build an agent made: open the link its answer gave (…/sign?build=…)");
  const resp = await fetch(`${config.reclaimUrl}/mcp/builds/${encodeURIComponent(id)}`);
  if (!resp.ok) throw new Error(`Reclaim has no such build (${resp.status}): it expired or was made on another server; ask the agent to build again`);
  const stashed: Stashed = await resp.json();
  const built: BuildTransactionsResponse = fromJson(BuildTransactionsResponseSchema, stashed.build);
  const request: BuildTransactionsRequest = fromJson(BuildTransactionsRequestSchema, stashed.request);
  $("wallet").textContent = stashed.walletAddress;
  showQuote(built);
  status("Connect the wallet these transactions are for.");
  offerWallets(async (w) => {
    const c = await connectWallet(config, w);
    if (c.account.address !== stashed.walletAddress) {
      throw new Error(`this wallet is ${c.account.address}; the transactions are for ${stashed.walletAddress}`);
    }
    await showStats(c);
    const button = $<HTMLButtonElement>("submit");
    button.disabled = false;
    status("Ready: the wallet signs these transactions, then they are submitted.");
    button.onclick = async () => {
      try {
        button.disabled = true;
        // Signed in slices a wallet takes, each submitted when signed;
        // what is older than the tickets' life is built again first.
        const signatures: string[] = [];
        $("results").replaceChildren();
        await signAndSubmit(c, built, Date.parse(stashed.builtAt), paging().transactionsPerSign,
          async (items) => {
            const again = await c.wallets.buildTransactions({ ...request, items, selectAll: false });
            showQuote(again);
            return again;
          },
          (results, sentBy) => {
            showResults(config, results, sentBy, true);
            signatures.push(...results.flatMap((r) => (r.status === "submitted" && r.signature ? [r.signature] : [])));
          });
        status("Submitted: following each transaction until it is final…");
        const ok = allConfirmed(await follow(c, signatures));
        await showStats(c);
        status(ok ? `Confirmed: ${plural(signatures.length, "transaction")} landed.` : "Submitted; not every one is confirmed: see each line.");
      } catch (err) {
        fail("sign and submit", err);
      }
    };
  });
}

function showQuote(b: BuildTransactionsResponse) {
  showTotals(b);
  $("includes").replaceChildren(...b.transactions.flatMap((tx) => tx.includes).map((it) =>
    el("li", {}, `${typeName(it.type)} `, el("span", { class: "mono" }, it.address), ` (${it.action})`)));
}

main().catch((err) => fail("start", err));
