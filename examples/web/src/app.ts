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
//
// A selection larger than one build (Reclaim takes 500 items a build) is
// reclaimed in pages: each page is built just before the wallet signs it
// (tickets live 60 s), signed in slices of at most transactionsPerSign
// transactions a wallet request and submitted, and followed until final
// while the next page is built and signed. The page's query parameters
// itemsPerBuild (default and most 500) and transactionsPerSign (default
// 50) set the sizes.
import type { BuildTransactionsRequestSchema, BuildTransactionsResponse, GetSummaryResponse, WalletItem } from "@reclaim-sol/client";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  $, actionName, addLanded, allConfirmed, connectWallet, el, fail, follow, loadConfig, maxItemsPerBuild, noneLanded, offerWallets, paging, plural,
  showLanded, showResults, showStats, showTotals, short, signAndSubmit, sol, status, transactionVersion, typeName, type Config, type Connected, type Landed,
} from "./common";

/** The state of one visit. */
interface Session extends Connected {
  config: Config;
  items: WalletItem[];
  /** What Submit reclaims. */
  plan?: Plan;
}

/** One item of a build's selection. */
type Selection = { type: string; address: string; action: string };

/**
 * What Submit reclaims: the selected items (in pages of itemsPerBuild), or,
 * without items, every safe item (select-all builds, 500 items each, until
 * none is left), and the first page when it was built to show its quote.
 */
interface Plan {
  items?: Selection[];
  first?: { built: BuildTransactionsResponse; at: number };
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
    s.wallets.getSummary({ address: s.account.address, donationPercentage: donation(), priorityFeeLevel: "none", transactionVersion: transactionVersion(s) })
      .catch((err) => fail("summary", err)),
  ]);
  if (sum) showSummary(sum);
  s.items = listing.items;
  $("items").replaceChildren(...listing.items.map((it) => {
    const action = it.actions[0];
    // The Name column names the item (its metadata, else its mint's symbol
    // or address); the Type column says what it is, never twice.
    const name = it.name || it.symbol || (it.mint ? `Mint ${short(it.mint, 4)}` : "");
    const box = el("input", { type: "checkbox", "data-testid": "select", "aria-label": `Select ${name || typeName(it.type)} (${short(it.address, 4)})` });
    if (!action) box.setAttribute("disabled", "");
    return el("tr", { "data-testid": "item", "data-address": it.address, "data-type": it.type },
      el("td", {}, box),
      name ? el("td", { class: "name" }, name) : el("td", { class: "name muted" }, "no name"),
      el("td", { "data-testid": "item-type" }, typeName(it.type)),
      el("td", { class: "mono", title: it.address }, short(it.address, 4)),
      el("td", { class: "num", "data-testid": "item-rebate", "data-lamports": String(it.lamports ?? 0n) }, sol(it.lamports ?? 0n)),
      el("td", {}, actionName(action)));
  }));
  status(listing.items.length === 0 ? "Nothing left to reclaim in this wallet." : `${plural(listing.items.length, "item")} listed below; select the ones to reclaim.`);
}

// build builds the selected items and shows the quote, or, when they are
// more than one build takes, shows how they will be reclaimed in pages
// (each page is built when its turn comes, so its tickets are fresh).
async function build(s: Session) {
  const rows = [...document.querySelectorAll<HTMLTableRowElement>('[data-testid="item"]')];
  const items = rows.flatMap((row, i) => {
    const it = s.items[i];
    const checked = row.querySelector<HTMLInputElement>("input")!.checked;
    return checked && it.actions[0] ? [{ type: it.type, address: it.address, action: it.actions[0] }] : [];
  });
  if (items.length === 0) throw new Error("select at least one item");
  $("error").textContent = "";
  if (items.length > paging().itemsPerBuild) {
    showPlan(s, { items });
    return;
  }
  status("Building…");
  showPlan(s, { items, first: { built: await buildPage(s, { items }), at: Date.now() } });
}

