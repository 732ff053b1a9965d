#!/usr/bin/env node
// Changes transactions built by Reclaim the way wallets do when they sign:
// inserts Lighthouse assertions built with the official client
// (lighthouse-sdk 2.1.0 on @solana/kit 2.3.0), in the shapes Phantom and
// Solflare add, and, for the refusal tests, the changes a wallet must not
// make (other programs' instructions, a Lighthouse memory write, changed
// transfers, fee payer, blockhash, an address lookup table, reordering).
//
//   echo '{"transactions":[{"transactionBase64":"...","edits":[...]}]}' | node guard.mjs
//
// Each edit is {"op":"insert","at":N|"end","ix":SPEC}, {"op":"replace","at":N,"ix":SPEC},
// {"op":"swap","i":N,"j":M} or {"op":"remove","at":N}, indexes counting from the
// end when negative, applied in order; a transaction may also
// set "feePayer", "blockhash" and "lookupTable": {"address","addresses":[...]}.
// SPEC kinds are in instruction() below. Prints {"messages":["<base64>",...]}:
// the changed messages, unsigned (the Go test signs them as the wallet).
import {
  AccountRole, address, compileTransactionMessage, compressTransactionMessageUsingAddressLookupTables,
  decompileTransactionMessage, getCompiledTransactionMessageDecoder, getCompiledTransactionMessageEncoder,
  getTransactionDecoder, setTransactionMessageFeePayer, setTransactionMessageLifetimeUsingBlockhash,
  createNoopSigner,
} from '@solana/kit';
import {
  EquatableOperator, IntegerOperator, KnownProgram, LogLevel, AccountInfoField,
  findMemoryPda, getAssertAccountInfoInstruction, getAssertAccountInfoMultiInstruction,
  getAssertTokenAccountMultiInstruction, getMemoryWriteInstruction,
} from 'lighthouse-sdk';

const SYSTEM = address('11111111111111111111111111111111');
const TOKEN = address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
const MEMO = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
const COMPUTE_BUDGET = address('ComputeBudget111111111111111111111111111111');

const u32 = (n) => { const b = Buffer.alloc(4); b.writeUInt32LE(Number(n)); return b; };
const u64 = (n) => { const b = Buffer.alloc(8); b.writeBigUInt64LE(BigInt(n)); return b; };
const systemOwned = { __kind: 'KnownOwner', value: KnownProgram.System, operator: EquatableOperator.Equal };
const atLeast = (v) => ({ __kind: 'Lamports', value: BigInt(v), operator: IntegerOperator.GreaterThanOrEqual });
const atMost = (v) => ({ __kind: 'Lamports', value: BigInt(v), operator: IntegerOperator.LessThanOrEqual });

