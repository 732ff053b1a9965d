// Verifies webhook deliveries with the Standard Webhooks reference library
// (npm standardwebhooks), as an integrator's receiver would. Reads a JSON
// array of {secret, headers, body} on stdin; prints a JSON array of
// {ok, error, payload} in the same order.
const { Webhook } = require("standardwebhooks");

let input = "";
process.stdin.on("data", (chunk) => (input += chunk));
process.stdin.on("end", () => {
  const out = JSON.parse(input).map(({ secret, headers, body }) => {
    try {
      return { ok: true, payload: new Webhook(secret).verify(body, headers) };
    } catch (e) {
      return { ok: false, error: String(e && e.message ? e.message : e) };
    }
  });
  process.stdout.write(JSON.stringify(out));
});
