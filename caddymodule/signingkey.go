package caddymodule

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"
	"io/fs"
	"sync"

	"github.com/caddyserver/caddy/v2"
	"github.com/caddyserver/certmagic"
	"go.uber.org/zap"

	"github.com/thinkgate/thinkgate/providers/emit"
)

// signingKeyStorageKey is where the generated signing key lives in Caddy's
// storage (with the default file system storage, under Caddy's data
// directory).
const signingKeyStorageKey = "thinkgate/signing_key"

// signingKeyLogged keeps the "where the key lives" line to once per process
// and storage, not once per config load.
var signingKeyLogged sync.Map

// storedSigningKey returns the signing key kept in storage, making and
// storing one if there is none yet. Instances that share the storage (a
// cluster, or one process across reloads and restarts) share the key: the
// storage's lock makes generate-if-absent safe when they start together.
func storedSigningKey(ctx context.Context, storage certmagic.Storage, logger *zap.Logger) ([]byte, error) {
	if storage == nil {
		return nil, errors.New("signing_key: not set, and Caddy has no storage to keep a generated key in")
	}
	if err := storage.Lock(ctx, signingKeyStorageKey); err != nil {
		return nil, fmt.Errorf("signing_key: not set, and locking %s in storage failed: %v (set signing_key, or give Caddy writable storage)", signingKeyStorageKey, err)
	}
	defer func() { _ = storage.Unlock(ctx, signingKeyStorageKey) }()

	where := fmt.Sprintf("%s in %v", signingKeyStorageKey, storage)
	if fsStorage, ok := storage.(*certmagic.FileStorage); ok {
		where = fsStorage.Filename(signingKeyStorageKey)
	}
	stored, err := storage.Load(ctx, signingKeyStorageKey)
	switch {
	case err == nil:
		// The stored text is the key, as an operator would copy it into
		// signing_key or previous_signing_keys.
		raw, err := base64.StdEncoding.DecodeString(string(stored))
		if err != nil || len(raw) < 32 {
			return nil, fmt.Errorf("signing_key: %s does not hold a key the gateway made (32 bytes, base64); remove it or set signing_key", where)
		}
		if _, seen := signingKeyLogged.LoadOrStore(where, true); !seen {
			logger.Info("thinking-block signing key loaded from storage", zap.String("location", where))
		}
		return stored, nil
	case errors.Is(err, fs.ErrNotExist):
		raw := make([]byte, 32)
		if _, err := rand.Read(raw); err != nil {
			return nil, err
		}
		key := []byte(base64.StdEncoding.EncodeToString(raw))
		if err := storage.Store(ctx, signingKeyStorageKey, key); err != nil {
			return nil, fmt.Errorf("signing_key: not set, and storing a generated key at %s failed: %v (set signing_key, or give Caddy writable storage)", where, err)
		}
		signingKeyLogged.Store(where, true)
		logger.Info("thinking-block signing key generated and stored; every instance on this storage uses it",
			zap.String("location", where))
		return key, nil
	default:
		return nil, fmt.Errorf("signing_key: reading %s: %v", where, err)
	}
}

// signer builds the thinking-block signer: the configured key, else the
// one kept in storage, plus the previous keys that still verify.
func (h *Handler) signer(ctx caddy.Context) (*emit.Signer, error) {
	key, err := secret("signing_key", h.SigningKey)
	if err != nil {
		return nil, err
	}
	var current []byte
	if key != "" {
		current = []byte(key)
	} else if current, err = storedSigningKey(ctx, ctx.Storage(), h.logger); err != nil {
		return nil, err
	}
	var previous [][]byte
	for _, p := range h.PreviousSigningKeys {
		v, err := secret("previous_signing_keys", p)
		if err != nil {
			return nil, err
		}
		if v == "" {
			return nil, errors.New("previous_signing_keys: empty key")
		}
		previous = append(previous, []byte(v))
	}
	return emit.NewSigner(current, previous...), nil
}
