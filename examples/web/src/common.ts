// What the sample app's pages share: the integrator's config and sessions,
// DOM helpers, and how amounts, item types and submissions are shown.
import { ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createConnectTransport } from "@connectrpc/connect-web";
import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  ProjectService, SignedTransactionSchema, type BuildTransactionsResponse, type BuiltTransaction, type Burn, type ItemSelection, WalletService, sessionToken, type GetStatsResponse,
  type SubmissionResult, type SubmissionStatus,
} from "@reclaim-sol/client";
import { getBase58Decoder } from "@solana/kit";
import {
  SolanaSignAndSendTransaction, SolanaSignTransaction, type SolanaSignAndSendTransactionFeature, type SolanaSignTransactionFeature,
} from "@solana/wallet-standard-features";
import { getWallets } from "@wallet-standard/app";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import { StandardConnect, type StandardConnectFeature } from "@wallet-standard/features";

/** What the integrator's backend tells the page (/api/config). */
export interface Config {
  reclaimUrl: string;
  /** Explorer link template with {id} for a signature ("": none). */
  explorerUrl: string;
}

/** A connected wallet and the Reclaim clients of its session. */
export interface Connected {
  account: WalletAccount;
  wallet: Wallet;
  wallets: Client<typeof WalletService>;
  project: Client<typeof ProjectService>;
}

export const $ = <T extends HTMLElement>(id: string) => document.querySelector<T>(`[data-testid="${id}"]`)!;

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Record<string, string> = {}, ...children: (Node | string)[]) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  e.append(...children);
  return e;
}

export function status(msg: string) {
  $("status").textContent = msg;
}

// fail shows what went wrong. A request the browser blocked (this origin is
// not allowed by the project, or Reclaim is down) reaches connect-web as a
// network error with no status.
export function fail(what: string, err: unknown) {
  let msg = err instanceof Error ? err.message : String(err);
  if (err instanceof ConnectError && err.rawMessage.includes("fetch")) {
    msg = `the browser could not reach Reclaim (${err.rawMessage}). If Reclaim is running, this page's origin ` +
      `(${location.origin}) is probably not allowed: add it to the project's allowed origins in the console's Settings.`;
  }
  $("error").textContent = `${what}: ${msg}`;
  status("");
}

export async function loadConfig(): Promise<Config> {
  return (await fetch("/api/config")).json();
}

/** Lists the page's wallets as connect buttons; onConnect runs on a click. */
export function offerWallets(onConnect: (w: Wallet) => Promise<void>) {
  const found = getWallets();
  const show = () => {
    const usable = found.get().filter((w) => StandardConnect in w.features && SolanaSignTransaction in w.features);
    const list = $("wallets");
    list.replaceChildren(...usable.map((w) => {
      const b = el("button", { "data-testid": "connect-wallet", type: "button" }, `Connect ${w.name}`);
      b.onclick = () => onConnect(w).catch((err) => fail("connect", err));
      return b;
    }));
    if (usable.length === 0) list.textContent = "No Solana wallet found: install one (Phantom, Solflare) or run make run's demo wallet.";
  };
  found.on("register", show);
  show();
}

