package admin

import (
	"context"
	"fmt"
	"time"

	"github.com/reclaim-sol/reclaim/backend/owner"
)

// OwnerCreator stores owners.
type OwnerCreator interface {
	CreateOwner(ctx context.Context, o owner.Owner) (owner.Owner, error)
}

// CreateOwner validates email and password and stores a new owner with the
// password hashed by pw. A taken email gives owner.ErrConflict. The sign-up
// page and `reclaim owner create` both use it.
func CreateOwner(ctx context.Context, store OwnerCreator, pw Passwords, email, password string) (owner.Owner, error) {
	if err := ValidateEmail(email); err != nil {
		return owner.Owner{}, err
	}
	if err := ValidatePassword(password); err != nil {
		return owner.Owner{}, err
	}
	hash, err := pw.Hash(password)
	if err != nil {
		return owner.Owner{}, fmt.Errorf("hash password: %w", err)
	}
	return store.CreateOwner(ctx, owner.Owner{Email: normalizeEmail(email), PasswordHash: hash, CreatedAt: time.Now().UTC()})
}
