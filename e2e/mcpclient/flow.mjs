// Drives Reclaim's MCP server as an agent does, with the official
// TypeScript client (@modelcontextprotocol/sdk, Streamable HTTP), and signs
// as the wallet's owner would, with @solana/web3.js:
//
//   node flow.mjs MCP_URL API_KEY WALLET_SECRET_KEY_JSON
//
// It lists the tools, summarises the wallet when the server has the tool,
// lists its items, builds (unsigned), signs with the wallet's keypair,
// submits, and reads until every transaction is confirmed (the submission
// status tool when the server has it, else the project's stats). It checks
// that a missing or a wrong credential is refused. It prints one JSON
// object of what it saw.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { Keypair, VersionedTransaction } from "@solana/web3.js";

const [url, apiKey, secret] = process.argv.slice(2);
const keypair = Keypair.fromSecretKey(Uint8Array.from(JSON.parse(secret)));
const wallet = keypair.publicKey.toBase58();

async function connect(headers) {
  const client = new Client({ name: "reclaim-e2e", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

// refused connects with headers and returns what the client reported.
async function refused(headers) {
  try {
    const c = await connect(headers);
    await c.listTools();
    await c.close();
    return "";
  } catch (err) {
    return String(err.message ?? err);
  }
}

// call calls a tool and returns its structured answer; a tool error throws
// with its REST error body.
async function call(client, name, args) {
  const res = await client.callTool({ name, arguments: args });
  if (res.isError) throw new Error(`${name}: ${res.content[0].text}`);
  return res.structuredContent;
}

const out = { wallet };
out.missingCredential = await refused({});
out.wrongKey = await refused({ "X-Api-Key": "ak_live_" + "x".repeat(44) });

const client = await connect({ "X-Api-Key": apiKey });
const { tools } = await client.listTools();
out.tools = tools.map((t) => t.name);
const has = (name) => out.tools.includes(name);

if (has("summarize_wallet")) out.summary = await call(client, "summarize_wallet", { address: wallet });
const listing = await call(client, "list_wallet_items", { address: wallet });
out.listed = listing.items.length;
out.counts = listing.counts;
const items = listing.items.filter((it) => it.actions.length > 0).map((it) => ({ type: it.type, address: it.address, action: it.actions[0] }));
const built = await call(client, "build_reclaim_transactions", { address: wallet, items, donationPercentage: 0.1, priorityFeeLevel: "none" });
out.signing = built.signing;
out.signUrl = built.signUrl ?? "";
out.totals = built.totals;
const signed = built.transactions.map((t) => {
  const tx = VersionedTransaction.deserialize(Buffer.from(t.transactionBase64, "base64"));
  tx.sign([keypair]);
  return { transactionBase64: Buffer.from(tx.serialize()).toString("base64"), submissionTicket: t.submissionTicket };
});
const before = (await call(client, "get_project_stats", {})).totalTransactionCount;
const { results } = await call(client, "submit_signed_transactions", { address: wallet, signed });
out.submitted = results.map((r) => ({ status: r.status, signature: r.signature }));

// Until every transaction is confirmed: the status tool, or the stats.
const signatures = results.filter((r) => r.status === "submitted").map((r) => r.signature);
out.confirmedBy = has("get_submission_status") ? "get_submission_status" : "get_project_stats";
out.confirmed = false;
for (let i = 0; i < 60 && !out.confirmed; i++) {
  if (has("get_submission_status")) {
    const st = await call(client, "get_submission_status", { address: wallet, signature: signatures });
    out.statuses = st.submissions.map((s) => s.status);
    out.confirmed = out.statuses.every((s) => s === "confirmed");
  } else {
    const st = await call(client, "get_project_stats", {});
    out.confirmed = st.totalTransactionCount >= before + signatures.length;
    out.stats = st;
  }
  if (!out.confirmed) await new Promise((r) => setTimeout(r, 1000));
}
out.leaderboard = (await call(client, "get_leaderboard", { limit: 5 })).entries.length;
await client.close();
console.log(JSON.stringify(out));
