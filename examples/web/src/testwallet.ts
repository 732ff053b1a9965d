// A Wallet Standard wallet that signs with a keypair it is given: what the
// sample app's browser test and `make demo` use where a person would use
// Phantom or Solflare. It registers itself as browser extensions do
// (registerWallet), supports standard:connect, standard:events and
// solana:signTransaction, and can, like Phantom, append Lighthouse guard
// instructions to what it signs (options.guards) and send what it signs
// itself (solana:signAndSendTransaction, options.sendUrl), and sign v1
// transactions (SIMD-0385) when told to advertise them (options.v1). Tests
// read and steer it through globalThis.testWallet (TestWalletControl): the
// size of each request, the version of each transaction signed, and a
// request to refuse.
//
// Never use it with a key that holds real funds: the page can read the key.
import {
  appendTransactionMessageInstructions,
  compileTransaction,
  createKeyPairFromBytes,
  decompileTransactionMessage,
  getAddressEncoder,
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
  type SolanaTransactionVersion,
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

type TransactionVersion = "legacy" | 0 | 1;

// A v1 transaction (SIMD-0385) opens with its message, whose first byte is
// 0x80 | 1; its addresses start after the version, the header (3 bytes),
// the config mask (4), the blockhash (32) and the instruction and address
// counts (1 each). A legacy or v0 transaction opens with its signature count
// (a handful), never 0x81.
const v1VersionByte = 0x81;
const v1AddressesAt = 1 + 3 + 4 + 32 + 1 + 1;

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
  /**
   * v1 makes the wallet advertise ["legacy", 0, 1] and sign v1 transactions
   * (SIMD-0385), as the Solana docs tell dapps to check for. Not with
   * guards: @solana/kit 2 reads no v1 message, so the wallet cannot append
   * an instruction to one; it signs v1 bytes as they are.
   */
  v1?: boolean;
}

/**
 * What a test sees of the wallet, as globalThis.testWallet: how many
 * transactions each sign request carried (signTransaction or
 * signAndSendTransaction, in order), and which request to refuse (1-based,
 * 0: none) as a person pressing Reject would.
 */
export interface TestWalletControl {
  requests: number[];
  /** The version of each transaction signed, in order: "legacy", 0 or 1. */
  versions: ("legacy" | 0 | 1)[];
  refuse: number;
}

/**
 * registerTestWallet registers a wallet holding the keypair secretKey
 * (64 bytes: seed and public key, as solana-keygen writes them).
 */
export async function registerTestWallet(secretKey: Uint8Array, options: TestWalletOptions = {}): Promise<string> {
  if (options.v1 && options.guards) throw new Error("the test wallet appends guards to legacy and v0 transactions only: set v1 or guards, not both");
  const keys = await createKeyPairFromBytes(secretKey);
  const address = await getAddressFromPublicKey(keys.publicKey);
  const account = new ReadonlyWalletAccount({
    address,
    publicKey: secretKey.slice(32, 64),
    chains,
    features: options.sendUrl ? [SolanaSignTransaction, SolanaSignAndSendTransaction] : [SolanaSignTransaction],
  });
  const control: TestWalletControl = { requests: [], versions: [], refuse: 0 };
  (globalThis as { testWallet?: TestWalletControl }).testWallet = control;
  const versions: readonly TransactionVersion[] = options.v1 ? ["legacy", 0, 1] : ["legacy", 0];
  registerWallet(new TestWallet(options.name ?? "Test wallet", account, keys.privateKey, address, options.guards ?? false, versions, control, options.sendUrl));
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
    readonly versions: readonly TransactionVersion[],
    readonly control: TestWalletControl,
    readonly sendUrl?: string,
  ) {}

  // advertised is versions as the pinned @solana/wallet-standard-features
  // (1.3.0) types them: its SolanaTransactionVersion predates v1 (1.5.0 adds 1).
  get advertised(): readonly SolanaTransactionVersion[] {
    return this.versions as readonly SolanaTransactionVersion[];
  }

  get accounts(): readonly WalletAccount[] {
    return this.#accounts;
  }

  get features(): StandardConnectFeature & StandardEventsFeature & SolanaSignTransactionFeature & Partial<SolanaSignAndSendTransactionFeature> {
    const features = {
      [StandardConnect]: { version: "1.0.0", connect: async () => this.#connect() },
      [StandardEvents]: { version: "1.0.0", on: (event, listener) => this.#on(event, listener) },
      [SolanaSignTransaction]: {
        version: "1.0.0",
        supportedTransactionVersions: this.advertised,
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
        supportedTransactionVersions: this.advertised,
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
      outputs.push({ signature: this.#signatureIn(o.signedTransaction) });
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
      if (input.transaction[0] === v1VersionByte) {
        if (!this.versions.includes(1)) throw new Error("this wallet does not sign v1 transactions");
        this.control.versions.push(1);
        outputs.push({ signedTransaction: await this.#signV1(input.transaction) });
        continue;
      }
      let tx = getTransactionDecoder().decode(input.transaction);
      if (this.guards) tx = this.#guard(tx.messageBytes);
      this.control.versions.push(tx.messageBytes[0]! & 0x80 ? 0 : "legacy");
      const signature = await signBytes(this.privateKey, new Uint8Array(tx.messageBytes));
      const signed = { ...tx, signatures: { ...tx.signatures, [this.address]: signature } };
      outputs.push({ signedTransaction: new Uint8Array(getTransactionEncoder().encode(signed)) });
    }
    return outputs;
  }

  // #signV1 signs a v1 transaction (SIMD-0385): the message, then one
  // 64-byte signature per signer, the signers being the message's first
  // addresses. @solana/kit 2 reads only legacy and v0, so the wallet finds
  // its place by the layout.
  async #signV1(transaction: Uint8Array): Promise<Uint8Array> {
    const { messageEnd, index } = this.#v1Place(transaction);
    const signature = await signBytes(this.privateKey, transaction.subarray(0, messageEnd));
    const signed = transaction.slice();
    signed.set(signature, messageEnd + 64 * index);
    return signed;
  }

  // #v1Place finds where a v1 transaction's message ends and which signer
  // the wallet is.
  #v1Place(transaction: Uint8Array): { messageEnd: number; index: number } {
    const signers = transaction[1] ?? 0;
    const messageEnd = transaction.length - 64 * signers;
    if (signers === 0 || messageEnd < v1AddressesAt + 32 * signers) throw new Error("malformed v1 transaction: too short for its signers");
    const me = getAddressEncoder().encode(this.address);
    for (let i = 0; i < signers; i++) {
      const at = v1AddressesAt + 32 * i;
      if (me.every((b, j) => transaction[at + j] === b)) return { messageEnd, index: i };
    }
    throw new Error("the wallet is not a signer of this v1 transaction");
  }

  // #signatureIn is the wallet's signature in a transaction it signed.
  #signatureIn(signed: Uint8Array): Uint8Array {
    if (signed[0] === v1VersionByte) {
      const { messageEnd, index } = this.#v1Place(signed);
      return signed.slice(messageEnd + 64 * index, messageEnd + 64 * (index + 1));
    }
    const signature = getTransactionDecoder().decode(signed).signatures[this.address];
    if (!signature) throw new Error("the wallet did not sign");
    return new Uint8Array(signature);
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