// instruction builds one instruction from its spec.
async function instruction(s) {
  switch (s.kind) {
    // Phantom's guard on a SOL account (explorer fixture): lamports within a
    // range and still System-owned, 26 bytes of data.
    case 'lamportsRange':
      return getAssertAccountInfoMultiInstruction({ targetAccount: address(s.target), logLevel: LogLevel.FailedEncodedMessage,
        assertions: [atLeast(s.min), atMost(s.max), systemOwned] });
    // Lamports at least and System-owned, 16 bytes.
    case 'lamportsOwner':
      return getAssertAccountInfoMultiInstruction({ targetAccount: address(s.target), logLevel: LogLevel.FailedPlaintextMessage,
        assertions: [atLeast(s.min), systemOwned] });
    // Solflare's guard on the fee payer (Jac0xb/lighthouse#55): System-owned, 6 bytes.
    case 'knownOwner':
      return getAssertAccountInfoMultiInstruction({ targetAccount: address(s.target), logLevel: LogLevel.FailedPlaintextMessage,
        assertions: [systemOwned] });
    // A single lamports assertion, 12 bytes.
    case 'lamports':
      return getAssertAccountInfoInstruction({ targetAccount: address(s.target), assertion: atLeast(s.min) });
    // A token account still owned by the wallet with its balance, 47 bytes.
    case 'tokenAccount':
      return getAssertTokenAccountMultiInstruction({ targetAccount: address(s.target), logLevel: LogLevel.FailedPlaintextMessage,
        assertions: [
          { __kind: 'Owner', value: address(s.owner), operator: EquatableOperator.Equal },
          { __kind: 'Amount', value: BigInt(s.amount ?? 0), operator: IntegerOperator.Equal },
        ] });
    // Lighthouse's MemoryWrite: funds a memory account from the payer.
    case 'memoryWrite': {
      const [memory, memoryBump] = await findMemoryPda({ payer: address(s.payer), memoryId: 0 });
      return getMemoryWriteInstruction({ payer: createNoopSigner(address(s.payer)), memory, sourceAccount: address(s.payer),
        memoryId: 0, memoryBump, writeOffset: 0, writeType: { __kind: 'AccountInfoField', fields: [AccountInfoField.Lamports] } });
    }
    case 'transfer':
      return { programAddress: SYSTEM, data: new Uint8Array([...u32(2), ...u64(s.lamports)]), accounts: [
        { address: address(s.from), role: AccountRole.WRITABLE_SIGNER }, { address: address(s.to), role: AccountRole.WRITABLE }] };
    case 'memo':
      return { programAddress: MEMO, data: new Uint8Array(Buffer.from(s.text)), accounts: [] };
    case 'closeAccount':
      return { programAddress: address(s.program ?? TOKEN), data: new Uint8Array([9]), accounts: [
        { address: address(s.account), role: AccountRole.WRITABLE }, { address: address(s.destination), role: AccountRole.WRITABLE },
        { address: address(s.owner), role: AccountRole.READONLY_SIGNER }] };
    case 'computeUnitPrice':
      return { programAddress: COMPUTE_BUDGET, data: new Uint8Array([3, ...u64(s.microLamports)]), accounts: [] };
    case 'computeUnitLimit':
      return { programAddress: COMPUTE_BUDGET, data: new Uint8Array([2, ...u32(s.units)]), accounts: [] };
    default:
      throw new Error(`unknown instruction kind ${s.kind}`);
  }
}

async function change(t) {
  const { messageBytes } = getTransactionDecoder().decode(Buffer.from(t.transactionBase64, 'base64'));
  let msg = decompileTransactionMessage(getCompiledTransactionMessageDecoder().decode(messageBytes));
  const ixs = [...msg.instructions];
  for (const e of t.edits ?? []) {
    const at = e.at === 'end' ? ixs.length : (e.at < 0 ? ixs.length + e.at : e.at);
    switch (e.op) {
      case 'insert': ixs.splice(at, 0, await instruction(e.ix)); break;
      case 'replace': ixs.splice(at, 1, await instruction(e.ix)); break;
      case 'remove': ixs.splice(at, 1); break;
      case 'swap': {
        const [i, j] = [e.i < 0 ? ixs.length + e.i : e.i, e.j < 0 ? ixs.length + e.j : e.j];
        [ixs[i], ixs[j]] = [ixs[j], ixs[i]];
        break;
      }
      default: throw new Error(`unknown edit ${e.op}`);
    }
  }
  msg = Object.freeze({ ...msg, instructions: Object.freeze(ixs) });
  if (t.feePayer) msg = setTransactionMessageFeePayer(address(t.feePayer), msg);
  if (t.blockhash) msg = setTransactionMessageLifetimeUsingBlockhash({ blockhash: t.blockhash, lastValidBlockHeight: 0n }, msg);
  if (t.lookupTable) {
    msg = compressTransactionMessageUsingAddressLookupTables(msg,
      { [address(t.lookupTable.address)]: t.lookupTable.addresses.map((a) => address(a)) });
  }
  const bytes = getCompiledTransactionMessageEncoder().encode(compileTransactionMessage(msg));
  return Buffer.from(bytes).toString('base64');
}

let input = '';
process.stdin.on('data', (chunk) => { input += chunk; });
process.stdin.on('end', async () => {
  try {
    const req = JSON.parse(input);
    const messages = [];
    for (const t of req.transactions) messages.push(await change(t));
    process.stdout.write(JSON.stringify({ messages }) + '\n');
  } catch (e) {
    process.stderr.write(`${e.stack}\n`);
    process.exit(1);
  }
});
