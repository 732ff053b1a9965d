'use strict';
// Stake accounts and the StakeHistory a bank writes at each epoch boundary.
//
// A bank, crossing from epoch E to E+1, sums every delegation's
// (effective, activating, deactivating) stake at E, computed with the
// history up to E-1, and adds that sum as StakeHistory's entry for E
// (Agave runtime/src/stakes.rs activate_epoch). The stake program then
// reads the sysvar to decide how much of a delegation is still effective:
// a deactivated stake can be withdrawn whole once none of it is.
//
// delegationStatus is the stake program's
// Delegation::stake_activating_and_deactivating (solana-stake-interface
// src/state.rs, and Agave's sdk/program/src/stake/state.rs before it):
// warmup and cooldown are limited per epoch to a share of the cluster's
// effective stake of the epoch before (9%), split among the activating
// (deactivating) delegations by weight; an epoch missing from the history
// counts as fully effective (fully inactive). The rate is 9% from epoch 0
// here: the core BPF stake program this LiteSVM runs treats the
// reduce_stake_warmup_cooldown feature as active since epoch 0
// (PERPETUAL_NEW_WARMUP_COOLDOWN_RATE_EPOCH), and so does this bank.

const bs58 = require('./base58');

const STAKE_PROGRAM = 'Stake11111111111111111111111111111111111111';
const VOTE_PROGRAM = 'Vote111111111111111111111111111111111111111';
const STAKE_ACCOUNT_SIZE = 200;
const U64_MAX = 18446744073709551615n;
const WARMUP_COOLDOWN_RATE = 0.09;
// The bootstrap validator's stake, as solana-test-validator's genesis
// delegates it (validator_stake_lamports, 1,000,000 SOL).
const BOOTSTRAP_STAKE = 1_000_000n * 1_000_000_000n;

// parseStake decodes a StakeStateV2 account (bincode): 0 Uninitialized,
// 1 Initialized(Meta), 2 Stake(Meta, Stake, StakeFlags), 3 RewardsPool.
// Meta: rent_exempt_reserve u64, staker, withdrawer, lockup (unix_timestamp
// i64, epoch u64, custodian). Stake: voter, stake u64, activation_epoch,
// deactivation_epoch, warmup_cooldown_rate f64 (unused), credits_observed.
function parseStake(data) {
  if (data.length < STAKE_ACCOUNT_SIZE) return null;
  const tag = data.readUInt32LE(0);
  if (tag !== 1 && tag !== 2) return { state: tag === 0 ? 'uninitialized' : 'rewardsPool' };
  const out = {
    state: tag === 1 ? 'initialized' : 'delegated',
    rentExemptReserve: data.readBigUInt64LE(4),
    staker: bs58.encode(data.subarray(12, 44)),
    withdrawer: bs58.encode(data.subarray(44, 76)),
    lockup: { unixTimestamp: data.readBigInt64LE(76), epoch: data.readBigUInt64LE(84), custodian: bs58.encode(data.subarray(92, 124)) },
  };
  if (tag === 2) {
    out.delegation = {
      voter: bs58.encode(data.subarray(124, 156)),
      stake: data.readBigUInt64LE(156),
      activationEpoch: data.readBigUInt64LE(164),
      deactivationEpoch: data.readBigUInt64LE(172),
    };
    out.creditsObserved = data.readBigUInt64LE(188);
  }
  return out;
}

// encodeStake is the bincode StakeStateV2::Stake of a delegation (the
// bootstrap stake genesis writes).
function encodeStake({ rentExemptReserve, staker, withdrawer, voter, stake, activationEpoch, deactivationEpoch = U64_MAX }) {
  const data = Buffer.alloc(STAKE_ACCOUNT_SIZE);
  data.writeUInt32LE(2, 0);
  data.writeBigUInt64LE(rentExemptReserve, 4);
  bs58.decodePubkey(staker).copy(data, 12);
  bs58.decodePubkey(withdrawer).copy(data, 44);
  bs58.decodePubkey(voter).copy(data, 124);
  data.writeBigUInt64LE(stake, 156);
  data.writeBigUInt64LE(activationEpoch, 164);
  data.writeBigUInt64LE(deactivationEpoch, 172);
  data.writeDoubleLE(0.25, 180); // the deprecated warmup_cooldown_rate field, as written
  return data;
}

// floor is Rust's `f64 as u64` of a non-negative finite value.
const floor = (x) => BigInt(Math.floor(x));
const max1 = (n) => (n > 0n ? n : 1n);

// stakeAndActivating is (effective, activating) before deactivation.
function stakeAndActivating(d, target, history) {
  const delegated = d.stake;
  if (d.activationEpoch === U64_MAX) return [delegated, 0n]; // bootstrap: fully effective
  if (d.activationEpoch === d.deactivationEpoch) return [0n, 0n];
  if (target === d.activationEpoch) return [0n, delegated];
  if (target < d.activationEpoch) return [0n, 0n];
  let prevEpoch = d.activationEpoch;
  let prev = history.get(prevEpoch);
  if (!prev) return [delegated, 0n];
  let effective = 0n;
  for (;;) {
    const current = prevEpoch + 1n;
    if (prev.activating === 0n) break;
    const weight = Number(delegated - effective) / Number(prev.activating);
    effective += max1(floor(weight * (Number(prev.effective) * WARMUP_COOLDOWN_RATE)));
    if (effective >= delegated) { effective = delegated; break; }
    if (current >= target || current >= d.deactivationEpoch) break;
    const next = history.get(current);
    if (!next) break;
    prevEpoch = current;
    prev = next;
  }
  return [effective, delegated - effective];
}

// delegationStatus is a delegation's { effective, activating, deactivating }
// at epoch target (bigints), given history (a Map epoch -> entry).
function delegationStatus(d, target, history) {
  const [effective, activating] = stakeAndActivating(d, target, history);
  if (target < d.deactivationEpoch) return { effective, activating, deactivating: 0n };
  if (target === d.deactivationEpoch) return { effective, activating: 0n, deactivating: effective };
  let prevEpoch = d.deactivationEpoch;
  let prev = history.get(prevEpoch);
  if (!prev) return { effective: 0n, activating: 0n, deactivating: 0n };
  let current = effective;
  for (;;) {
    const epoch = prevEpoch + 1n;
    if (prev.deactivating === 0n) break;
    const weight = Number(current) / Number(prev.deactivating);
    const cut = max1(floor(weight * (Number(prev.effective) * WARMUP_COOLDOWN_RATE)));
    current = current > cut ? current - cut : 0n;
    if (current === 0n) break;
    if (epoch >= target) break;
    const next = history.get(epoch);
    if (!next) break;
    prevEpoch = epoch;
    prev = next;
  }
  return { effective: current, activating: 0n, deactivating: current };
}

// historyEntry sums the delegations' status at epoch, as the bank's entry
// for it.
function historyEntry(delegations, epoch, history) {
  const sum = { effective: 0n, activating: 0n, deactivating: 0n };
  for (const d of delegations) {
    const s = delegationStatus(d, epoch, history);
    sum.effective += s.effective;
    sum.activating += s.activating;
    sum.deactivating += s.deactivating;
  }
  return sum;
}

module.exports = {
  STAKE_PROGRAM, VOTE_PROGRAM, STAKE_ACCOUNT_SIZE, BOOTSTRAP_STAKE, U64_MAX,
  parseStake, encodeStake, delegationStatus, historyEntry,
};