/** Connects wallet and opens a Reclaim session for its account. */
export async function connectWallet(config: Config, wallet: Wallet): Promise<Connected> {
  $("error").textContent = "";
  status("Connecting…");
  const { accounts } = await (wallet.features as StandardConnectFeature)[StandardConnect].connect();
  const account = accounts[0];
  if (!account) throw new Error("the wallet gave no account");
  const token = await newSession(account.address);
  // The token expires (10 min here): a longer visit would ask for a new one
  // when a call answers unauthenticated.
  const transport = createConnectTransport({ baseUrl: config.reclaimUrl, interceptors: [sessionToken(() => token)] });
  $("account").textContent = account.address;
  $("account").dataset.address = account.address;
  return { account, wallet, wallets: createClient(WalletService, transport), project: createClient(ProjectService, transport) };
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

const LAMPORTS_PER_SOL = 1_000_000_000n;

/** Lamports as SOL with all nine decimals, so amounts line up. */
export function sol(lamports: bigint): string {
  const neg = lamports < 0n;
  const abs = neg ? -lamports : lamports;
  return `${neg ? "-" : ""}${abs / LAMPORTS_PER_SOL}.${(abs % LAMPORTS_PER_SOL).toString().padStart(9, "0")} SOL`;
}

/** The names a person reads for the item types Reclaim lists. */
const typeNames: Record<string, string> = {
  empty_account: "Empty token account",
  token: "Token balance",
  nft: "NFT",
  cnft: "Compressed NFT",
  fungible_asset: "Fungible asset",
  zk_compressed_token: "Compressed token",
  excess_rent: "Excess rent",
  program_buffer: "Program buffer",
  nonce_account: "Nonce account",
  stake_account: "Stake account",
  lookup_table: "Address lookup table",
  mint: "Closable mint",
};

export function typeName(type: string): string {
  return typeNames[type] ?? type.replaceAll("_", " ");
}

/** A person's word for an action. */
export function actionName(action: string | undefined): string {
  if (!action) return "Nothing to do";
  return action.replaceAll("_", " ").replace(/^./, (c) => c.toUpperCase());
}

/** A count with its noun: "1 item", "2 items" (many is one + "s" unless given). */
export function plural(n: number, one: string, many = one + "s"): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The first and last characters of a long id. */
export function short(id: string, n = 6): string {
  return id.length > 2 * n + 1 ? `${id.slice(0, n)}…${id.slice(-n)}` : id;
}

/**
 * Shows each submission: its status, its signature as an explorer link,
 * its error. The statuses change in place (confirm). append adds them to
 * those shown (a build signed in slices, or the next page); page is the
 * page of a reclaim in pages they belong to.
 */
export function showResults(config: Config, results: SubmissionResult[], sentBy: Signed["sentBy"], append = false, page = 1) {
  const lines = results.map((r) => {
    const sig = r.signature ?? "";
    const li = el("li", { "data-testid": "result", "data-status": r.status, "data-signature": sig, "data-sent-by": sentBy, "data-page": String(page) },
      el("span", { class: `badge ${r.status}`, "data-testid": "result-status" }, r.status));
    if (sig) {
      const text = short(sig, 8);
      li.append(" ", config.explorerUrl
        ? el("a", { href: config.explorerUrl.replace("{id}", sig), target: "_blank", rel: "noopener", class: "mono", "data-testid": "explorer-link", title: sig }, text)
        : el("span", { class: "mono", title: sig }, text));
    }
    if (r.error) li.append(" ", el("span", { class: "error" }, `${r.error.code}: ${r.error.message}`));
    li.append(el("span", { "data-testid": "submission-status", "data-status": r.status === "failed" ? "failed" : "submitted" }));
    return li;
  });
  if (append) $("results").append(...lines);
  else $("results").replaceChildren(...lines);
}

/** The most signatures one status call takes (MaxStatusSignatures). */
const statusBatch = 100;

/** Statuses that do not change any more; any other (submitted, landed, one added later) is in progress. */
const finalStatuses = new Set(["confirmed", "failed", "expired", "unknown"]);

/**
 * Follows the submissions through Reclaim's status route until every one is
 * final (confirmed, failed, expired), each call held up to 30 s by
 * waitSeconds, and shows each one's status on its line: landed (in a block,
 * usually within a second) as soon as the first call answers, then
 * confirmed (finalized) from the calls that wait until final. Answers the
 * last status of each (some may still be in progress after ten calls).
 */
export async function follow(c: Connected, signatures: string[]): Promise<SubmissionStatus[]> {
  const out: SubmissionStatus[] = [];
  for (let at = 0; at < signatures.length; at += statusBatch) {
    const batch = signatures.slice(at, at + statusBatch);
    let last: SubmissionStatus[] = [];
    for (let i = 0; i < 10; i++) {
      // Once every one was shown landed (or final), wait for final.
      const seen = last.length > 0 && last.every((sub) => sub.status !== "submitted");
      last = (await c.wallets.getSubmissions({ address: c.account.address, signature: batch, waitSeconds: 30, waitUntil: seen ? "final" : undefined })).submissions;
      for (const sub of last) showSubmission(sub);
      if (last.every((sub) => finalStatuses.has(sub.status))) break;
    }
    out.push(...last);
  }
  return out;
}

/** True when there were submissions and every one confirmed. */
export const allConfirmed = (subs: SubmissionStatus[]) => subs.length > 0 && subs.every((sub) => sub.status === "confirmed");

// showSubmission writes a submission's status into its result's line: the
// badge, and what landed (the chain's figures) or why it failed.
function showSubmission(sub: SubmissionStatus) {
  const li = document.querySelector<HTMLElement>(`[data-testid="result"][data-signature="${sub.signature}"]`);
  if (!li) return;
  li.dataset.status = sub.status;
  const badge = li.querySelector<HTMLElement>(".badge")!;
  badge.className = `badge ${sub.status}`;
  badge.textContent = sub.status;
  const span = li.querySelector<HTMLElement>('[data-testid="submission-status"]')!;
  span.dataset.status = sub.status;
  // Each status shown, in order (landed, then confirmed), for tests.
  if (!(span.dataset.seen ?? "").split(" ").includes(sub.status)) span.dataset.seen = `${span.dataset.seen ?? ""} ${sub.status}`.trim();
  const landed = sub.landed ? ` ${sol(BigInt(sub.landed.netRebate))} to the wallet, slot ${sub.slot ?? "?"}` : "";
  span.textContent = `${landed}${sub.error ? ` ${sub.error.code}: ${sub.error.message}` : ""}`;
}

export async function showStats(c: Connected): Promise<GetStatsResponse> {
  const st = await c.project.getStats({});
  const row = (label: string, id: string, text: string) => el("tr", {}, el("th", {}, label), el("td", { class: "num", "data-testid": id }, text));
  $("stats").dataset.transactions = String(st.totalTransactionCount);
  $("stats").replaceChildren(
    row("Wallets", "stat-wallets", String(st.totalWallets)),
    row("Transactions", "stat-transactions", String(st.totalTransactionCount)),
    row("Reclaimed (gross)", "stat-gross", sol(st.totalGrossRebate)),
    row("… of it rent", "stat-rent", sol(st.totalRentRebate)),
    row("… of it wallets' own SOL", "stat-own", sol(st.totalOwnBalanceRebate)),
    row("Kept by wallets", "stat-net", sol(st.totalNetRebate)),
    row("Donations", "stat-donations", String(st.totalDonations)),
    row("Donated", "stat-donated", sol(st.totalDonationAmount)));
  return st;
}

/** What submit sends: each transaction signed, or its signature when the wallet sent it. */
export interface Signed {
  sentBy: "wallet" | "reclaim";
  signed: MessageInitShape<typeof SignedTransactionSchema>[];
}

/**
 * The transaction version to build for the wallet: 1 (v1, up to 4,096 bytes,
 * so about a third as many transactions and base fees) when the feature
 * signAll uses (signAndSendTransaction when offered, else signTransaction)
 * lists 1 among its supportedTransactionVersions, as the Solana docs tell
 * dapps to check; 0 otherwise. Either way the wallet signs the raw bytes of
 * transactionBase64.
 */
export function transactionVersion(c: Pick<Connected, "wallet">): number {
  const features = c.wallet.features as Partial<SolanaSignTransactionFeature & SolanaSignAndSendTransactionFeature>;
  const used = features[SolanaSignAndSendTransaction] ?? features[SolanaSignTransaction];
  const versions: readonly unknown[] = used?.supportedTransactionVersions ?? [];
  return versions.includes(1) ? 1 : 0;
}

/**
 * Has the wallet sign the built transactions (base64) in one request, or sign
 * and send them when it offers signAndSendTransaction. Give it at most
 * paging().transactionsPerSign of them: signAndSubmit slices a build.
 */
export async function signAll(c: Connected, txs: { transactionBase64: string; submissionTicket: string }[]): Promise<Signed> {
  const transactions = txs.map((t) => Uint8Array.from(atob(t.transactionBase64), (ch) => ch.charCodeAt(0)));
  const send = (c.wallet.features as Partial<SolanaSignAndSendTransactionFeature>)[SolanaSignAndSendTransaction];
  if (send) {
    // The wallet sends them itself (as Phantom recommends): Reclaim gets each
    // signature with its ticket, follows it and counts it once it landed as built.
    const chain = c.account.chains.find((ch) => ch.startsWith("solana:")) ?? "solana:mainnet";
    const sent = await send.signAndSendTransaction(...transactions.map((transaction) => ({ account: c.account, chain, transaction })));
    const base58 = getBase58Decoder();
    return { sentBy: "wallet", signed: sent.map((o, i) => ({ signature: base58.decode(o.signature), submissionTicket: txs[i].submissionTicket })) };
  }
  const sign = (c.wallet.features as SolanaSignTransactionFeature)[SolanaSignTransaction].signTransaction;
  const out = await sign(...transactions.map((transaction) => ({ account: c.account, transaction })));
  return {
    sentBy: "reclaim",
    signed: out.map((o, i) => ({ transactionBase64: btoa(String.fromCharCode(...o.signedTransaction)), submissionTicket: txs[i].submissionTicket })),
  };
}

/**
 * Shows a build's totals (gross, of it the rent and the wallet's own SOL,
 * fees, donation, what the wallet receives) and its transaction count. The
 * donation and the service fee are taken of the rent alone.
 */
export function showTotals(b: BuildTransactionsResponse) {
  const t = b.totals!;
  const line = (label: string, id: string, v: bigint) =>
    el("tr", {}, el("th", {}, label), el("td", { class: "num", "data-testid": id, "data-lamports": String(v) }, sol(v)));
  $("quote").replaceChildren(
    line("Gross rebate", "gross-rebate", t.grossRebate),
    line("… of it rent (donation and fees are of this)", "rent-rebate", t.rentRebate),
    line("… of it your own SOL (wrapped SOL, stake)", "own-balance-rebate", t.ownBalanceRebate),
    line("Fees", "fees", t.fees),
    line("Donation", "donation-amount", t.donationAmount),
    line("You receive", "net-rebate", t.netRebate),
    el("tr", {}, el("th", {}, "Transactions"), el("td", { class: "num", "data-testid": "transaction-count" }, String(b.transactions.length))));
  showBurns(b);
}

/** A raw token amount (a u64 as a decimal string) in its mint's units, exactly: "1500000", 6 is "1.5". */
export function tokenAmount(raw: string, decimals: number): string {
  const digits = raw.replace(/^0+(?=\d)/, "");
  if (decimals === 0) return digits;
  const padded = digits.padStart(decimals + 1, "0");
  const whole = padded.slice(0, padded.length - decimals);
  const frac = padded.slice(padded.length - decimals).replace(/0+$/, "");
  return frac ? `${whole}.${frac}` : whole;
}

/** What a burn destroys, as a person reads it: "burns 1.5 USDC", "burns NFT 'Name'". */
export function burnText(b: Burn): string {
  if (b.type === "nft" || b.type === "cnft") {
    const what = b.type === "cnft" ? "compressed NFT" : "NFT";
    return b.name ? `burns ${what} '${b.name}'` : `burns ${what} ${short(b.mint)}`;
  }
  return `burns ${tokenAmount(b.amount, b.decimals)} ${b.symbol || b.name || `tokens of mint ${short(b.mint)}`}`;
}

/**
 * Shows, under a build's totals, what each of its transactions burns and how
 * many items they burn in all ("Burns nothing" for closes alone).
 */
function showBurns(b: BuildTransactionsResponse) {
  const rows = b.transactions.flatMap((tx, i) => tx.destructive
    ? [el("tr", { "data-testid": "tx-burns", "data-transaction": String(i + 1) }, el("th", {}, `Transaction ${i + 1}`),
      el("td", { class: "burns" }, tx.burns.map(burnText).join("; ")))]
    : []);
  const count = b.transactions.reduce((n, tx) => n + tx.burns.length, 0);
  $("quote").append(
    el("tr", {}, el("th", {}, "Destroys"), el("td", { "data-testid": "burns", "data-count": String(count), class: count ? "burns" : "" },
      count ? `${plural(count, "item")} burned for good` : "Burns nothing")),
    ...rows);
}

/**
 * Asks the person, in the page, to confirm the burns of txs before the
 * wallet is asked to sign them: it resolves once they tick the box and
 * press Burn and sign, and fails if they cancel. Transactions without a
 * burn need no confirmation.
 */
export function confirmBurns(txs: BuiltTransaction[]): Promise<void> {
  const burns = txs.flatMap((tx) => tx.burns);
  if (burns.length === 0) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const box = el("input", { type: "checkbox", "data-testid": "confirm-burns" });
    const go = el("button", { type: "button", "data-testid": "confirm-burns-button", disabled: "" }, "Burn and sign");
    const cancel = el("button", { type: "button", "data-testid": "cancel-burns" }, "Cancel");
    box.onchange = () => { go.disabled = !box.checked; };
    const done = (ok: boolean) => {
      $("burn-confirm").replaceChildren();
      if (ok) resolve(); else reject(new Error("the burns were not confirmed: nothing was signed"));
    };
    go.onclick = () => done(box.checked);
    cancel.onclick = () => done(false);
    $("burn-confirm").replaceChildren(
      el("p", { class: "error" }, `${plural(burns.length, "item")} will be destroyed; this cannot be undone:`),
      el("ul", {}, ...burns.map((b) => el("li", { "data-testid": "confirm-burn" }, burnText(b)))),
      el("label", {}, box, " I understand these tokens and NFTs are burned for good"), " ", go, " ", cancel);
    status("Confirm the burns below: the wallet signs nothing until you do.");
  });
}

