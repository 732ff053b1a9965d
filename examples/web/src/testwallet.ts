// A Wallet Standard wallet that signs with a keypair it is given: what the
// sample app's browser test and `make demo` use where a person would use
// Phantom or Solflare. It registers itself as browser extensions do
// (registerWallet), supports standard:connect, standard:events and
// solana:signTransaction, and can, like Phantom, append Lighthouse guard
// instructions to what it signs (options.guards) and send what it signs
// itself (solana:signAndSendTransaction, options.sendUrl). Tests read and
// steer it through globalThis.testWallet (TestWalletControl): the size of
// each request, and a request to refuse.
//
// Never use it with a key that holds real funds: the page can read the key.
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createKeyPairFromBytes,
  decompileTransactionMessage,
  getAddressFromPublicKey,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  getTransactionEncoder,
  signBytes,
  type Address,
  type IInstruction,
  type Transaction,
} from "@solana/kit";
import {
  SolanaSignAndSendTransaction,
  SolanaSignTransaction,
  type SolanaSignAndSendTransactionFeature,
  type SolanaSignAndSendTransactionInput,
  type SolanaSignAndSendTransactionOutput,
  type SolanaSignTransactionFeature,
  type SolanaSignTransactionInput,
  type SolanaSignTransactionOutput,
} from "@solana/wallet-standard-features";
import type { Wallet, WalletAccount } from "@wallet-standard/base";
import {
  StandardConnect,
  StandardEvents,
  type StandardConnectFeature,
  type StandardEventsFeature,
  type StandardEventsListeners,
} from "@wallet-standard/features";
import { ReadonlyWalletAccount, registerWallet } from "@wallet-standard/wallet";
import {
  EquatableOperator,
  IntegerOperator,
  KnownProgram,
  LogLevel,
  getAssertAccountInfoMultiInstruction,
} from "lighthouse-sdk";

const chains = ["solana:localnet", "solana:devnet", "solana:mainnet"] as const;

// A grey square: wallets must have an icon.
const icon =
  "data:image/svg+xml;base64,PHN2ZyB4bWxucz0iaHR0cDovL3d3dy53My5vcmcvMjAwMC9zdmciIHZpZXdCb3g9IjAgMCAzMiAzMiI+PHJlY3Qgd2lkdGg9IjMyIiBoZWlnaHQ9IjMyIiByeD0iNiIgZmlsbD0iIzU1NSIvPjwvc3ZnPg==" as const;

/** Options of registerTestWallet. */
export interface TestWalletOptions {
  /** The wallet's name in the app (default "Test wallet"). */
  name?: string;
  /**
   * guards appends a Lighthouse assertion on the wallet's account (its owner
   * is still the System program, its lamports at least a floor) to every
   * transaction it signs, as Phantom does on mainnet.
   */
  guards?: boolean;
  /**
   * sendUrl, when set, is a JSON-RPC endpoint the wallet sends what it signs
   * to: it then offers solana:signAndSendTransaction, as Phantom does.
   */
  sendUrl?: string;
}

/**
 * What a test sees of the wallet, as globalThis.testWallet: how many
 * transactions each sign request carried (signTransaction or
 * signAndSendTransaction, in order), and which request to refuse (1-based,
 * 0: none) as a person pressing Reject would.
 */
export interface TestWalletControl {
  requests: number[];
  refuse: number;
}

/**
 * registerTestWallet registers a wallet holding the keypair secretKey
 * (64 bytes: seed and public key, as solana-keygen writes them).
 */
export async function registerTestWallet(secretKey: Uint8Array, options: TestWalletOptions = {}): Promise<string> {
  const keys = await createKeyPairFromBytes(secretKey);
  const address = await getAddressFromPublicKey(keys.publicKey);
  const account = new ReadonlyWalletAccount({
    address,
    publicKey: secretKey.slice(32, 64),
    chains,
    features: options.sendUrl ? [SolanaSignTransaction, SolanaSignAndSendTransaction] : [SolanaSignTransaction],
  });
  const control: TestWalletControl = { requests: [], refuse: 0 };
  (globalThis as { testWallet?: TestWalletControl }).testWallet = control;
  registerWallet(new TestWallet(options.name ?? "Test wallet", account, keys.privateKey, address, options.guards ?? false, control, options.sendUrl));
  return address;
}

class TestWallet implements Wallet {
  readonly version = "1.0.0" as const;
  readonly icon = icon;
  readonly chains = chains;
  #accounts: WalletAccount[] = [];
  #onChange: StandardEventsListeners["change"][] = [];

