package storetest_test

import (
	"testing"

	"github.com/oarc/oarc/runtime"
	"github.com/oarc/oarc/runtime/storetest"
)

// runtime's MemStore passes the suite every store must pass.
func TestMemStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) runtime.Store { return runtime.NewMemStore(0) })
}
