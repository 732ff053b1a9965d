// @reclaim-sol/client: the Reclaim API's messages and services (generated
// in reclaim/v1/ by make generate) and a few helpers. Written by hand.
export * from "./reclaim/v1/session_pb.js";
export * from "./reclaim/v1/wallet_pb.js";
export * from "./reclaim/v1/project_pb.js";

/** Lamports in one SOL. */
export const LAMPORTS_PER_SOL = 1_000_000_000n;

/**
 * An interceptor that sends a session token on every call (browsers and
 * apps). getToken may refresh it: it is asked before each call.
 */
export function sessionToken(getToken) {
  return (next) => async (req) => {
    req.header.set("Authorization", "Bearer " + (await getToken()));
    return next(req);
  };
}

/**
 * An interceptor that sends the project's API key on every call: server
 * side only (a browser is refused it).
 */
export function apiKey(key) {
  return (next) => (req) => {
    req.header.set("X-Api-Key", key);
    return next(req);
  };
}

/**
 * formatSol writes lamports as SOL, exactly (no floating point): 2039280n
 * is "0.00203928", -5000n is "-0.000005".
 */
export function formatSol(lamports) {
  const neg = lamports < 0n;
  const abs = neg ? -lamports : lamports;
  const whole = abs / LAMPORTS_PER_SOL;
  const frac = (abs % LAMPORTS_PER_SOL).toString().padStart(9, "0").replace(/0+$/, "");
  return (neg ? "-" : "") + whole.toString() + (frac ? "." + frac : "");
}