/**
 * How the app splits a large selection (query parameters of the page, for
 * tests and tuning): at most itemsPerBuild items per build (Reclaim takes
 * 500), at most transactionsPerSign transactions per wallet request
 * (Phantom stalls above about 80; a submit takes 100).
 */
export interface Paging {
  itemsPerBuild: number;
  transactionsPerSign: number;
}

/** The most items one build takes (MaxBuildItems). */
export const maxItemsPerBuild = 500;

export function paging(): Paging {
  const q = new URLSearchParams(location.search);
  const int = (name: string, def: number, max: number) => {
    const v = Number(q.get(name) ?? "");
    return Number.isInteger(v) && v >= 1 ? Math.min(v, max) : def;
  };
  return { itemsPerBuild: int("itemsPerBuild", maxItemsPerBuild, maxItemsPerBuild), transactionsPerSign: int("transactionsPerSign", 50, 100) };
}

/**
 * Tickets live 60 s: transactions not signed within freshFor of their build
 * are built again first.
 */
export const freshFor = 45_000;

/**
 * Signs a build's transactions in slices of at most perSign (one wallet
 * request each) and submits each slice as soon as it is signed; onSubmitted
 * gets each slice's results. Transactions whose build is older than
 * freshFor when their turn comes are built again first, from their items
 * (rebuild), so their tickets and blockhash are fresh. A slice that burns
 * anything waits for the person to confirm its burns (confirmBurns). A refusal of the
 * wallet or a failed call ends it: what was submitted before stays
 * submitted.
 */
