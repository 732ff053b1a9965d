// The sample integration's frontend: a page on the integrator's own origin
// that lets a person reclaim the rent of their wallet's items with Reclaim.
//
//  1. find the wallets of the page (the Wallet Standard) and connect one;
//  2. ask the integrator's backend (same origin, /api/session) for a Reclaim
//     session token bound to that wallet: the API key never reaches the page;
//  3. with the generated client (@reclaim-sol/client over connect-web), call
//     Reclaim on its own origin (CORS): list the items with their rebates,
//     build transactions for the selected ones with a donation, have the
//     wallet sign them, submit them, follow them until confirmed, and list
//     the wallet again (what was reclaimed is gone).
import type { BuildTransactionsResponse, GetSummaryResponse, WalletItem } from "@reclaim-sol/client";
import {
  $, actionName, connectWallet, el, fail, follow, loadConfig, offerWallets, showResults, showStats, showTotals, short, signAll, sol, status,
  typeName, type Config, type Connected,
} from "./common";

/** The state of one visit. */
interface Session extends Connected {
  config: Config;
  items: WalletItem[];
  quote?: BuildTransactionsResponse;
}

async function main() {
  const config = await loadConfig();
  offerWallets(async (w) => {
    const s: Session = { ...(await connectWallet(config, w)), config, items: [] };
    await list(s);
    $<HTMLButtonElement>("reclaim-all").onclick = () => reclaimAll(s).catch((err) => fail("reclaim all", err));
    $<HTMLButtonElement>("build").onclick = () => build(s).catch((err) => fail("build", err));
    $<HTMLButtonElement>("submit").onclick = () => submit(s).catch((err) => fail("submit", err));
    $<HTMLButtonElement>("select-all").onclick = () => {
      for (const box of document.querySelectorAll<HTMLInputElement>('[data-testid="select"]:not(:disabled)')) box.checked = true;
    };
    await showStats(s);
  });
}

async function list(s: Session) {
  status("Listing the wallet's items…");
  // The summary is asked with the items and shown with them, in one go:
  // it stands above the buttons, which must not move once they show.
  const [listing, sum] = await Promise.all([
    s.wallets.listAssets({ address: s.account.address }),
    s.wallets.getSummary({ address: s.account.address, donationPercentage: donation(), priorityFeeLevel: "none" })
      .catch((err) => fail("summary", err)),
  ]);
  if (sum) showSummary(sum);
  s.items = listing.items;
  $("items").replaceChildren(...listing.items.map((it) => {
    const action = it.actions[0];
    const box = el("input", { type: "checkbox", "data-testid": "select", "aria-label": `Select ${it.name || typeName(it.type)}` });
    if (!action) box.setAttribute("disabled", "");
    return el("tr", { "data-testid": "item", "data-address": it.address, "data-type": it.type },
      el("td", {}, box),
      el("td", { class: "name" }, it.name || typeName(it.type)),
      el("td", { "data-testid": "item-type" }, typeName(it.type)),
      el("td", { class: "mono", title: it.address }, short(it.address, 4)),
      el("td", { class: "num", "data-testid": "item-rebate", "data-lamports": String(it.lamports ?? 0n) }, sol(it.lamports ?? 0n)),
      el("td", {}, actionName(action)));
  }));
  status(listing.items.length === 0 ? "Nothing left to reclaim in this wallet." : `${listing.items.length} items; select the ones to reclaim.`);
}

async function build(s: Session) {
  const rows = [...document.querySelectorAll<HTMLTableRowElement>('[data-testid="item"]')];
  const items = rows.flatMap((row, i) => {
    const it = s.items[i];
    const checked = row.querySelector<HTMLInputElement>("input")!.checked;
    return checked && it.actions[0] ? [{ type: it.type, address: it.address, action: it.actions[0] }] : [];
  });
  if (items.length === 0) throw new Error("select at least one item");
  $("error").textContent = "";
  status("Building…");
  showQuote(s, await s.wallets.buildTransactions({ address: s.account.address, items, donationPercentage: donation(), priorityFeeLevel: "none" }));
}

// donation is the fraction of the rebate the person chose to donate.
const donation = () => Number($<HTMLInputElement>("donation").value) / 100;

// showSummary shows, before anything is built, what the wallet holds per
// type and what reclaiming every safe item would return (the same figures
// the select-all build then returns).
function showSummary(sum: GetSummaryResponse) {
  const t = sum.totals!;
  const types = Object.entries(sum.types).filter(([, v]) => v.count > 0)
    .map(([k, v]) => el("tr", {}, el("th", {}, typeName(k)), el("td", { class: "num" }, `${v.count} (${sol(v.lamports)})`)));
  $("summary").replaceChildren(...types,
    el("tr", {}, el("th", {}, "Reclaim all safe items"), el("td", {
      class: "num wrap", "data-testid": "summary-net", "data-lamports": String(t.netRebate), "data-transactions": String(sum.transactionCount),
    }, `${t.itemCount} items, ${sol(t.netRebate)} to you in ${sum.transactionCount} transactions`)));
  $<HTMLButtonElement>("reclaim-all").disabled = sum.transactionCount === 0;
}

// reclaimAll builds every safe item (closes of empty accounts, excess rent,
// buffers, nonce and stake accounts; never a burn).
async function reclaimAll(s: Session) {
  $("error").textContent = "";
  status("Building…");
  showQuote(s, await s.wallets.buildTransactions({ address: s.account.address, selectAll: true, donationPercentage: donation(), priorityFeeLevel: "none" }));
}

function showQuote(s: Session, quote: BuildTransactionsResponse) {
  s.quote = quote;
  showTotals(quote);
  $<HTMLButtonElement>("submit").disabled = false;
  status(`${quote.transactions.length} transactions to sign.`);
}

async function submit(s: Session) {
  const quote = s.quote;
  if (!quote) throw new Error("build first");
  status("Waiting for the wallet…");
  const { signed, sentBy } = await signAll(s, quote.transactions);
  status("Submitting…");
  const { results } = await s.wallets.submitTransactions({ address: s.account.address, signed });
  s.quote = undefined;
  $<HTMLButtonElement>("submit").disabled = true;
  showResults(s.config, results, sentBy);
  const sent = results.filter((r) => r.status === "submitted").length;
  status("Submitted: following each transaction until it is final…");
  const confirmed = await follow(s, results.flatMap((r) => (r.status === "submitted" && r.signature ? [r.signature] : [])));
  await showStats(s);
  // What was reclaimed is gone from the wallet: list it again.
  await list(s);
  $("quote").replaceChildren();
  status(confirmed ? `Confirmed: ${sent} transactions landed. The list above is the wallet now.` : "Submitted; not confirmed yet. The list above is the wallet now.");
}

main().catch((err) => fail("start", err));