// buildPage builds one page with the page's donation, no priority fee, in
// the transaction version the wallet signs.
function buildPage(s: Session, selection: { items: Selection[] } | { selectAll: true }): Promise<BuildTransactionsResponse> {
  const req: MessageInitShape<typeof BuildTransactionsRequestSchema> = {
    address: s.account.address, donationPercentage: donation(), priorityFeeLevel: "none", transactionVersion: transactionVersion(s), ...selection,
  };
  return s.wallets.buildTransactions(req);
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
    }, t.itemCount === 0 ? "None: nothing here is safe to reclaim without a burn"
      : `${plural(t.itemCount, "item")}, ${sol(t.netRebate)} to you in ${plural(sum.transactionCount, "transaction")}`)));
  $<HTMLButtonElement>("reclaim-all").disabled = sum.transactionCount === 0;
}

// reclaimAll builds every safe item (closes of empty accounts, excess rent,
// buffers, nonce and stake accounts; never a burn): 500 at most a build,
// and Submit goes on with the next 500 once these landed.
async function reclaimAll(s: Session) {
  $("error").textContent = "";
  status("Building…");
  showPlan(s, { first: { built: await buildPage(s, { selectAll: true }), at: Date.now() } });
}

function showPlan(s: Session, plan: Plan) {
  s.plan = plan;
  $("landed").replaceChildren();
  $<HTMLButtonElement>("submit").disabled = false;
  const { itemsPerBuild, transactionsPerSign } = paging();
  if (plan.first) {
    const b = plan.first.built;
    showTotals(b);
    const more = !plan.items && b.totals!.itemCount >= maxItemsPerBuild ? " Once they land, the next safe items are built and signed in the same way." : "";
    const slices = Math.ceil(b.transactions.length / transactionsPerSign);
    status(`${plural(b.transactions.length, "transaction")} to sign${slices > 1 ? ` in ${slices} wallet requests` : ""}.${more}`);
    return;
  }
  const items = plan.items!;
  const pages = Math.ceil(items.length / itemsPerBuild);
  const lamports = new Map(s.items.map((it) => [it.address, it.lamports ?? 0n]));
  const listed = items.reduce((sum, it) => sum + (lamports.get(it.address) ?? 0n), 0n);
  $("quote").replaceChildren(
    el("tr", {}, el("th", {}, "Items"), el("td", { class: "num", "data-testid": "plan-items" }, String(items.length))),
    el("tr", {}, el("th", {}, "Pages"), el("td", { class: "num", "data-testid": "plan-pages" }, `${pages} of at most ${plural(itemsPerBuild, "item")}`)),
    el("tr", {}, el("th", {}, "Listed rebate (before fees)"), el("td", { class: "num", "data-lamports": String(listed) }, sol(listed))));
  status(`${plural(items.length, "item")}: ${plural(pages, "page")}. Each page is built just before the wallet signs it, at most ${plural(transactionsPerSign, "transaction")} a wallet request.`);
}

