package redisstore_test

import (
	"testing"

	"github.com/oarc/oarc/redisstore"
	"github.com/oarc/oarc/redisstore/redistest"
	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/storetest"
)

// TestConformance: the Redis store passes the suite every runtime.Store
// must pass (runtime/storetest): counters, the record of tool calls
// against the table of spec 5.10 and call for call against MemStore,
// provenance and its limits, atomicity; each store with keys of its own.
func TestConformance(t *testing.T) {
	c := redistest.Client(t, redistest.Addr(t))
	storetest.Run(t, func(t *testing.T) runtime.Store { return redistest.Store(t, c, redisstore.Options{}) })
}
