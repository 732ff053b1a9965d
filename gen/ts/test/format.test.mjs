// node --test: the hand-written helpers.
import { test } from "node:test";
import assert from "node:assert/strict";
import { LAMPORTS_PER_SOL, formatSol, sessionToken, apiKey } from "@reclaim-sol/client";

test("formatSol is exact", () => {
  assert.equal(formatSol(0n), "0");
  assert.equal(formatSol(2039280n), "0.00203928");
  assert.equal(formatSol(-5000n), "-0.000005");
  assert.equal(formatSol(LAMPORTS_PER_SOL), "1");
  assert.equal(formatSol(12345678901234567n), "12345678.901234567");
});

test("the interceptors set their header", async () => {
  const seen = [];
  const next = async (req) => { seen.push(Object.fromEntries(req.header)); return {}; };
  await sessionToken(async () => "tok")(next)({ header: new Headers() });
  await apiKey("ak_live_x")(next)({ header: new Headers() });
  assert.deepEqual(seen, [{ authorization: "Bearer tok" }, { "x-api-key": "ak_live_x" }]);
});