  constructor(
    readonly name: string,
    readonly account: WalletAccount,
    readonly privateKey: CryptoKey,
    readonly address: Address,
    readonly guards: boolean,
    readonly control: TestWalletControl,
    readonly sendUrl?: string,
  ) {}

  get accounts(): readonly WalletAccount[] {
    return this.#accounts;
  }

  get features(): StandardConnectFeature & StandardEventsFeature & SolanaSignTransactionFeature & Partial<SolanaSignAndSendTransactionFeature> {
    const features = {
      [StandardConnect]: { version: "1.0.0", connect: async () => this.#connect() },
      [StandardEvents]: { version: "1.0.0", on: (event, listener) => this.#on(event, listener) },
      [SolanaSignTransaction]: {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy", 0],
        signTransaction: async (...inputs) => {
          this.#request(inputs.length);
          return this.#sign(inputs);
        },
      },
    } satisfies StandardConnectFeature & StandardEventsFeature & SolanaSignTransactionFeature;
    if (!this.sendUrl) return features;
    return {
      ...features,
      [SolanaSignAndSendTransaction]: {
        version: "1.0.0",
        supportedTransactionVersions: ["legacy", 0],
        signAndSendTransaction: async (...inputs) => {
          this.#request(inputs.length);
          return this.#signAndSend(inputs);
        },
      },
    };
  }

  // #request records a request of n transactions, and refuses it when it
  // is the one to refuse.
  #request(n: number) {
    this.control.requests.push(n);
    if (this.control.requests.length === this.control.refuse) throw new Error("User rejected the request.");
  }

  // #signAndSend signs each transaction and sends it to sendUrl
  // (sendTransaction, base64), answering its signature.
  async #signAndSend(inputs: readonly SolanaSignAndSendTransactionInput[]): Promise<readonly SolanaSignAndSendTransactionOutput[]> {
    const outputs: SolanaSignAndSendTransactionOutput[] = [];
    for (const o of await this.#sign(inputs)) {
      const resp = await fetch(this.sendUrl!, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({
          jsonrpc: "2.0", id: 1, method: "sendTransaction",
          params: [btoa(String.fromCharCode(...o.signedTransaction)), { encoding: "base64", preflightCommitment: "confirmed" }],
        }),
      });
      const body = await resp.json();
      if (body.error) throw new Error(`the wallet's send failed: ${body.error.message}`);
      const signature = getTransactionDecoder().decode(o.signedTransaction).signatures[this.address];
      if (!signature) throw new Error("the wallet did not sign");
      outputs.push({ signature: new Uint8Array(signature) });
    }
    return outputs;
  }

  #connect() {
    if (this.#accounts.length === 0) {
      this.#accounts = [this.account];
      for (const l of this.#onChange) l({ accounts: this.#accounts });
    }
    return { accounts: this.#accounts };
  }

  #on(event: keyof StandardEventsListeners, listener: StandardEventsListeners["change"]) {
    if (event === "change") this.#onChange.push(listener);
    return () => {
      this.#onChange = this.#onChange.filter((l) => l !== listener);
    };
  }

  async #sign(inputs: readonly SolanaSignTransactionInput[]): Promise<readonly SolanaSignTransactionOutput[]> {
    const outputs: SolanaSignTransactionOutput[] = [];
    for (const input of inputs) {
      if (input.account.address !== this.address) throw new Error("unknown account " + input.account.address);
      let tx = getTransactionDecoder().decode(input.transaction);
      if (this.guards) tx = this.#guard(tx.messageBytes);
      const signature = await signBytes(this.privateKey, new Uint8Array(tx.messageBytes));
      const signed = { ...tx, signatures: { ...tx.signatures, [this.address]: signature } };
      outputs.push({ signedTransaction: new Uint8Array(getTransactionEncoder().encode(signed)) });
    }
    return outputs;
  }

  // #guard appends a Lighthouse AssertAccountInfoMulti on the wallet: still
  // owned by the System program, and holding at least 1 lamport.
  #guard(messageBytes: Transaction["messageBytes"]): Transaction {
    const compiled = getCompiledTransactionMessageDecoder().decode(messageBytes);
    const message = decompileTransactionMessage(compiled);
    const guard: IInstruction = getAssertAccountInfoMultiInstruction({
      targetAccount: this.address,
      logLevel: LogLevel.Silent,
      assertions: [
        { __kind: "KnownOwner", value: KnownProgram.System, operator: EquatableOperator.Equal },
        { __kind: "Lamports", value: 1n, operator: IntegerOperator.GreaterThanOrEqual },
      ],
    });
    return compileTransaction(appendTransactionMessageInstructions([guard], message) as typeof message);
  }
}
