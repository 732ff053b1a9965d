// The sample integration's frontend: a page on the integrator's own origin
// that lets a person reclaim the rent of their wallet's items with Reclaim.
//
//  1. find the wallets of the page (the Wallet Standard) and connect one;
//  2. ask the integrator's backend (same origin, /api/session) for a Reclaim
//     session token bound to that wallet: the API key never reaches the page;
//  3. with the generated client (@reclaim-sol/client over connect-web), call
//     Reclaim on its own origin (CORS): list the items with their rebates,
//     build transactions for the selected ones with a donation, have the
//     wallet sign them (or sign and send them, when it offers
//     signAndSendTransaction, as Phantom recommends), submit them (or report
//     their signatures), follow each submission's status until it is final,
//     and show the project's stats.
import { ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import {
  ProjectService,
  WalletService,
  formatSol,
  sessionToken,
  type BuildTransactionsResponse,
  type GetStatsResponse,
  SignedTransactionSchema,
  type SubmissionStatus,
  type GetSummaryResponse,
  type WalletItem,
} from "@reclaim-sol/client";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { getBase58Decoder } from "@solana/kit";
import {
  SolanaSignAndSendTransaction,
  SolanaSignTransaction,
  type SolanaSignAndSendTransactionFeature,
  type SolanaSignTransactionFeature,
} from "@solana/wallet-standard-features";
import { getWallets } from "@wallet-standard/app";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import { StandardConnect, type StandardConnectFeature } from "@wallet-standard/features";

/** What the integrator's backend tells the page (/api/config). */
interface Config {
  reclaimUrl: string;
}

/** The state of one visit. */
interface Session {
  account: WalletAccount;
  wallet: Wallet;
  wallets: Client<typeof WalletService>;
  project: Client<typeof ProjectService>;
  items: WalletItem[];
  quote?: BuildTransactionsResponse;
}

const $ = <T extends HTMLElement>(id: string) => document.querySelector<T>(`[data-testid="${id}"]`)!;

function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

function status(msg: string) {
  $("status").textContent = msg;
}

// fail shows what went wrong. A request the browser blocked (this origin is
// not allowed by the project, or Reclaim is down) reaches connect-web as a
// network error with no status.
function fail(what: string, err: unknown) {
  let msg = err instanceof Error ? err.message : String(err);
  if (err instanceof ConnectError && err.rawMessage.includes("fetch")) {
    msg = `the browser could not reach Reclaim (${err.rawMessage}). If Reclaim is running, this page's origin ` +
      `(${location.origin}) is probably not allowed: add it to the project's allowed origins in the console's Settings.`;
  }
  $("error").textContent = `${what}: ${msg}`;
  status("");
}

async function main() {
  const config: Config = await (await fetch("/api/config")).json();
  const found = getWallets();
  const show = () => renderWallets(config, found.get());
  found.on("register", show);
  show();
}

function renderWallets(config: Config, wallets: readonly Wallet[]) {
  const usable = wallets.filter((w) => StandardConnect in w.features && SolanaSignTransaction in w.features);
  const list = $("wallets");
  list.replaceChildren(...usable.map((w) => {
    const b = el("button", { "data-testid": "connect-wallet", type: "button" }, `Connect ${w.name}`);
    b.onclick = () => connect(config, w).catch((err) => fail("connect", err));
    return b;
  }));
  if (usable.length === 0) list.textContent = "No Solana wallet found: install one (Phantom, Solflare) or run make demo's wallet.";
}

async function connect(config: Config, wallet: Wallet) {
  $("error").textContent = "";
  status("Connecting…");
  const { accounts } = await (wallet.features as StandardConnectFeature)[StandardConnect].connect();
  const account = accounts[0];
  if (!account) throw new Error("the wallet gave no account");
  const token = await newSession(account.address);
  // The token expires (10 min here): a longer visit would ask for a new one
  // when a call answers unauthenticated.
  const transport = createConnectTransport({ baseUrl: config.reclaimUrl, interceptors: [sessionToken(() => token)] });
  const s: Session = {
    account, wallet, items: [],
    wallets: createClient(WalletService, transport),
    project: createClient(ProjectService, transport),
  };
  $("account").textContent = account.address;
  $("account").dataset.address = account.address;
  await list(s);
  $<HTMLButtonElement>("reclaim-all").onclick = () => reclaimAll(s).catch((err) => fail("reclaim all", err));
  $<HTMLButtonElement>("build").onclick = () => build(s).catch((err) => fail("build", err));
  $<HTMLButtonElement>("submit").onclick = () => submit(s).catch((err) => fail("submit", err));
  $<HTMLButtonElement>("select-all").onclick = () => {
    for (const box of document.querySelectorAll<HTMLInputElement>('[data-testid="select"]:not(:disabled)')) box.checked = true;
  };
  await stats(s);
}

// newSession asks the integrator's backend for a session token: the backend
// holds the API key (and, in a real app, checks who is asking).
async function newSession(wallet: string): Promise<string> {
  const resp = await fetch("/api/session", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ walletAddress: wallet }),
  });
  if (!resp.ok) throw new Error(`the backend refused a session: ${resp.status} ${await resp.text()}`);
  return (await resp.json()).token;
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
    const box = el("input", { type: "checkbox", "data-testid": "select" });
    if (!action) box.setAttribute("disabled", "");
    return el("tr", { "data-testid": "item", "data-address": it.address },
      el("td", {}, box),
      el("td", {}, it.name || it.type),
      el("td", {}, it.type),
      el("td", { class: "mono" }, it.address.slice(0, 4) + "…" + it.address.slice(-4)),
      el("td", { class: "num", "data-testid": "item-rebate", "data-lamports": String(it.lamports ?? 0n) }, formatSol(it.lamports ?? 0n) + " SOL"),
      el("td", {}, action ?? "none"));
  }));
  status(`${listing.items.length} items; select the ones to reclaim.`);
}

