// Checks Reclaim's MCP server against the protocol as the official
// TypeScript clients read it:
//
//   node spec.mjs MCP_URL API_KEY WALLET_ADDRESS
//
// - the 2026-07-28 client (@modelcontextprotocol/client, server/discover)
//   and the 2025 one (@modelcontextprotocol/sdk, initialize) both connect;
// - every tool has annotations, and input and output schemas that ajv
//   compiles as JSON Schema 2020-12, with no property without a name;
// - a build with an idempotencyKey, sent twice, is replayed the second
//   time, and both answers are valid against the tool's output schema;
// - a request without credentials is a 401 whose WWW-Authenticate points
//   to the protected-resource metadata (RFC 9728), which the SDK's own
//   discovery reads.
//
// It prints one JSON object of what it saw.
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
  SUPPORTED_PROTOCOL_VERSIONS,
  discoverOAuthProtectedResourceMetadata,
  extractResourceMetadataUrl,
} from "@modelcontextprotocol/client";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import Ajv2020 from "ajv/dist/2020.js";

const [url, apiKey, wallet] = process.argv.slice(2);
const headers = { "X-Api-Key": apiKey };
const out = {};

// The 2026-07-28 client.
const modern = new ModernClient(
  { name: "reclaim-e2e-modern", version: "1.0.0" },
  { versionNegotiation: { mode: "auto" }, supportedProtocolVersions: ["2026-07-28", ...SUPPORTED_PROTOCOL_VERSIONS] },
);
await modern.connect(new ModernTransport(new URL(url), { requestInit: { headers } }));
out.modernVersion = modern.getNegotiatedProtocolVersion() ?? "";
out.discovered2026 = (modern.getDiscoverResult()?.supportedVersions ?? []).includes("2026-07-28");

// The 2025 client.
const legacyTransport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } });
const legacy = new Client({ name: "reclaim-e2e-legacy", version: "1.0.0" });
await legacy.connect(legacyTransport);
out.legacyVersion = legacyTransport.protocolVersion ?? "";
out.legacyTools = (await legacy.listTools()).tools.length;
await legacy.close();

// The tools: annotations, schemas ajv compiles, no nameless property.
const ajv = new Ajv2020({ strict: false, allErrors: true });
function emptyNames(schema, path) {
  if (Array.isArray(schema)) return schema.flatMap((s, i) => emptyNames(s, `${path}[${i}]`));
  if (schema === null || typeof schema !== "object") return [];
  const found = [];
  for (const [k, v] of Object.entries(schema)) {
    if (k === "properties" && v && typeof v === "object" && !Array.isArray(v)) {
      for (const [name, p] of Object.entries(v)) {
        if (name.trim() === "") found.push(`${path}.properties[${JSON.stringify(name)}]`);
        found.push(...emptyNames(p, `${path}.properties.${name}`));
      }
    } else {
      found.push(...emptyNames(v, `${path}.${k}`));
    }
  }
  return found;
}
const { tools } = await modern.listTools();
const validators = {};
out.tools = {};
out.schemaErrors = [];
for (const t of tools) {
  out.tools[t.name] = {
    annotations: t.annotations ?? null,
    inputs: Object.keys(t.inputSchema?.properties ?? {}),
  };
  out.schemaErrors.push(...emptyNames(t.inputSchema, `${t.name}.input`), ...emptyNames(t.outputSchema, `${t.name}.output`));
  for (const [kind, schema] of [["input", t.inputSchema], ["output", t.outputSchema]]) {
    if (!schema) {
      out.schemaErrors.push(`${t.name}: no ${kind} schema`);
      continue;
    }
    try {
      const v = ajv.compile(schema);
      if (kind === "output") validators[t.name] = v;
    } catch (err) {
      out.schemaErrors.push(`${t.name}.${kind}: ${err.message}`);
    }
  }
}

// A build with an idempotency key, twice.
async function call(name, args) {
  const res = await modern.callTool({ name, arguments: args });
  if (res.isError) throw new Error(`${name}: ${res.content[0].text}`);
  const v = validators[name];
  if (v && !v(res.structuredContent)) out.schemaErrors.push(`${name} answer: ${ajv.errorsText(v.errors)}`);
  return res.structuredContent;
}
const listing = await call("list_wallet_items", { address: wallet });
const items = listing.items.filter((it) => it.actions.length > 0).map((it) => ({ type: it.type, address: it.address, action: it.actions[0] }));
const args = { address: wallet, items, priorityFeeLevel: "none", idempotencyKey: `e2e-${Date.now()}` };
const first = await call("build_reclaim_transactions", args);
const again = await call("build_reclaim_transactions", args);
out.firstReplayed = first.idempotentReplayed ?? false;
out.againReplayed = again.idempotentReplayed ?? false;
out.sameTickets = JSON.stringify(first.transactions.map((t) => t.submissionTicket)) === JSON.stringify(again.transactions.map((t) => t.submissionTicket));
await modern.close();

// A 401, and the metadata it points to, as the SDK discovers it.
const res = await fetch(url, {
  method: "POST",
  headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
  body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
});
await res.text();
out.unauthorizedStatus = res.status;
out.wwwAuthenticate = res.headers.get("WWW-Authenticate") ?? "";
const metadataUrl = extractResourceMetadataUrl(res);
out.metadataUrl = metadataUrl?.href ?? "";
out.metadata = await discoverOAuthProtectedResourceMetadata(new URL(url), { resourceMetadataUrl: metadataUrl });
// Without the header's hint, from the server's URL alone.
out.discovered = await discoverOAuthProtectedResourceMetadata(new URL(url));

console.log(JSON.stringify(out));
