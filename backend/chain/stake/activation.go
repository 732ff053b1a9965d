package stake

// Warmup and cooldown. How much of a delegation is effective in an epoch
// depends on the cluster's stake in every epoch since it was activated or
// deactivated (StakeHistory): each epoch at most a fraction (9%) of the
// cluster's effective stake may activate or deactivate, shared in
// proportion among the accounts doing so. This is
// Delegation::stake_activating_and_deactivating of solana-stake-interface
// (state.rs), with the stake program's new_rate_activation_epoch Some(0)
// (PERPETUAL_NEW_WARMUP_COOLDOWN_RATE_EPOCH of the core BPF program: 9% in
// every epoch), in the same float64 operations so that it truncates as the
// program does.

// cooldownRate is the fraction of the cluster's effective stake that may
// activate or deactivate in one epoch.
const cooldownRate = 0.09

// Effective is the part of d that is effective in epoch, under history.
func (d Delegation) Effective(epoch uint64, history History) uint64 {
	effective, _ := d.stakeAndActivating(epoch, history)
	switch {
	case epoch < d.DeactivationEpoch:
		return effective
	case epoch == d.DeactivationEpoch:
		return effective // all of it deactivating, still effective
	}
	prev, ok := history[d.DeactivationEpoch]
	if !ok {
		return 0 // no history, or dropped out of it: fully deactivated
	}
	prevEpoch, current := d.DeactivationEpoch, effective
	for {
		currentEpoch := prevEpoch + 1
		if prev.Deactivating == 0 {
			break
		}
		weight := float64(current) / float64(prev.Deactivating)
		newlyNotEffectiveCluster := float64(prev.Effective) * cooldownRate
		newlyNotEffective := max(uint64(weight*newlyNotEffectiveCluster), 1)
		current = subSaturating(current, newlyNotEffective)
		if current == 0 || currentEpoch >= epoch {
			break
		}
		next, ok := history[currentEpoch]
		if !ok {
			break
		}
		prevEpoch, prev = currentEpoch, next
	}
	return current
}

// stakeAndActivating is the effective and activating parts of d in epoch,
// before any deactivation.
func (d Delegation) stakeAndActivating(epoch uint64, history History) (effective, activating uint64) {
	delegated := d.Stake
	switch {
	case d.ActivationEpoch == NotDeactivated: // a bootstrap stake
		return delegated, 0
	case d.ActivationEpoch == d.DeactivationEpoch:
		return 0, 0 // deactivated in the epoch it was activated: never effective
	case epoch == d.ActivationEpoch:
		return 0, delegated
	case epoch < d.ActivationEpoch:
		return 0, 0
	}
	prev, ok := history[d.ActivationEpoch]
	if !ok {
		return delegated, 0 // no history, or dropped out of it: fully effective
	}
	prevEpoch, current := d.ActivationEpoch, uint64(0)
	for {
		currentEpoch := prevEpoch + 1
		if prev.Activating == 0 {
			break
		}
		weight := float64(delegated-current) / float64(prev.Activating)
		newlyEffectiveCluster := float64(prev.Effective) * cooldownRate
		current += max(uint64(weight*newlyEffectiveCluster), 1)
		if current >= delegated {
			current = delegated
			break
		}
		if currentEpoch >= epoch || currentEpoch >= d.DeactivationEpoch {
			break
		}
		next, ok := history[currentEpoch]
		if !ok {
			break
		}
		prevEpoch, prev = currentEpoch, next
	}
	return current, delegated - current
}

func subSaturating(a, b uint64) uint64 {
	if b > a {
		return 0
	}
	return a - b
}