async function build(s: Session) {
  const rows = [...document.querySelectorAll<HTMLTableRowElement>('[data-testid="item"]')];
  const items = rows.flatMap((row, i) => {
    const it = s.items[i];
    const checked = row.querySelector<HTMLInputElement>("input")!.checked;
    return checked && it.actions[0] ? [{ type: it.type, address: it.address, action: it.actions[0] }] : [];
  });
  if (items.length === 0) throw new Error("select at least one item");
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
    .map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", { class: "num" }, `${v.count} (${formatSol(v.lamports)} SOL)`)));
  $("summary").replaceChildren(...types,
    el("tr", {}, el("th", {}, "Reclaim all safe items"), el("td", {
      class: "num", "data-testid": "summary-net", "data-lamports": String(t.netRebate), "data-transactions": String(sum.transactionCount),
    }, `${t.itemCount} items, ${formatSol(t.netRebate)} SOL to you in ${sum.transactionCount} transactions`)));
  $<HTMLButtonElement>("reclaim-all").disabled = sum.transactionCount === 0;
}

// reclaimAll builds every safe item (closes of empty accounts, excess rent,
// buffers, nonce and stake accounts; never a burn).
async function reclaimAll(s: Session) {
  status("Building…");
  showQuote(s, await s.wallets.buildTransactions({ address: s.account.address, selectAll: true, donationPercentage: donation(), priorityFeeLevel: "none" }));
}

function showQuote(s: Session, quote: BuildTransactionsResponse) {
  s.quote = quote;
  const t = quote.totals!;
  const line = (label: string, id: string, v: bigint) =>
    el("tr", {}, el("th", {}, label), el("td", { class: "num", "data-testid": id, "data-lamports": String(v) }, formatSol(v) + " SOL"));
  $("quote").replaceChildren(
    line("Gross rebate", "gross-rebate", t.grossRebate),
    line("Fees", "fees", t.fees),
    line("Donation", "donation-amount", t.donationAmount),
    line("You receive", "net-rebate", t.netRebate),
    el("tr", {}, el("th", {}, "Transactions"), el("td", { class: "num", "data-testid": "transaction-count" }, String(quote.transactions.length))));
  $<HTMLButtonElement>("submit").disabled = false;
  status(`${quote.transactions.length} transactions to sign.`);
}