export async function signAndSubmit(
  c: Connected, built: BuildTransactionsResponse, builtAt: number, perSign: number,
  rebuild: (items: ItemSelection[]) => Promise<BuildTransactionsResponse>,
  onSubmitted: (results: SubmissionResult[], sentBy: Signed["sentBy"]) => void,
) {
  let txs = built.transactions;
  for (let done = 0; txs.length > 0; done += perSign) {
    if (Date.now() - builtAt > freshFor) {
      status(`The build is over ${freshFor / 1000} s old: building the ${plural(txs.length, "unsigned transaction")} again…`);
      txs = (await rebuild(txs.flatMap((tx) => tx.includes))).transactions;
      builtAt = Date.now();
    }
    const slice = txs.slice(0, perSign);
    await confirmBurns(slice);
    if (Date.now() - builtAt > freshFor) {
      // Confirmed after the tickets' life: built again, and asked again.
      done -= perSign;
      continue;
    }
    txs = txs.slice(perSign);
    status(`Waiting for the wallet (${plural(slice.length, "transaction")}${txs.length > 0 || done > 0 ? `, ${txs.length} after these` : ""})…`);
    const { signed, sentBy } = await signAll(c, slice);
    status("Submitting…");
    const { results } = await c.wallets.submitTransactions({ address: c.account.address, signed });
    onSubmitted(results, sentBy);
  }
}