// submit reclaims the plan page by page: build (but the first page when it
// was built for its quote), sign in slices and submit, then the next page,
// while the pages submitted are followed until final one after the other
// (one status call at a time) and what landed is added up. Select-all
// pages wait for their page to be final: the next build lists the wallet
// again. A page failing (the wallet refused, a call failed) ends it: what
// was submitted is still followed and counted, the wallet is listed again
// and the items that did not land stay selected, for Build to go on.
async function submit(s: Session) {
  const plan = s.plan;
  if (!plan) throw new Error("build first");
  s.plan = undefined;
  $<HTMLButtonElement>("submit").disabled = true;
  const { itemsPerBuild, transactionsPerSign } = paging();
  const pages = plan.items ? chunks(plan.items, itemsPerBuild) : undefined;
  const landed = noneLanded();
  const done = new Set<string>();
  $("results").replaceChildren();
  let page = 0;
  let failed: unknown;
  let final = true; // every submission confirmed
  const progress = (state: Parameters<typeof showProgress>[3]) => showProgress(page, pages?.length, landed, state);
  // following settles once every page submitted so far is final; it
  // answers how many of the last page's transactions confirmed.
  let following = Promise.resolve(0);
  let followFailed: unknown;
  const followPage = (signatures: string[]) => {
    following = following.then(async () => {
      const subs = await follow(s, signatures);
      addLanded(landed, subs);
      for (const sub of subs) if (sub.status === "confirmed") for (const it of sub.includes) done.add(it.address);
      final &&= allConfirmed(subs);
      showLanded(landed);
      return subs.filter((sub) => sub.status === "confirmed").length;
    }).catch((err) => {
      followFailed ??= err;
      return 0;
    });
    return following;
  };
  try {
    for (;;) {
      if (followFailed) throw followFailed;
      page++;
      let next = plan.first && page === 1 ? plan.first : undefined;
      if (!next) {
        progress("building");
        try {
          next = { built: await buildPage(s, pages ? { items: pages[page - 1] } : { selectAll: true }), at: Date.now() };
        } catch (err) {
          // Select-all pages end when nothing safe is left.
          if (!pages && err instanceof ConnectError && err.code === Code.InvalidArgument) break;
          throw err;
        }
        showTotals(next.built);
      }
      progress("signing");
      const signatures: string[] = [];
      try {
        await signAndSubmit(s, next.built, next.at, transactionsPerSign, (items) => buildPage(s, { items }), (results, sentBy) => {
          showResults(s.config, results, sentBy, true, page);
          signatures.push(...results.flatMap((r) => (r.status === "submitted" && r.signature ? [r.signature] : [])));
        });
      } finally {
        // What was submitted is followed, also when a later slice failed.
        followPage(signatures);
      }
      if (pages) {
        if (page === pages.length) break;
        continue;
      }
      progress("following");
      const confirmed = await following;
      if (next.built.totals!.itemCount < maxItemsPerBuild || confirmed === 0) break;
    }
  } catch (err) {
    failed = err;
  }
  progress("following");
  await following;
  failed ??= followFailed;
  await showStats(s);
  // What was reclaimed is gone from the wallet: list it again, with what is
  // left of the selection still selected.
  await list(s);
  const left = new Set((plan.items ?? []).filter((it) => !done.has(it.address)).map((it) => it.address));
  for (const row of document.querySelectorAll<HTMLTableRowElement>('[data-testid="item"]')) {
    const box = row.querySelector<HTMLInputElement>("input")!;
    if (left.has(row.dataset.address!) && !box.disabled) box.checked = true;
  }
  $("quote").replaceChildren();
  progress(failed ? "stopped" : "done");
  const what = landed.transactions === 0 ? "nothing landed"
    : `${plural(landed.transactions, "transaction")} landed (${plural(landed.items, "item")}, ${sol(landed.netRebate)} to the wallet)`;
  if (failed) {
    fail(`page ${page}`, failed);
    status(`Stopped at page ${page}: ${what}. ${left.size > 0 ? `${left.size === 1 ? "The item left is" : `The ${left.size} items left are`} still selected: Build goes on with ${left.size === 1 ? "it" : "them"}.` : ""}`);
    return;
  }
  status(final ? `Confirmed: ${what}. The list below is the wallet now.`
    : `Submitted; not all confirmed: ${what}. The list below is the wallet now${left.size > 0 ? `; ${left.size === 1 ? "the item that did not land is" : `the ${left.size} items that did not land are`} still selected` : ""}.`);
}

// showProgress says where a reclaim in pages is: the page (of how many,
// when known), what it is doing, what landed so far.
function showProgress(page: number, pages: number | undefined, landed: Landed, state: "building" | "signing" | "following" | "done" | "stopped") {
  const p = $("progress");
  Object.assign(p.dataset, { page: String(page), pages: String(pages ?? ""), state, items: String(landed.items), lamports: String(landed.netRebate) });
  p.textContent = `Page ${page}${pages ? ` of ${pages}` : ""}: ${state}; ${plural(landed.items, "item")} landed so far, ${sol(landed.netRebate)} to the wallet.`;
}

function chunks<T>(all: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < all.length; i += size) out.push(all.slice(i, i + size));
  return out;
}

main().catch((err) => fail("start", err));