async function submit(s: Session) {
  const quote = s.quote;
  if (!quote) throw new Error("build first");
  const transactions = quote.transactions.map((t) => Uint8Array.from(atob(t.transactionBase64), (c) => c.charCodeAt(0)));
  let signed: MessageInitShape<typeof SignedTransactionSchema>[];
  const sendFeature = (s.wallet.features as Partial<SolanaSignAndSendTransactionFeature>)[SolanaSignAndSendTransaction];
  if (sendFeature) {
    // The wallet sends them itself: Reclaim gets each signature with its
    // ticket, follows it and counts it once it landed as built.
    status("Waiting for the wallet to sign and send…");
    const chain = s.account.chains.find((c) => c.startsWith("solana:")) ?? "solana:mainnet";
    const sent = await sendFeature.signAndSendTransaction(...transactions.map((transaction) => ({ account: s.account, chain, transaction })));
    const base58 = getBase58Decoder();
    signed = sent.map((o, i) => ({ signature: base58.decode(o.signature), submissionTicket: quote.transactions[i].submissionTicket }));
  } else {
    status("Waiting for the wallet…");
    const sign = (s.wallet.features as SolanaSignTransactionFeature)[SolanaSignTransaction].signTransaction;
    const out = await sign(...transactions.map((transaction) => ({ account: s.account, transaction })));
    signed = out.map((o, i) => ({
      transactionBase64: btoa(String.fromCharCode(...o.signedTransaction)),
      submissionTicket: quote.transactions[i].submissionTicket,
    }));
  }
  status("Submitting…");
  const { results } = await s.wallets.submitTransactions({ address: s.account.address, signed });
  $("results").replaceChildren(...results.map((r) => el("li", {
    "data-testid": "result", "data-status": r.status, "data-signature": r.signature ?? "",
    "data-sent-by": sendFeature ? "wallet" : "reclaim",
  }, `${r.status}${r.signature ? " " + r.signature : ""}${r.error ? ` ${r.error.code}: ${r.error.message}` : ""}`,
  el("span", { "data-testid": "submission-status", "data-status": r.status === "failed" ? "failed" : "submitted" }))));
  $<HTMLButtonElement>("submit").disabled = true;
  status("Submitted: following each transaction until it is final…");
  await follow(s, results.flatMap((r) => (r.signature ? [r.signature] : [])));
  await stats(s);
}

// follow asks Reclaim where the submissions are until every one is final
// (confirmed, failed, expired), each call held up to 30 s by waitSeconds,
// and shows each one's status beside its result.
async function follow(s: Session, signatures: string[]) {
  if (signatures.length === 0) return;
  for (let i = 0; i < 10; i++) {
    const { submissions } = await s.wallets.getSubmissions({ address: s.account.address, signature: signatures, waitSeconds: 30 });
    for (const sub of submissions) show(sub);
    if (submissions.every((sub) => sub.status !== "submitted")) {
      status("Done: every transaction is final.");
      return;
    }
  }
}

// show writes a submission's status into its result's line.
function show(sub: SubmissionStatus) {
  const span = document.querySelector<HTMLElement>(`[data-testid="result"][data-signature="${sub.signature}"] [data-testid="submission-status"]`);
  if (!span) return;
  span.dataset.status = sub.status;
  const landed = sub.landed ? `: ${formatSol(BigInt(sub.landed.netRebate))} SOL to the wallet, slot ${sub.slot ?? "?"}` : "";
  span.textContent = ` → ${sub.status}${landed}${sub.error ? ` (${sub.error.code}: ${sub.error.message})` : ""}`;
}

async function stats(s: Session): Promise<GetStatsResponse> {
  const st = await s.project.getStats({});
  const row = (label: string, id: string, text: string) => el("tr", {}, el("th", {}, label), el("td", { class: "num", "data-testid": id }, text));
  $("stats").dataset.transactions = String(st.totalTransactionCount);
  $("stats").replaceChildren(
    row("Wallets", "stat-wallets", String(st.totalWallets)),
    row("Transactions", "stat-transactions", String(st.totalTransactionCount)),
    row("Reclaimed (gross)", "stat-gross", formatSol(st.totalGrossRebate) + " SOL"),
    row("Kept by wallets", "stat-net", formatSol(st.totalNetRebate) + " SOL"),
    row("Donations", "stat-donations", `${st.totalDonations} (${formatSol(st.totalDonationAmount)} SOL)`));
  return st;
}

main().catch((err) => fail("start", err));
