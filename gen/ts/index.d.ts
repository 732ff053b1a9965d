// Types of index.js. Written by hand.
import type { Interceptor } from "@connectrpc/connect";

export * from "./reclaim/v1/session_pb.js";
export * from "./reclaim/v1/wallet_pb.js";
export * from "./reclaim/v1/project_pb.js";

/** Lamports in one SOL. */
export declare const LAMPORTS_PER_SOL: bigint;

/**
 * An interceptor that sends a session token on every call (browsers and
 * apps). getToken may refresh it: it is asked before each call.
 */
export declare function sessionToken(getToken: () => string | Promise<string>): Interceptor;

/**
 * An interceptor that sends the project's API key on every call: server
 * side only (a browser is refused it).
 */
export declare function apiKey(key: string): Interceptor;

/**
 * formatSol writes lamports as SOL, exactly (no floating point): 2039280n
 * is "0.00203928", -5000n is "-0.000005".
 */
export declare function formatSol(lamports: bigint): string;