/** What confirmed transactions did on chain, summed. */
export interface Landed {
  transactions: number;
  items: number;
  grossRebate: bigint;
  fees: bigint;
  donationAmount: bigint;
  netRebate: bigint;
}

export const noneLanded = (): Landed => ({ transactions: 0, items: 0, grossRebate: 0n, fees: 0n, donationAmount: 0n, netRebate: 0n });

/** Adds the confirmed submissions' chain figures to l. */
export function addLanded(l: Landed, subs: SubmissionStatus[]) {
  for (const sub of subs) {
    if (sub.status !== "confirmed" || !sub.landed) continue;
    l.transactions++;
    l.items += sub.includes.length;
    l.grossRebate += sub.landed.grossRebate;
    l.fees += sub.landed.fee;
    l.donationAmount += sub.landed.donationAmount;
    l.netRebate += sub.landed.netRebate;
  }
}

/** Shows what landed so far (the chain's figures). */
export function showLanded(l: Landed) {
  const line = (label: string, id: string, v: bigint) =>
    el("tr", {}, el("th", {}, label), el("td", { class: "num", "data-testid": id, "data-lamports": String(v) }, sol(v)));
  $("landed").replaceChildren(
    el("tr", {}, el("th", {}, "Landed"), el("td", { class: "num", "data-testid": "landed-items", "data-items": String(l.items), "data-transactions": String(l.transactions) },
      l.transactions === 0 ? "Nothing yet" : `${plural(l.items, "item")} in ${plural(l.transactions, "transaction")}`)),
    line("Reclaimed (gross)", "landed-gross", l.grossRebate),
    line("Fees", "landed-fees", l.fees),
    line("Donated", "landed-donation", l.donationAmount),
    line("You received", "landed-net", l.netRebate));
}
