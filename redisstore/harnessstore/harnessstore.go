// Package harnessstore keeps the sessions of oarc's fixture runner in
// Redis, so that the fixture suite runs against the Redis store: the
// store's tests set harness.RunnerStore to this module, and the runner the
// harness builds calls [Sessions] when it starts.
package harnessstore

import (
	"context"
	"errors"
	"os"
	"time"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/runtime"
	"github.com/redis/go-redis/v9"
)

// The environment the runner reads.
const (
	EnvAddr   = "OARC_REDIS_ADDR"   // host:port of the server
	EnvPrefix = "OARC_REDIS_PREFIX" // the store's key prefix
)

// Sessions returns a function making sessions in the Redis store that
// OARC_REDIS_ADDR and OARC_REDIS_PREFIX name; it fails when the server
// does not answer.
func Sessions() (func(id string) *runtime.Session, error) {
	addr := os.Getenv(EnvAddr)
	if addr == "" {
		return nil, errors.New(EnvAddr + " is not set")
	}
	c := redis.NewClient(redisstore.ClientOptions(addr))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		return nil, err
	}
	st, err := redisstore.New(c, redisstore.Options{Prefix: os.Getenv(EnvPrefix), TTL: 10 * time.Minute})
	if err != nil {
		return nil, err
	}
	return func(id string) *runtime.Session { return st.Session(id) }, nil
}
